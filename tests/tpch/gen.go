package tpch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Config chooses a data set: the scale factor (1 is the specification's
// 6M lineitems; the test uses thousandths) and the seed of every random
// choice. Equal configs generate identical data.
type Config struct {
	SF   float64
	Seed uint64
	// RefreshPermille is the share of the orders each refresh batch
	// inserts or deletes, in thousandths: 0 means TPC-H's 1 (0.1%).
	RefreshPermille int
}

// Table is one generated table: its name, columns and rows, each value in
// PostgreSQL's text form (what COPY reads and SELECT prints).
type Table struct {
	Name    string
	Columns []string
	Rows    [][]string
}

// Batch is one refresh batch: statements applied in one transaction to
// Eddy and PostgreSQL alike.
type Batch struct {
	Name  string
	Stmts []string
}

// Data is a generated data set: the eight tables in load order and the
// refresh batches to apply after loading them.
type Data struct {
	Config
	Tables  []*Table
	Batches []Batch
}

// Dates of the specification (clause 4.2.3): orders are placed between
// startDate and endDate-151 days; lineitems shipped after currentDate are
// open ('O'), those received by it may be returned.
var (
	startDate   = days(1992, 1, 1)
	currentDate = days(1995, 6, 17)
	endDate     = days(1998, 12, 31)
)

// days returns the day number (since 1970-01-01) of a date.
func days(y, m, d int) int {
	return int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// dateText prints a day number as PostgreSQL prints a date.
func dateText(d int) string {
	return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
}

// money prints an amount of cents (or hundredths) as numeric(15,2).
func money(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Random streams: each table draws from its own stream, so the rows of
// one table do not depend on how many draws another made.
const (
	streamText = iota + 1
	streamNation
	streamPart
	streamSupplier
	streamPartsupp
	streamCustomer
	streamOrders
	streamRF1
	streamRF2
	streamUpdate
)

// gen holds the cardinalities and the state shared by the table generators.
type gen struct {
	cfg        Config
	nPart      int // SF * 200,000
	nSupp      int // SF * 10,000
	nCust      int // SF * 150,000
	nOrder     int // SF * 1,500,000
	nClerk     int // SF * 1,000
	text       *textPool
	parts      []part     // by key-1
	supps      []supplier // by key-1
	custs      []customer // by key-1
	orders     []*order   // in key order
	nextUpdate int        // the next order index RF1 gives a key to
}

// rng returns the random stream s of the configuration.
func (g *gen) rng(s uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.cfg.Seed, s))
}

// Generate builds the data set of cfg.
func Generate(cfg Config) *Data {
	scaled := func(n float64) int { return max(1, int(cfg.SF*n+0.5)) }
	g := &gen{cfg: cfg, nPart: scaled(200000), nSupp: scaled(10000), nCust: scaled(150000),
		nOrder: scaled(1500000), nClerk: scaled(1000)}
	g.text = newTextPool(g.rng(streamText), 1<<20)
	d := &Data{Config: cfg}
	d.Tables = append(d.Tables, g.regionTable(), g.nationTable())
	g.genParts()
	g.genSuppliers()
	g.genCustomers()
	g.genOrders()
	d.Tables = append(d.Tables, g.partTable(), g.supplierTable(), g.partsuppTable(),
		g.customerTable(), g.ordersTable(), g.lineitemTable())
	d.Batches = g.refreshBatches()
	return d
}

// between returns a uniform integer in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// pick returns a uniform element of list.
func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

// vstring returns a random string of length [lo, hi] over letters, digits,
// comma, period and space (the specification's v-string).
func vstring(r *rand.Rand, lo, hi int) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,. "
	b := make([]byte, between(r, lo, hi))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// phone returns a phone number whose country code is the nation key + 10.
func phone(r *rand.Rand, nation int) string {
	return fmt.Sprintf("%02d-%03d-%03d-%04d", nation+10, between(r, 100, 999), between(r, 100, 999), between(r, 1000, 9999))
}

func (g *gen) regionTable() *Table {
	t := &Table{Name: "region", Columns: []string{"r_regionkey", "r_name", "r_comment"}}
	r := g.rng(streamNation)
	for i, name := range regions {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i), name, g.text.comment(r, 31, 115)})
	}
	return t
}

func (g *gen) nationTable() *Table {
	t := &Table{Name: "nation", Columns: []string{"n_nationkey", "n_name", "n_regionkey", "n_comment"}}
	r := g.rng(streamNation + 100)
	for i, n := range nations {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i), n.name, fmt.Sprint(n.region), g.text.comment(r, 31, 114)})
	}
	return t
}

// part is one PART row.
type part struct {
	name, mfgr, brand, typ, container, comment string
	size                                       int
	retail                                     int64 // cents
}

// retailPrice is P_RETAILPRICE in cents, a function of the key (4.2.3).
func retailPrice(key int) int64 {
	return int64(90000 + (key/10)%20001 + 100*(key%1000))
}

