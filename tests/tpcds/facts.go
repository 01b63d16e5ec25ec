package tpcds

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Fact-table sizes at scale 1: tickets and orders (each of 1-20 lines for
// stores, 1-10 for catalog and web), the share of lines returned in
// percent.
const (
	storeTickets  = 380
	catalogOrders = 550
	webOrders     = 370
	returnPercent = 10
)

// facts generates the seven fact tables.
func (g *gen) facts() {
	r := g.rng("store_sales")
	for range storeTickets * g.cfg.Scale {
		g.storeTicket(r, 1+r.IntN(20))
	}
	r = g.rng("catalog_sales")
	for range catalogOrders * g.cfg.Scale {
		g.order(r, "catalog", 1+r.IntN(10))
	}
	r = g.rng("web_sales")
	for range webOrders * g.cfg.Scale {
		g.order(r, "web", 1+r.IntN(10))
	}
	r = g.rng("inventory")
	for g.next["inventory"] < stockedItems*g.cfg.Scale {
		g.next["inventory"]++
		g.stock(r, g.next["inventory"])
	}
	for _, name := range []string{"store_sales", "store_returns", "catalog_sales", "catalog_returns", "web_sales", "web_returns", "inventory"} {
		g.table(name)
	}
}

// current makes a sale's demographics and address (the columns prefix
// plus cdemo_sk, hdemo_sk, addr_sk) its customer's current ones half the
// time, as a purchase mostly is (Q84 joins store returns to customers by
// them); the rest stay random, as dsdgen draws them.
func (g *gen) current(r *rand.Rand, head map[string]string, custCol, prefix string) {
	var c int
	if _, err := fmt.Sscan(head[custCol], &c); err != nil || r.IntN(2) == 0 {
		return
	}
	t := g.table("customer")
	row := t.Rows[c-1]
	for _, k := range []string{"cdemo_sk", "hdemo_sk", "addr_sk"} {
		head[prefix+k] = value(t, row, "c_current_"+k)
	}
}

// saleDate returns a random sale day: a year of 1998-2002, and a third
// of the time November or December (the season most queries read, as
// dsdgen's calendar weights them).
func saleDate(r *rand.Rand) int {
	y, m := 1998+r.IntN(5), 1+r.IntN(12)
	if r.IntN(3) == 0 {
		m = 11 + r.IntN(2)
	}
	return days(y, m, 1) + r.IntN(days(y, m+1, 1)-days(y, m, 1))
}

// fkn returns a random key of dim, or NULL 2% of the time: dsdgen leaves
// some foreign keys of fact rows unset (Q76 counts them).
func (g *gen) fkn(r *rand.Rand, dim string) string {
	if r.IntN(50) == 0 {
		return null
	}
	return g.fk(r, dim)
}

// storeTicket appends one store ticket of n lines (distinct items) to
// store_sales and some of its lines' returns to store_returns, and
// returns the rows.
func (g *gen) storeTicket(r *rand.Rand, n int) (sales, returns [][]string) {
	g.next["store_sales"]++
	ticket := g.next["store_sales"]
	day := saleDate(r)
	head := map[string]string{
		"ss_sold_date_sk": fmt.Sprint(dateSK(day)), "ss_sold_time_sk": g.fkn(r, "time_dim"),
		"ss_customer_sk": g.fkn(r, "customer"), "ss_cdemo_sk": g.fkn(r, "customer_demographics"),
		"ss_hdemo_sk": g.fkn(r, "household_demographics"), "ss_addr_sk": g.fkn(r, "customer_address"),
		"ss_store_sk": g.fkn(r, "store"), "ss_ticket_number": fmt.Sprint(ticket),
	}
	g.current(r, head, "ss_customer_sk", "ss_")
	for _, item := range g.items(r, n) {
		v := clone(head)
		v["ss_item_sk"] = fmt.Sprint(item)
		p := price(r, "ss_", v)
		sales = append(sales, g.row(r, "store_sales", v))
		if r.IntN(100) < returnPercent {
			ret := map[string]string{
				"sr_returned_date_sk": g.after(r, day), "sr_item_sk": v["ss_item_sk"],
				"sr_customer_sk": v["ss_customer_sk"], "sr_cdemo_sk": v["ss_cdemo_sk"],
				"sr_hdemo_sk": v["ss_hdemo_sk"], "sr_addr_sk": v["ss_addr_sk"],
				"sr_store_sk": v["ss_store_sk"], "sr_ticket_number": v["ss_ticket_number"],
			}
			refund(r, "sr_", p, ret)
			returns = append(returns, g.row(r, "store_returns", ret))
		}
	}
	g.table("store_sales").Rows = append(g.table("store_sales").Rows, sales...)
	g.table("store_returns").Rows = append(g.table("store_returns").Rows, returns...)
	return sales, returns
}

// order appends one catalog or web order of n lines to its sales table
// and some of its lines' returns to its returns table, and returns the
// rows. The lines of one order may ship from different warehouses (Q16,
// Q94, Q95 look for such orders).
func (g *gen) order(r *rand.Rand, channel string, n int) (sales, returns [][]string) {
	s, rt, sp, rp := "catalog_sales", "catalog_returns", "cs_", "cr_"
	if channel == "web" {
		s, rt, sp, rp = "web_sales", "web_returns", "ws_", "wr_"
	}
	g.next[s]++
	num := fmt.Sprint(g.next[s])
	day := saleDate(r)
	head := map[string]string{
		sp + "sold_date_sk": fmt.Sprint(dateSK(day)), sp + "sold_time_sk": g.fkn(r, "time_dim"),
		sp + "order_number": num,
	}
	for _, who := range []string{"bill_", "ship_"} {
		head[sp+who+"customer_sk"] = g.fkn(r, "customer")
		head[sp+who+"cdemo_sk"] = g.fkn(r, "customer_demographics")
		head[sp+who+"hdemo_sk"] = g.fkn(r, "household_demographics")
		head[sp+who+"addr_sk"] = g.fkn(r, "customer_address")
	}
	g.current(r, head, sp+"bill_customer_sk", sp+"bill_")
	if r.IntN(5) > 0 { // most orders ship to whoever pays
		for _, c := range []string{"customer_sk", "cdemo_sk", "hdemo_sk", "addr_sk"} {
			head[sp+"ship_"+c] = head[sp+"bill_"+c]
		}
	}
	items := g.items(r, n)
	if channel == "catalog" {
		head["cs_call_center_sk"] = g.fk(r, "call_center")
		if rets := g.table("store_returns").Rows; len(rets) > 0 && r.IntN(4) == 0 {
			day = g.repurchase(r, rets[r.IntN(len(rets))], head, items)
			head["cs_sold_date_sk"] = fmt.Sprint(dateSK(day))
		}
	}
	for _, item := range items {
		v := clone(head)
		v[sp+"item_sk"] = fmt.Sprint(item)
		v[sp+"ship_date_sk"] = fmt.Sprint(dateSK(min(day+2+r.IntN(88), lastDate)))
		p := price(r, sp, v)
		sales = append(sales, g.row(r, s, v))
		if r.IntN(100) < returnPercent {
			ret := map[string]string{
				rp + "returned_date_sk": g.after(r, day), rp + "item_sk": v[sp+"item_sk"],
				rp + "order_number":         num,
				rp + "refunded_customer_sk": v[sp+"bill_customer_sk"], rp + "refunded_addr_sk": v[sp+"bill_addr_sk"],
				rp + "refunded_cdemo_sk": v[sp+"bill_cdemo_sk"], rp + "refunded_hdemo_sk": v[sp+"bill_hdemo_sk"],
				rp + "returning_customer_sk": v[sp+"ship_customer_sk"], rp + "returning_addr_sk": v[sp+"ship_addr_sk"],
				rp + "returning_cdemo_sk": v[sp+"ship_cdemo_sk"], rp + "returning_hdemo_sk": v[sp+"ship_hdemo_sk"],
			}
			refund(r, rp, p, ret)
			returns = append(returns, g.row(r, rt, ret))
		}
	}
	g.table(s).Rows = append(g.table(s).Rows, sales...)
	g.table(rt).Rows = append(g.table(rt).Rows, returns...)
	return sales, returns
}

// Inventory covers the stocked items (1..stockedItems at load; the write
// batches stock more) in three warehouses each, every week from
// stockFrom to stockTo: the years Q21, Q22, Q37, Q39, Q72 and Q82 read.
const stockedItems = 16

var (
	stockFrom = days(1999, 1, 7)
	stockTo   = days(2001, 12, 31)
)

// stock appends the inventory rows of item (its weekly quantities in its
// three warehouses) and returns them. Quantities are skewed (mostly
// small, some large) so that Q39's coefficient of variation exceeds 1
// for some items.
func (g *gen) stock(r *rand.Rand, item int) [][]string {
	var rows [][]string
	nw := len(g.keys["warehouse"])
	for k := range 3 {
		w := (item+k)%nw + 1
		for d := stockFrom; d <= stockTo; d += 7 {
			q := r.IntN(60)
			if r.IntN(10) < 3 {
				q = r.IntN(1000)
			}
			rows = append(rows, g.row(r, "inventory", map[string]string{
				"inv_date_sk": fmt.Sprint(dateSK(d)), "inv_item_sk": fmt.Sprint(item), "inv_warehouse_sk": fmt.Sprint(w),
				"inv_quantity_on_hand": fmt.Sprint(q),
			}))
		}
	}
	g.table("inventory").Rows = append(g.table("inventory").Rows, rows...)
	return rows
}

// repurchase makes a catalog order a customer's purchase of an item they
// returned to a store, 0-90 days after the return (Q17, Q25 and Q29 follow
// store sales to their returns and then to catalog sales of the same item
// by the same customer): it sets the order's customer and first item from
// the store_returns row ret, and returns the order's day.
func (g *gen) repurchase(r *rand.Rand, ret []string, head map[string]string, items []int) int {
	t := g.table("store_returns")
	head["cs_bill_customer_sk"] = value(t, ret, "sr_customer_sk")
	var item int
	fmt.Sscan(value(t, ret, "sr_item_sk"), &item)
	if j := slices.Index(items, item); j >= 0 {
		items[0], items[j] = items[j], items[0]
	} else {
		items[0] = item
	}
	var sk int
	fmt.Sscan(value(t, ret, "sr_returned_date_sk"), &sk)
	return min(sk-dateSK(0)+r.IntN(91), lastDate-90)
}

// value returns column col of row of table t.
func value(t *Table, row []string, col string) string {
	for i, c := range t.Columns {
		if c == col {
			return row[i]
		}
	}
	panic("tpcds: " + t.Name + " has no column " + col)
}

// items returns n distinct random item keys.
func (g *gen) items(r *rand.Rand, n int) []int {
	keys := g.keys["item"]
	var out []int
	seen := map[int]bool{}
	for len(out) < min(n, len(keys)) {
		k := keys[r.IntN(len(keys))]
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// after returns the key of a day 1-60 days after day (a return's date).
func (g *gen) after(r *rand.Rand, day int) string {
	return fmt.Sprint(dateSK(min(day+1+r.IntN(60), lastDate)))
}

// clone copies a map.
func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+32)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// pricing is one sale line's quantity and prices in hundredths, as a
// return of it needs them.
type pricing struct{ qty, sales, tax int }

// price sets a sale line's quantity and price columns (prefix "ss_",
// "cs_" or "ws_") the way TPC-DS derives them (clause 3.5.4): extended
// amounts are quantity times price, net paid is sales minus coupon, net
// profit is net paid minus wholesale cost.
func price(r *rand.Rand, prefix string, v map[string]string) pricing {
	qty := 1 + r.IntN(100)
	whole := 100 + r.IntN(9900)
	list := whole * (100 + r.IntN(200)) / 100
	sales := max(list*r.IntN(101)/100, 1) // never 0: Q02 divides by sums of it
	coupon := 0
	if r.IntN(5) == 0 {
		coupon = qty * sales * r.IntN(50) / 100
	}
	tax := qty * sales * r.IntN(10) / 100
	paid := qty*sales - coupon
	set := func(col string, c int) { v[prefix+col] = money(c) }
	v[prefix+"quantity"] = fmt.Sprint(qty)
	set("wholesale_cost", whole)
	set("list_price", list)
	set("sales_price", sales)
	set("ext_discount_amt", qty*(list-sales))
	set("ext_sales_price", qty*sales)
	set("ext_wholesale_cost", qty*whole)
	set("ext_list_price", qty*list)
	set("ext_tax", tax)
	set("coupon_amt", coupon)
	set("net_paid", paid)
	set("net_paid_inc_tax", paid+tax)
	set("net_profit", paid-qty*whole)
	if prefix != "ss_" {
		ship := qty * list * r.IntN(50) / 100
		set("ext_ship_cost", ship)
		set("net_paid_inc_ship", paid+ship)
		set("net_paid_inc_ship_tax", paid+ship+tax)
	}
	return pricing{qty, sales, tax}
}

// refund sets a return line's quantity and amount columns (prefix "sr_",
// "cr_" or "wr_") from the sale's pricing.
func refund(r *rand.Rand, prefix string, p pricing, v map[string]string) {
	// Half the returns are of all but one item of the line (Q49 looks for
	// large ones); only a line of one item is returned whole, so that a
	// group's quantity net of returns is rarely 0 (Q75 divides by it).
	qty := max(p.qty-1, 1)
	if r.IntN(2) == 0 {
		qty = 1 + r.IntN(max(p.qty-1, 1))
	}
	amt := qty * p.sales
	tax := p.tax * qty / p.qty
	fee := 50 + r.IntN(9950)
	ship := amt * r.IntN(20) / 100
	cash := amt * r.IntN(101) / 100
	credit := (amt - cash) * r.IntN(101) / 100
	set := func(col string, c int) { v[prefix+col] = money(c) }
	amtCol, creditCol := "return_amt", "store_credit"
	switch prefix {
	case "cr_":
		amtCol = "return_amount"
	case "wr_":
		creditCol = "account_credit"
	}
	v[prefix+"return_quantity"] = fmt.Sprint(qty)
	set(amtCol, amt)
	set("return_tax", tax)
	set("return_amt_inc_tax", amt+tax)
	set("fee", fee)
	set("return_ship_cost", ship)
	set("refunded_cash", cash)
	set("reversed_charge", amt-cash-credit)
	set(creditCol, credit)
	set("net_loss", ship+fee+tax)
}
