package tpcds

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"
)

// Config chooses a data set: Scale multiplies the row counts (1 gives
// about 4,000 store sales, 3,000 catalog sales and 2,000 web sales), Seed
// every random choice. Equal configs generate identical data.
type Config struct {
	Scale int
	Seed  uint64
}

// Table is one generated table: its name, columns and rows, each value in
// PostgreSQL's text form (what COPY reads; `\N` is NULL).
type Table struct {
	Name    string
	Columns []string
	Rows    [][]string
}

// Batch is one batch of writes to the fact tables, applied in one
// transaction to Eddy and PostgreSQL alike.
type Batch struct {
	Name  string
	Stmts []string
}

// Data is a generated data set: the 24 tables in schema order and the
// batches to apply after loading them.
type Data struct {
	Config
	Tables  []*Table
	Batches []Batch
}

// null is COPY's text form of NULL.
const null = `\N`

// Dates: date_dim covers firstDate..lastDate; sales fall in 1998-2002,
// the years the queries filter on (saleDate).
var (
	firstDate = days(1998, 1, 1)
	lastDate  = days(2003, 12, 31)
)

// days returns the day number (since 1970-01-01) of a date.
func days(y, m, d int) int {
	return int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// dateOf returns the calendar date of a day number.
func dateOf(d int) time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// dateSK is TPC-DS's date surrogate key: the Julian day number (2000-01-01
// is 2451545), as dsdgen assigns it.
func dateSK(d int) int { return d + 2440588 }

// money prints hundredths as numeric(7,2).
func money(c int) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// gen holds the generator's state: the config, the dimension keys fact
// rows draw from, and the next free ticket and order numbers.
type gen struct {
	cfg    Config
	defs   map[string]TableDef
	tables map[string]*Table
	keys   map[string][]int // dimension table -> its surrogate keys
	next   map[string]int   // fact table -> next ticket/order number
}

// Generate returns the data set cfg describes.
func Generate(cfg Config) *Data {
	if cfg.Scale <= 0 {
		cfg.Scale = 1
	}
	g := &gen{cfg: cfg, defs: map[string]TableDef{}, tables: map[string]*Table{}, keys: map[string][]int{}, next: map[string]int{}}
	for _, d := range TableDefs() {
		g.defs[d.Name] = d
	}
	for _, name := range dimensionOrder {
		g.dimension(name)
	}
	g.facts()
	data := &Data{Config: cfg}
	for _, d := range TableDefs() {
		data.Tables = append(data.Tables, g.tables[d.Name])
	}
	data.Batches = g.batches()
	return data
}

// rng returns the random stream of one purpose: each table draws from its
// own, so one table's rows do not depend on another's draws.
func (g *gen) rng(purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return rand.New(rand.NewPCG(g.cfg.Seed, h.Sum64()))
}

// table returns the (possibly new) generated table name.
func (g *gen) table(name string) *Table {
	t := g.tables[name]
	if t == nil {
		t = &Table{Name: name}
		for _, c := range g.defs[name].Columns {
			t.Columns = append(t.Columns, c.Name)
		}
		g.tables[name] = t
	}
	return t
}

// row turns a column -> value map into a row of table name; a column the
// map lacks gets a default value of its type (fill).
func (g *gen) row(r *rand.Rand, name string, vals map[string]string) []string {
	var out []string
	for col := range vals {
		if !g.hasColumn(name, col) {
			panic(fmt.Sprintf("tpcds: %s has no column %s", name, col))
		}
	}
	for _, c := range g.defs[name].Columns {
		v, ok := vals[c.Name]
		if !ok {
			v = g.fill(r, name, c)
		}
		if v == null && c.NotNull {
			panic(fmt.Sprintf("tpcds: NULL for %s.%s", name, c.Name))
		}
		out = append(out, v)
	}
	return out
}

// hasColumn reports whether table name has column col.
func (g *gen) hasColumn(name, col string) bool {
	for _, c := range g.defs[name].Columns {
		if c.Name == col {
			return true
		}
	}
	return false
}

// fill returns a value for a column no rule names: a foreign key into the
// dimension its name refers to, else a value of its type. Nullable
// columns are NULL 2% of the time, as dsdgen leaves some unset.
func (g *gen) fill(r *rand.Rand, table string, c Column) string {
	if !c.NotNull && r.IntN(50) == 0 {
		return null
	}
	if dim := fkTarget(c.Name); dim != "" {
		return g.fk(r, dim)
	}
	switch t := c.Type; {
	case t == "integer" || t == "int":
		return fmt.Sprint(r.IntN(100))
	case strings.HasPrefix(t, "decimal"):
		return money(r.IntN(10000))
	case t == "date":
		return dateOf(firstDate + r.IntN(lastDate-firstDate)).Format("2006-01-02")
	case strings.HasPrefix(t, "varchar") || strings.HasPrefix(t, "char"):
		var n int
		fmt.Sscanf(t[strings.Index(t, "(")+1:], "%d", &n)
		w := pick(r, words)
		return w[:min(len(w), n)]
	}
	panic("tpcds: no default for type " + c.Type)
}

// fk returns a random key of dimension dim.
func (g *gen) fk(r *rand.Rand, dim string) string {
	k := g.keys[dim]
	if len(k) == 0 {
		panic("tpcds: no keys yet for " + dim)
	}
	return fmt.Sprint(k[r.IntN(len(k))])
}

// fkTarget names the dimension a surrogate-key column refers to by its
// suffix ("ss_sold_date_sk" -> date_dim), or "" for none.
func fkTarget(col string) string {
	for _, s := range fkSuffixes {
		if strings.HasSuffix(col, s.suffix) {
			return s.dim
		}
	}
	return ""
}

// fkSuffixes maps key-column suffixes to dimensions, longest first where
// one suffix ends another.
var fkSuffixes = []struct{ suffix, dim string }{
	{"_date_sk", "date_dim"}, {"_time_sk", "time_dim"}, {"_item_sk", "item"},
	{"_cdemo_sk", "customer_demographics"}, {"_hdemo_sk", "household_demographics"},
	{"_addr_sk", "customer_address"}, {"_customer_sk", "customer"}, {"_store_sk", "store"},
	{"_promo_sk", "promotion"}, {"_call_center_sk", "call_center"}, {"_catalog_page_sk", "catalog_page"},
	{"_ship_mode_sk", "ship_mode"}, {"_warehouse_sk", "warehouse"}, {"_web_page_sk", "web_page"},
	{"_site_sk", "web_site"}, {"_reason_sk", "reason"}, {"_income_band_sk", "income_band"},
}

// pick returns a random element of list.
func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// id returns a business key ("AAAAAAAA" and eight hex digits) of key k.
func id(k int) string { return fmt.Sprintf("AAAAAAAA%08X", k) }
