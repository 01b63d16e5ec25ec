package tpcds

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// batches returns the write batches applied after the load, in order:
//
//   - insert: new store tickets, catalog and web orders (about 5% of
//     each, at least 5) with some returns, and a newly stocked item;
//   - delete: as many loaded tickets and orders deleted with their
//     returns, and a third of one item's inventory rows;
//   - update: UPDATEs of fact columns the queries group, join and filter
//     on (quantities, prices, profits, dates, items, customers, stores,
//     return amounts, quantities on hand);
//   - dimensions: UPDATEs of dimension columns the views join, group
//     and filter on (beyond the brief's fact tables: a view must follow
//     the dimension side of its joins too);
//   - mixed: inserts and deletes in one transaction, the deletes drawn
//     from all tickets and orders so far, the batches' own included.
func (g *gen) batches() []Batch {
	r := g.rng("batches")
	loaded := map[string]int{}
	for k, v := range g.next {
		loaded[k] = v
	}
	ins := g.insertBatch(r, "insert")
	del := g.deleteBatch(r, "delete", loaded)
	upd := g.updateBatch(r, loaded)
	dims := g.dimensionBatch(r)
	mixed := g.insertBatch(r, "mixed")
	recent := map[string]int{} // every ticket and order so far, the batches' too
	for k, v := range g.next {
		recent[k] = v
	}
	mixed.Stmts = append(mixed.Stmts, g.deleteBatch(r, "", recent).Stmts...)
	return []Batch{ins, del, upd, dims, mixed}
}

// share is how many tickets or orders of table a batch writes.
func (g *gen) share(table string) int {
	return max(len(g.table(table).Rows)/200, 5)
}

// insertBatch inserts new tickets, orders and their returns, and
// inventory rows.
func (g *gen) insertBatch(r *rand.Rand, name string) Batch {
	var b Batch
	b.Name = name
	var ss, sr, cs, cr, ws, wr [][]string
	for range g.share("store_sales") {
		s, rt := g.storeTicket(r, 1+r.IntN(20))
		ss, sr = append(ss, s...), append(sr, rt...)
	}
	for range g.share("catalog_sales") {
		s, rt := g.order(r, "catalog", 1+r.IntN(10))
		cs, cr = append(cs, s...), append(cr, rt...)
	}
	for range g.share("web_sales") {
		s, rt := g.order(r, "web", 1+r.IntN(10))
		ws, wr = append(ws, s...), append(wr, rt...)
	}
	g.next["inventory"]++
	inv := g.stock(r, g.next["inventory"])
	for _, t := range []struct {
		name string
		rows [][]string
	}{{"store_sales", ss}, {"store_returns", sr}, {"catalog_sales", cs}, {"catalog_returns", cr}, {"web_sales", ws}, {"web_returns", wr}, {"inventory", inv}} {
		if len(t.rows) > 0 {
			b.Stmts = append(b.Stmts, insertSQL(g.table(t.name), t.rows))
		}
	}
	return b
}