func (g *gen) genParts() {
	r := g.rng(streamPart)
	for key := 1; key <= g.nPart; key++ {
		words := r.Perm(len(colors))[:5]
		name := make([]string, 5)
		for i, w := range words {
			name[i] = colors[w]
		}
		m, n := between(r, 1, 5), between(r, 1, 5)
		g.parts = append(g.parts, part{
			name:      strings.Join(name, " "),
			mfgr:      fmt.Sprintf("Manufacturer#%d", m),
			brand:     fmt.Sprintf("Brand#%d%d", m, n),
			typ:       pick(r, typeS1) + " " + pick(r, typeS2) + " " + pick(r, typeS3),
			size:      between(r, 1, 50),
			container: pick(r, containerS1) + " " + pick(r, containerS2),
			retail:    retailPrice(key),
			comment:   g.text.comment(r, 5, 22),
		})
	}
	plantParts(g)
}

func (g *gen) partTable() *Table {
	t := &Table{Name: "part", Columns: []string{"p_partkey", "p_name", "p_mfgr", "p_brand", "p_type",
		"p_size", "p_container", "p_retailprice", "p_comment"}}
	for i, p := range g.parts {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), p.name, p.mfgr, p.brand, p.typ,
			fmt.Sprint(p.size), p.container, money(p.retail), p.comment})
	}
	return t
}

// partSupplier returns the i-th (0..3) supplier of a part (4.2.3:
// PS_SUPPKEY = (ps_partkey + (i * ((S/4) + (int)(ps_partkey-1)/S))) mod S + 1).
// With fewer than 40 suppliers the formula can repeat a supplier, which
// the primary key forbids: then the next free supplier is taken.
func (g *gen) partSupplier(partkey, i int) int {
	s := g.nSupp
	var seen [4]int
	for j := 0; j <= i; j++ {
		k := (partkey+j*(s/4+(partkey-1)/s))%s + 1
		for s >= 4 && slices.Contains(seen[:j], k) {
			k = k%s + 1
		}
		seen[j] = k
	}
	return seen[i]
}

// supplier is one SUPPLIER row.
type supplier struct {
	address, phone, comment string
	nation                  int
	acctbal                 int64
}

func (g *gen) genSuppliers() {
	r := g.rng(streamSupplier)
	for range g.nSupp {
		nation := r.IntN(len(nations))
		s := supplier{address: vstring(r, 10, 40), nation: nation, phone: phone(r, nation),
			acctbal: int64(between(r, -99999, 999999)), comment: g.text.comment(r, 25, 100)}
		// Clause 4.2.3: SF*5 suppliers (1 in 2,000) have "Customer ...
		// Complaints" in their comment and as many "Customer ... Recommends".
		switch x := r.IntN(2000); x {
		case 0:
			s.comment = bbb(r, s.comment, "Complaints")
		case 1:
			s.comment = bbb(r, s.comment, "Recommends")
		}
		g.supps = append(g.supps, s)
	}
	plantSuppliers(g, r)
}

// bbb overwrites comment with "Customer" at a random place and word after
// it (the Better Business Bureau comments of clause 4.2.3).
func bbb(r *rand.Rand, comment, word string) string {
	const customer = "Customer "
	for len(comment) < len(customer)+len(word)+2 {
		comment += " x"
	}
	b := []byte(comment)
	room := len(b) - len(customer) - len(word)
	at := r.IntN(room + 1)
	copy(b[at:], customer)
	at2 := at + len(customer) + r.IntN(room-at+1)
	copy(b[at2:], word)
	return string(b)
}

func (g *gen) supplierTable() *Table {
	t := &Table{Name: "supplier", Columns: []string{"s_suppkey", "s_name", "s_address", "s_nationkey",
		"s_phone", "s_acctbal", "s_comment"}}
	for i, s := range g.supps {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), fmt.Sprintf("Supplier#%09d", i+1), s.address,
			fmt.Sprint(s.nation), s.phone, money(s.acctbal), s.comment})
	}
	return t
}

func (g *gen) partsuppTable() *Table {
	t := &Table{Name: "partsupp", Columns: []string{"ps_partkey", "ps_suppkey", "ps_availqty",
		"ps_supplycost", "ps_comment"}}
	r := g.rng(streamPartsupp)
	for key := 1; key <= g.nPart; key++ {
		for i := range 4 {
			t.Rows = append(t.Rows, []string{fmt.Sprint(key), fmt.Sprint(g.partSupplier(key, i)),
				fmt.Sprint(between(r, 1, 9999)), money(int64(between(r, 100, 100000))), g.text.comment(r, 49, 198)})
		}
	}
	return t
}

// customer is one CUSTOMER row.
type customer struct {
	address, phone, segment, comment string
	nation                           int
	acctbal                          int64
}

func (g *gen) genCustomers() {
	r := g.rng(streamCustomer)
	for range g.nCust {
		nation := r.IntN(len(nations))
		g.custs = append(g.custs, customer{address: vstring(r, 10, 40), nation: nation, phone: phone(r, nation),
			acctbal: int64(between(r, -99999, 999999)), segment: pick(r, segments), comment: g.text.comment(r, 29, 116)})
	}
}

func (g *gen) customerTable() *Table {
	t := &Table{Name: "customer", Columns: []string{"c_custkey", "c_name", "c_address", "c_nationkey",
		"c_phone", "c_acctbal", "c_mktsegment", "c_comment"}}
	for i, c := range g.custs {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), fmt.Sprintf("Customer#%09d", i+1), c.address,
			fmt.Sprint(c.nation), c.phone, money(c.acctbal), c.segment, c.comment})
	}
	return t
}
