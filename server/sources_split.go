package server

import (
	"sync"

	"github.com/eddydb/eddy/repr"
)

// splitMin is the fewest rows a batch must have to be generated in parts:
// below it a goroutine hand-off costs about as much as the rows (exec's
// threshold for running a Step's parts concurrently is the same).
const splitMin = 512

// blockGen generates one part of a deterministic source's batch: the rows
// that begin skip rows into the batch, written into out until out is full
// or the source ends. It returns how many rows it wrote and the source's
// position after them (where the source resumes if this part is the last
// one that wrote rows). It must be a pure function of skip and len(out),
// safe to call concurrently for different parts.
type blockGen func(skip int, out []repr.Row) (n int, pos int64)

// generateSplit generates a batch of up to size rows in n contiguous
// parts, part k holding rows [k*size/n, (k+1)*size/n): the cut exec's
// splitParts makes of a source's batch, so worker k's part of the dataflow
// is the rows worker k generated. Part 0 runs on the caller's goroutine,
// the others on goroutines of their own, concurrently. The result is what
// generating the rows one after the other gives: the rows up to the first
// part that came up short (the source ended), and the position after the
// last part it keeps. Since gen is pure, the rows are byte-identical for
// every n.
func generateSplit(n, size int, gen blockGen) ([]repr.Row, int64) {
	rows := make([]repr.Row, size)
	if n <= 1 || size < splitMin {
		got, pos := gen(0, rows)
		return rows[:got], pos
	}
	got, pos := make([]int, n), make([]int64, n)
	var wg sync.WaitGroup
	panics := make([]*partPanic, n)
	for k := n - 1; k >= 0; k-- {
		a, b := k*size/n, (k+1)*size/n
		if k == 0 { // waits for the others even if it panics
			func() {
				defer catchPart(&panics[0])
				got[0], pos[0] = gen(a, rows[a:b:b])
			}()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer catchPart(&panics[k])
			got[k], pos[k] = gen(a, rows[a:b:b])
		}()
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p.v) // on the source's goroutine, inside runRecovered
		}
	}
	total := 0
	for k := range n - 1 {
		total += got[k]
		if got[k] < (k+1)*size/n-k*size/n {
			return rows[:total], pos[k]
		}
	}
	return rows[:total+got[n-1]], pos[n-1]
}