// insertSQL is an INSERT of rows into t.
func insertSQL(t *Table, rows [][]string) string {
	var vals []string
	for _, row := range rows {
		lits := make([]string, len(row))
		for i, v := range row {
			if v == null {
				lits[i] = "NULL"
			} else {
				lits[i] = "'" + v + "'"
			}
		}
		vals = append(vals, "("+strings.Join(lits, ", ")+")")
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES\n%s", t.Name, strings.Join(t.Columns, ", "), strings.Join(vals, ",\n"))
}

// deleteBatch deletes random tickets and orders (and their returns)
// numbered up to upTo's bound for each sales table, and a third of the
// inventory rows of one item up to upTo["inventory"].
func (g *gen) deleteBatch(r *rand.Rand, name string, upTo map[string]int) Batch {
	b := Batch{Name: name}
	for _, t := range []struct{ sales, returns, sp, rp string }{
		{"store_sales", "store_returns", "ss_ticket_number", "sr_ticket_number"},
		{"catalog_sales", "catalog_returns", "cs_order_number", "cr_order_number"},
		{"web_sales", "web_returns", "ws_order_number", "wr_order_number"},
	} {
		var nums []string
		for range g.share(t.sales) {
			nums = append(nums, fmt.Sprint(1+r.IntN(upTo[t.sales])))
		}
		list := strings.Join(nums, ", ")
		b.Stmts = append(b.Stmts,
			fmt.Sprintf("DELETE FROM %s WHERE %s IN (%s)", t.returns, t.rp, list),
			fmt.Sprintf("DELETE FROM %s WHERE %s IN (%s)", t.sales, t.sp, list))
	}
	b.Stmts = append(b.Stmts, fmt.Sprintf("DELETE FROM inventory WHERE inv_item_sk = %d AND inv_date_sk %% 3 = %d", 1+r.IntN(upTo["inventory"]), r.IntN(3)))
	return b
}

// updateBatch updates fact columns the queries read, on rows of loaded
// tickets and orders.
func (g *gen) updateBatch(r *rand.Rand, loaded map[string]int) Batch {
	some := func(table string) string {
		var nums []string
		for range g.share(table) {
			nums = append(nums, fmt.Sprint(1+r.IntN(loaded[table])))
		}
		return strings.Join(nums, ", ")
	}
	item := func() string { return g.fk(r, "item") }
	return Batch{Name: "update", Stmts: []string{
		"UPDATE store_sales SET ss_quantity = ss_quantity + 1, ss_net_profit = ss_net_profit - 1.50, ss_sales_price = ss_sales_price + 0.25 WHERE ss_ticket_number IN (" + some("store_sales") + ")",
		"UPDATE store_sales SET ss_store_sk = " + g.fk(r, "store") + ", ss_customer_sk = " + g.fk(r, "customer") + " WHERE ss_ticket_number IN (" + some("store_sales") + ")",
		"UPDATE store_returns SET sr_return_amt = sr_return_amt * 2, sr_returned_date_sk = sr_returned_date_sk + 1 WHERE sr_ticket_number IN (" + some("store_sales") + ")",
		"UPDATE catalog_sales SET cs_sold_date_sk = cs_sold_date_sk + 30, cs_ext_sales_price = cs_ext_sales_price + 10.00 WHERE cs_order_number IN (" + some("catalog_sales") + ")",
		"UPDATE catalog_sales SET cs_item_sk = " + item() + ", cs_warehouse_sk = " + g.fk(r, "warehouse") + " WHERE cs_order_number IN (" + some("catalog_sales") + ")",
		"UPDATE catalog_returns SET cr_return_amount = cr_return_amount + 5.00 WHERE cr_order_number IN (" + some("catalog_sales") + ")",
		"UPDATE web_sales SET ws_item_sk = " + item() + ", ws_net_paid = ws_net_paid * 2 WHERE ws_order_number IN (" + some("web_sales") + ")",
		"UPDATE web_sales SET ws_ship_date_sk = ws_ship_date_sk + 100, ws_bill_customer_sk = " + g.fk(r, "customer") + " WHERE ws_order_number IN (" + some("web_sales") + ")",
		"UPDATE web_returns SET wr_net_loss = wr_net_loss + 1.00 WHERE wr_order_number IN (" + some("web_sales") + ")",
		fmt.Sprintf("UPDATE inventory SET inv_quantity_on_hand = inv_quantity_on_hand + 100 WHERE inv_item_sk = %d", 1+r.IntN(loaded["inventory"])),
		fmt.Sprintf("UPDATE inventory SET inv_quantity_on_hand = NULL WHERE inv_item_sk = %d AND inv_date_sk %% 5 = 0", 1+r.IntN(loaded["inventory"])),
	}}
}

// dimensionBatch updates dimension rows: item prices, categories and
// managers, customers' addresses and birth years, addresses' states and
// zips, stores' states and household demographics' counts.
func (g *gen) dimensionBatch(r *rand.Rand) Batch {
	n := func(dim string) int { return len(g.keys[dim]) }
	return Batch{Name: "dimensions", Stmts: []string{
		fmt.Sprintf("UPDATE item SET i_current_price = i_current_price * 1.5, i_manager_id = %d WHERE i_item_sk %% 23 = %d", 1+r.IntN(30), r.IntN(23)),
		fmt.Sprintf("UPDATE item SET i_category = '%s', i_class = '%s' WHERE i_item_sk %% 29 = %d", categories[2].name, categories[2].classes[0], r.IntN(29)),
		fmt.Sprintf("UPDATE customer SET c_current_addr_sk = %d, c_birth_year = c_birth_year + 1 WHERE c_customer_sk %% 11 = %d", 1+r.IntN(n("customer_address")), r.IntN(11)),
		fmt.Sprintf("UPDATE customer_address SET ca_state = '%s', ca_zip = '%s' WHERE ca_address_sk %% 13 = %d", pick(r, states), pick(r, zips), r.IntN(13)),
		fmt.Sprintf("UPDATE store SET s_state = 'GA', s_county = '%s' WHERE s_store_sk = %d", pick(r, counties), 1+r.IntN(n("store"))),
		fmt.Sprintf("UPDATE household_demographics SET hd_dep_count = hd_dep_count + 1, hd_buy_potential = '%s' WHERE hd_demo_sk %% 7 = %d", pick(r, buyPotentials), r.IntN(7)),
	}}
}
