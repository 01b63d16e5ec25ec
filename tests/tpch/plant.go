package tpch

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Planted rows. At the scales `make test` can afford (a few thousand
// lineitems, ten suppliers) the most selective queries would often be
// empty, and an empty result proves nothing. So the generator overrides a
// few rows with values from the specification's domains that those
// queries select; at larger scales they are a negligible share of the data.

// supplierNations are the nations of suppliers 1 to 10: every nation and
// region the queries name (Q2 EUROPE, Q5 ASIA, Q7 FRANCE and GERMANY, Q8
// BRAZIL, Q11 GERMANY, Q20 CANADA, Q21 SAUDI ARABIA, twice).
var supplierNations = []int{20, 7, 3, 6, 2, 18, 20, 23, 8, 3}

// plantSuppliers sets the nations of the first suppliers and gives
// supplier 5 a "Customer ... Complaints" comment (Q16) and supplier 6 a
// "Customer ... Recommends" one.
func plantSuppliers(g *gen, r *rand.Rand) {
	for i, n := range supplierNations[:min(len(supplierNations), len(g.supps))] {
		g.supps[i].nation, g.supps[i].phone = n, phone(r, n)
	}
	if len(g.supps) >= 6 {
		g.supps[4].comment = bbb(r, g.supps[4].comment, "Complaints")
		g.supps[5].comment = bbb(r, g.supps[5].comment, "Recommends")
	}
}

// plantParts gives parts 1 to 9 the attributes the selective queries ask
// for.
func plantParts(g *gen) {
	if len(g.parts) < 9 {
		return
	}
	set := func(key int, brand, container string, size int) {
		p := &g.parts[key-1]
		p.brand, p.mfgr, p.container, p.size = brand, "Manufacturer#"+brand[6:7], container, size
	}
	g.parts[0].size, g.parts[0].typ = 15, "LARGE PLATED BRASS"     // Q2
	g.parts[1].size, g.parts[1].typ = 15, "STANDARD BRUSHED BRASS" // Q2
	set(3, "Brand#23", "MED BOX", g.parts[2].size)                 // Q17
	set(4, "Brand#23", "MED BOX", g.parts[3].size)                 // Q17
	set(5, "Brand#12", "SM BOX", 3)                                // Q19
	set(6, "Brand#23", "MED BAG", 8)                               // Q19
	set(7, "Brand#34", "LG CASE", 12)                              // Q19
	g.parts[7].name = withFirstWord(g.parts[7].name, "forest")     // Q20
	g.parts[8].typ = "ECONOMY ANODIZED STEEL"                      // Q8
}

// withFirstWord returns the part name with word first (and the other
// words distinct from it).
func withFirstWord(name, first string) string {
	ws := strings.Fields(name)
	if i := slices.Index(ws, first); i >= 0 {
		ws[0], ws[i] = ws[i], ws[0]
	} else {
		ws[0] = first
	}
	return strings.Join(ws, " ")
}

// plantOrders makes orders 0 to 7 (by index) hit Q19's three branches, Q18
// (twice), Q20, Q21 and Q8.
func plantOrders(g *gen) {
	if len(g.orders) < 8 || len(g.parts) < 9 {
		return
	}
	r := g.rng(streamOrders + 1000)
	q19 := func(o *order, part, qty int, mode string) {
		l := &o.lines[0]
		l.part, l.supp, l.quantity, l.mode, l.instruct = part, g.partSupplier(part, 0), qty, mode, "DELIVER IN PERSON"
	}
	q19(g.orders[0], 5, 5, "AIR")
	q19(g.orders[1], 6, 15, "AIR REG")
	q19(g.orders[2], 7, 25, "AIR")
	g.bigOrder(r, g.orders[3], 45)
	g.bigOrder(r, g.orders[4], 50)

	o := g.orders[5] // Q20: a forest part shipped in 1994 by a Canadian supplier
	o.setDate(days(1994, 2, 1))
	if s, ok := g.supplierOfPart(8, 3); ok {
		o.lines[0].part, o.lines[0].supp = 8, s
	}
	g.lateOrder(r, g.orders[6])

	o = g.orders[7] // Q8: an ECONOMY ANODIZED STEEL part sold in AMERICA in 1995
	o.setDate(days(1995, 6, 1))
	o.lines[0].part, o.lines[0].supp = 9, g.partSupplier(9, 0)
	if c, ok := g.customerIn(func(c *customer) bool { return nations[c.nation].region == 1 }, false); ok {
		o.cust = c
	}
}

// bigOrder gives o seven lineitems of at least qty units each (Q18 selects
// orders of more than 300 units).
func (g *gen) bigOrder(r *rand.Rand, o *order, qty int) {
	for len(o.lines) < 7 {
		o.lines = append(o.lines, g.newLine(r, o.date, len(o.lines)+1))
	}
	for i := range o.lines {
		o.lines[i].quantity = qty + i%(51-qty)
	}
}

// lateOrder makes o a finished order of three or more suppliers in which
// only a Saudi Arabian supplier's lineitem arrived late (Q21).
func (g *gen) lateOrder(r *rand.Rand, o *order) {
	for len(o.lines) < 3 {
		o.lines = append(o.lines, g.newLine(r, o.date, len(o.lines)+1))
	}
	o.setDate(days(1993, 3, 1))
	for p := 10; p <= len(g.parts); p++ {
		if s, ok := g.supplierOfPart(p, 20); ok {
			o.lines[0].part, o.lines[0].supp = p, s
			break
		}
	}
	late := o.lines[0].supp
	for i := range o.lines {
		l := &o.lines[i]
		for j := 0; l.supp == late && i > 0 && j < 4; j++ {
			l.supp = g.partSupplier(l.part, j)
		}
		l.ship, l.receipt, l.commit = o.date+10, o.date+20, o.date+60
	}
	o.lines[0].ship, o.lines[0].receipt, o.lines[0].commit = o.date+40, o.date+50, o.date+30
}

// setDate moves o and its lineitems' dates to day d.
func (o *order) setDate(d int) {
	delta := d - o.date
	o.date = d
	for i := range o.lines {
		o.lines[i].ship += delta
		o.lines[i].commit += delta
		o.lines[i].receipt += delta
	}
}

// supplierOfPart returns one of part p's suppliers in nation n.
func (g *gen) supplierOfPart(p, n int) (int, bool) {
	for i := range 4 {
		if s := g.partSupplier(p, i); g.supps[s-1].nation == n {
			return s, true
		}
	}
	return 0, false
}

// customerIn returns the first customer that satisfies ok and that places
// orders (noOrders false: its key is not a multiple of 3) or not.
func (g *gen) customerIn(ok func(*customer) bool, noOrders bool) (int, bool) {
	for i := range g.custs {
		if key := i + 1; (key%3 == 0) == noOrders && ok(&g.custs[i]) {
			return key, true
		}
	}
	return 0, false
}
