package tpch

import (
	"fmt"
	"math/rand/v2"
)

// order is one ORDERS row with its lineitems.
type order struct {
	key, cust, date int
	priority, clerk string
	comment         string
	lines           []lineitem
}

// lineitem is one LINEITEM row; the derived columns (extended price,
// return flag, line status) are computed by finish.
type lineitem struct {
	part, supp, number, quantity int
	discount, tax                int64 // hundredths
	ship, commit, receipt        int   // day numbers
	returned                     bool  // 'R' rather than 'A' once received
	instruct, mode, comment      string
}

// orderKey returns the key of the i-th (0-based) order: keys are sparse,
// only the first 8 of every 32 are used (clause 4.2.3), so RF1 can insert
// new orders between them (updateKey).
func orderKey(i int) int { return i/8*32 + i%8 + 1 }

// updateKey returns the key of the i-th order inserted by a refresh batch:
// the 9th to 16th key of every 32, never used by the initial load.
func updateKey(i int) int { return i/8*32 + 8 + i%8 + 1 }

// randomCustomer returns a customer key that is not a multiple of 3: a
// third of the customers never order (clause 4.2.3; Q13 and Q22 need them).
func (g *gen) randomCustomer(r *rand.Rand) int {
	for {
		if k := between(r, 1, g.nCust); k%3 != 0 || g.nCust < 3 {
			return k
		}
	}
}

// newOrder draws an order with key key and 1 to 7 lineitems.
func (g *gen) newOrder(r *rand.Rand, key int) *order {
	o := &order{key: key, cust: g.randomCustomer(r), date: between(r, startDate, endDate-151),
		priority: pick(r, priorities), clerk: fmt.Sprintf("Clerk#%09d", between(r, 1, g.nClerk)),
		comment: g.text.comment(r, 19, 78)}
	for n := range between(r, 1, 7) {
		o.lines = append(o.lines, g.newLine(r, o.date, n+1))
	}
	return o
}

// newLine draws lineitem number n of an order placed on day date.
func (g *gen) newLine(r *rand.Rand, date, n int) lineitem {
	p := between(r, 1, g.nPart)
	l := lineitem{part: p, supp: g.partSupplier(p, r.IntN(4)), number: n,
		quantity: between(r, 1, 50), discount: int64(between(r, 0, 10)), tax: int64(between(r, 0, 8)),
		returned: r.IntN(2) == 0, instruct: pick(r, instructions), mode: pick(r, shipModes),
		comment: g.text.comment(r, 10, 43)}
	l.ship = date + between(r, 1, 121)
	l.commit = date + between(r, 30, 90)
	l.receipt = l.ship + between(r, 1, 30)
	return l
}

func (g *gen) genOrders() {
	r := g.rng(streamOrders)
	for i := range g.nOrder {
		g.orders = append(g.orders, g.newOrder(r, orderKey(i)))
	}
	plantOrders(g)
}

// extendedPrice is L_EXTENDEDPRICE in cents: quantity * P_RETAILPRICE.
func (g *gen) extendedPrice(l *lineitem) int64 {
	return int64(l.quantity) * g.parts[l.part-1].retail
}

// returnFlag is 'R' or 'A' for a lineitem received by the current date,
// else 'N'.
func (l *lineitem) returnFlag() string {
	switch {
	case l.receipt > currentDate:
		return "N"
	case l.returned:
		return "R"
	}
	return "A"
}

// lineStatus is 'O' for a lineitem shipped after the current date, else 'F'.
func (l *lineitem) lineStatus() string {
	if l.ship > currentDate {
		return "O"
	}
	return "F"
}

// status is O_ORDERSTATUS: 'F' if every lineitem is 'F', 'O' if every one
// is 'O', else 'P'.
func (o *order) status() string {
	f := 0
	for i := range o.lines {
		if o.lines[i].lineStatus() == "F" {
			f++
		}
	}
	switch f {
	case len(o.lines):
		return "F"
	case 0:
		return "O"
	}
	return "P"
}

// totalPrice is O_TOTALPRICE in cents: the sum of extendedprice * (1 +
// tax) * (1 - discount) over the lineitems, rounded half up.
func (g *gen) totalPrice(o *order) int64 {
	var sum int64 // in 1/10,000 cents
	for i := range o.lines {
		l := &o.lines[i]
		sum += g.extendedPrice(l) * (100 + l.tax) * (100 - l.discount)
	}
	return (sum + 5000) / 10000
}

// orderRow returns o's ORDERS row.
func (g *gen) orderRow(o *order) []string {
	return []string{fmt.Sprint(o.key), fmt.Sprint(o.cust), o.status(), money(g.totalPrice(o)),
		dateText(o.date), o.priority, o.clerk, "0", o.comment}
}

// lineRow returns the LINEITEM row of o's line l.
func (g *gen) lineRow(o *order, l *lineitem) []string {
	return []string{fmt.Sprint(o.key), fmt.Sprint(l.part), fmt.Sprint(l.supp), fmt.Sprint(l.number),
		money(int64(l.quantity) * 100), money(g.extendedPrice(l)), money(l.discount), money(l.tax),
		l.returnFlag(), l.lineStatus(), dateText(l.ship), dateText(l.commit), dateText(l.receipt),
		l.instruct, l.mode, l.comment}
}

var (
	ordersColumns = []string{"o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate",
		"o_orderpriority", "o_clerk", "o_shippriority", "o_comment"}
	lineitemColumns = []string{"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity",
		"l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate",
		"l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"}
)

func (g *gen) ordersTable() *Table {
	t := &Table{Name: "orders", Columns: ordersColumns}
	for _, o := range g.orders {
		t.Rows = append(t.Rows, g.orderRow(o))
	}
	return t
}

func (g *gen) lineitemTable() *Table {
	t := &Table{Name: "lineitem", Columns: lineitemColumns}
	for _, o := range g.orders {
		for i := range o.lines {
			t.Rows = append(t.Rows, g.lineRow(o, &o.lines[i]))
		}
	}
	return t
}
