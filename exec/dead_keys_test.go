package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDeadKeys adds keys to a deadKeys in ascending runs and out of
// order, rolls some back, and checks every lookup against a map.
func TestDeadKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	var d deadKeys
	want := map[string]bool{}
	var order []string
	for step := range 50 {
		mark := d.len()
		keys := make([]string, 1+rng.IntN(40))
		for i := range keys {
			keys[i] = fmt.Sprintf("k%05d", rng.IntN(3000))
		}
		if step%3 != 0 {
			slices.Sort(keys)
		}
		var added []string
		for _, k := range keys {
			if d.has([]byte(k)) {
				continue // a close frees a key once
			}
			d.add([]byte(k))
			added = append(added, k)
		}
		if step%5 == 4 { // the Step rolls back
			d.truncate(mark)
			continue
		}
		for _, k := range added {
			want[k] = true
		}
		order = append(order, added...)
	}
	if d.len() != len(order) {
		t.Fatalf("%d keys, want %d", d.len(), len(order))
	}
	for i := range 3000 {
		k := fmt.Sprintf("k%05d", i)
		if d.has([]byte(k)) != want[k] {
			t.Fatalf("has(%s) = %v, want %v", k, !want[k], want[k])
		}
	}
	d.reset()
	if d.len() != 0 || d.has([]byte(order[0])) {
		t.Fatal("reset left keys")
	}
}
