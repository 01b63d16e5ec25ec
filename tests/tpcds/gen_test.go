package tpcds

import (
	"reflect"
	"testing"
)

// TestGenerateDeterministic checks that one config generates one data
// set, and another seed another.
func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(Config{Scale: 1, Seed: 7}), Generate(Config{Scale: 1, Seed: 7})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs of seed 7 differ")
	}
	if c := Generate(Config{Scale: 1, Seed: 8}); reflect.DeepEqual(a.Tables, c.Tables) {
		t.Fatal("seeds 7 and 8 generate the same tables")
	}
}

// TestGenerateReferences checks that every surrogate key a row holds
// names a row of its dimension (or is NULL), that every table has rows,
// and that every return matches a sale line of its ticket or order.
func TestGenerateReferences(t *testing.T) {
	d := Generate(Config{Scale: 1, Seed: 1})
	keys := map[string]map[string]bool{}
	byName := map[string]*Table{}
	for _, tb := range d.Tables {
		byName[tb.Name] = tb
		keys[tb.Name] = map[string]bool{}
		for _, r := range tb.Rows {
			keys[tb.Name][r[0]] = true
		}
	}
	if len(d.Tables) != 24 {
		t.Fatalf("%d tables, want 24", len(d.Tables))
	}
	for _, tb := range d.Tables {
		if len(tb.Rows) == 0 {
			t.Errorf("%s has no rows", tb.Name)
		}
		for i, col := range tb.Columns {
			dim := fkTarget(col)
			if dim == "" || dim == tb.Name {
				continue
			}
			for _, r := range tb.Rows {
				if v := r[i]; v != null && !keys[dim][v] {
					t.Fatalf("%s.%s = %s names no row of %s", tb.Name, col, v, dim)
				}
			}
		}
	}
	for _, pair := range [][4]string{
		{"store_sales", "store_returns", "ss_ticket_number", "sr_ticket_number"},
		{"catalog_sales", "catalog_returns", "cs_order_number", "cr_order_number"},
		{"web_sales", "web_returns", "ws_order_number", "wr_order_number"},
	} {
		sales, rets := byName[pair[0]], byName[pair[1]]
		lines := map[[2]string]bool{}
		for _, r := range sales.Rows {
			lines[[2]string{value(sales, r, pair[2]), value(sales, r, pair[2][:3]+"item_sk")}] = true
		}
		for _, r := range rets.Rows {
			if k := [2]string{value(rets, r, pair[3]), value(rets, r, pair[3][:3]+"item_sk")}; !lines[k] {
				t.Fatalf("%s line %v is no sale of %s", pair[1], k, pair[0])
			}
		}
	}
}
