package tpch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// refreshBatches returns the batches applied after the load, in order:
//
//   - rf1: RF1 of clause 5.3.7.2, new orders (0.1% of the orders, at
//     least 20) with their lineitems, at keys the load left unused; one of
//     them is large enough for Q18, one goes to a customer who had no order
//     (leaving Q22).
//   - rf2: RF2 of clause 5.3.7.3, as many loaded orders deleted with their
//     lineitems, among them the planted Q18, Q19 and Q21 orders.
//   - update: UPDATEs of columns the queries read (quantities, prices,
//     discounts, dates, statuses, supply costs, balances, comments, names).
//   - mixed: RF1 and RF2 again in one transaction, deleting some of rf1's
//     orders.
func (g *gen) refreshBatches() []Batch {
	n := max(g.nOrder*max(g.cfg.RefreshPermille, 1)/1000, 20)
	deleted := map[int]bool{}
	rf1 := g.rf1(g.rng(streamRF1), n)
	rf2 := g.rf2(g.rng(streamRF2), n, deleted, []int{0, 3, 6})
	upd := g.updates(g.rng(streamUpdate), deleted)
	m := g.rng(streamRF1 + 100)
	mixed := g.rf1(m, n/2)
	recent := g.orders[g.nOrder : g.nOrder+n]
	var victims []int
	for i := range recent {
		if i%3 == 0 {
			victims = append(victims, g.nOrder+i)
		}
	}
	mixed.Stmts = append(mixed.Stmts, g.rf2(m, len(victims)+n/2, deleted, victims).Stmts...)
	mixed.Name = "mixed"
	return []Batch{rf1, rf2, upd, mixed}
}

// rf1 returns a batch inserting n new orders and their lineitems.
func (g *gen) rf1(r *rand.Rand, n int) Batch {
	var orders, lines [][]string
	for i := range n {
		o := g.newOrder(r, updateKey(g.nextUpdate))
		g.nextUpdate++
		switch i {
		case 0:
			g.bigOrder(r, o, 48)
		case 1:
			q22 := func(c *customer) bool {
				return strings.Contains(" 13 31 23 29 30 18 17 ", " "+c.phone[:2]+" ") && c.acctbal > 500000
			}
			if c, ok := g.customerIn(q22, true); ok {
				o.cust = c
			}
		}
		g.orders = append(g.orders, o)
		orders = append(orders, g.orderRow(o))
		for j := range o.lines {
			lines = append(lines, g.lineRow(o, &o.lines[j]))
		}
	}
	return Batch{Name: "rf1", Stmts: []string{insertSQL("orders", orders), insertSQL("lineitem", lines)}}
}

// rf2 returns a batch deleting the orders of indexes must and more random
// live loaded orders, n in all, with their lineitems.
func (g *gen) rf2(r *rand.Rand, n int, deleted map[int]bool, must []int) Batch {
	var keys []string
	del := func(i int) {
		if i < len(g.orders) && !deleted[i] {
			deleted[i] = true
			keys = append(keys, fmt.Sprint(g.orders[i].key))
		}
	}
	for _, i := range must {
		del(i)
	}
	for tries := 0; len(keys) < n && tries < 100*n; tries++ {
		del(r.IntN(g.nOrder))
	}
	in := strings.Join(keys, ", ")
	return Batch{Name: "rf2", Stmts: []string{
		"DELETE FROM lineitem WHERE l_orderkey IN (" + in + ")",
		"DELETE FROM orders WHERE o_orderkey IN (" + in + ")",
	}}
}

// updates returns a batch of UPDATEs of live rows, with literal values.
func (g *gen) updates(r *rand.Rand, deleted map[int]bool) Batch {
	b := Batch{Name: "update"}
	add := func(format string, args ...any) { b.Stmts = append(b.Stmts, fmt.Sprintf(format, args...)) }
	liveOrder := func() *order {
		for {
			if i := r.IntN(len(g.orders)); !deleted[i] {
				return g.orders[i]
			}
		}
	}
	for range 10 {
		o := liveOrder()
		l := &o.lines[r.IntN(len(o.lines))]
		l.quantity, l.discount = between(r, 1, 50), int64(between(r, 0, 10))
		add("UPDATE lineitem SET l_quantity = %s, l_extendedprice = %s, l_discount = %s WHERE l_orderkey = %d AND l_linenumber = %d",
			money(int64(l.quantity)*100), money(g.extendedPrice(l)), money(l.discount), o.key, l.number)
	}
	for range 6 { // toggle lateness: Q4, Q12, Q21
		o := liveOrder()
		l := &o.lines[r.IntN(len(o.lines))]
		if l.receipt > l.commit {
			l.receipt = l.commit - 1
		} else {
			l.receipt = l.commit + 3
		}
		add("UPDATE lineitem SET l_receiptdate = '%s', l_shipdate = '%s' WHERE l_orderkey = %d AND l_linenumber = %d",
			dateText(l.receipt), dateText(l.receipt-1), o.key, l.number)
	}
	for range 5 {
		o := liveOrder()
		status := map[bool]string{true: "F", false: "O"}[r.IntN(2) == 0]
		add("UPDATE orders SET o_orderstatus = '%s', o_orderpriority = '%s' WHERE o_orderkey = %d", status, pick(r, priorities), o.key)
	}
	for range 10 {
		p := between(r, 1, min(g.nPart, 20))
		add("UPDATE partsupp SET ps_supplycost = %s, ps_availqty = %d WHERE ps_partkey = %d AND ps_suppkey = %d",
			money(int64(between(r, 100, 100000))), between(r, 1, 9999), p, g.partSupplier(p, r.IntN(4)))
	}
	for range 5 {
		add("UPDATE customer SET c_acctbal = %s, c_mktsegment = '%s' WHERE c_custkey = %d",
			money(int64(between(r, -99999, 999999))), pick(r, segments), between(r, 1, g.nCust))
	}
	if len(g.supps) >= 3 && len(g.parts) >= 3 { // Q16, Q11, Q2, Q9, Q20
		add("UPDATE supplier SET s_comment = '%s' WHERE s_suppkey = 3", bbb(r, g.text.comment(r, 25, 100), "Complaints"))
		add("UPDATE supplier SET s_nationkey = 7 WHERE s_suppkey = %d", min(len(g.supps), 8))
		add("UPDATE part SET p_type = 'PROMO BRUSHED COPPER' WHERE p_partkey = 1")
		add("UPDATE part SET p_name = '%s' WHERE p_partkey = 3", greenForest(g.parts[2].name))
	}
	return b
}

// insertSQL returns one INSERT of rows into table, every value a quoted
// literal.
func insertSQL(table string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " VALUES ")
	for i, row := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(v))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// quote returns v as a SQL string literal.
func quote(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// greenForest returns a part name that starts with forest (Q20) and has
// green in it (Q9).
func greenForest(name string) string {
	ws := strings.Fields(withFirstWord(name, "forest"))
	if !slices.Contains(ws, "green") {
		ws[len(ws)-1] = "green"
	}
	return strings.Join(ws, " ")
}
