package exec

import (
	"strings"
	"testing"
)

// TestStateLogKeepsBuffersAcrossSmallSteps checks reset's policy: a log
// past reuseBytes keeps its buffers through Steps that use little of
// them (large and small Steps alternating, as in a dataflow fed by two
// sources), and lets go of them only after logShrinkSteps such Steps in
// a row.
func TestStateLogKeepsBuffersAcrossSmallSteps(t *testing.T) {
	var l stateLog
	big := make([]byte, 4*reuseBytes)
	fill := func(n int) {
		l.reset()
		for range n {
			l.set(big[:1024], big[:1024])
		}
	}
	fill(4 * reuseBytes / 2048) // a large Step: 4 MiB of keys and values
	grown := cap(l.buf)
	for step := range 3 * logShrinkSteps {
		if step%2 == 0 {
			fill(1) // a small Step
		} else {
			fill(4 * reuseBytes / 2048)
		}
		if cap(l.buf) != grown {
			t.Fatalf("step %d: buffer of %d bytes let go or regrown to %d while large Steps alternate with small ones", step, grown, cap(l.buf))
		}
	}
	// The first small Step's reset sees the last large one; each later
	// one's, a small one.
	for step := range logShrinkSteps {
		fill(1)
		if cap(l.buf) != grown {
			t.Fatalf("small step %d: buffer let go before %d small Steps in a row", step, logShrinkSteps)
		}
	}
	l.reset()
	if cap(l.buf) >= grown {
		t.Fatalf("buffer of %d bytes kept after %d small Steps in a row", cap(l.buf), logShrinkSteps)
	}
}

// recordWriter records the changes a log flushes, in order.
type recordWriter struct{ got []string }

func (w *recordWriter) Set(k, v []byte) { w.got = append(w.got, "set "+string(k)+"="+string(v)) }
func (w *recordWriter) Delete(k []byte) { w.got = append(w.got, "del "+string(k)) }

// TestStateLogSplice checks that a spliced log flushes in its place, as
// the copy it replaced did, that the log it was taken from is left empty
// and usable, over Steps that reuse the spliced buffers, and that the
// Step's size counts what was spliced.
func TestStateLogSplice(t *testing.T) {
	var l, m stateLog
	for step := range 3 {
		l.reset()
		m.truncate()
		l.set([]byte("a"), []byte("1"))
		m.set([]byte("b"), []byte("2"))
		m.del([]byte("c"))
		before := l.size() + m.size()
		l.splice(&m)
		if len(m.buf) != 0 || len(m.ops) != 0 {
			t.Fatalf("step %d: spliced log not emptied: %d bytes, %d ops", step, len(m.buf), len(m.ops))
		}
		if l.size() < before {
			t.Fatalf("step %d: size %d after splice, %d before", step, l.size(), before)
		}
		l.del([]byte("d"))
		m.set([]byte("e"), []byte("5"))
		l.splice(&m)
		l.splice(&m) // empty: nothing
		var w recordWriter
		l.flush(&w)
		want := "set a=1,set b=2,del c,del d,set e=5"
		if got := strings.Join(w.got, ","); got != want {
			t.Fatalf("step %d: flushed %s, want %s", step, got, want)
		}
	}
}

// TestStateLogTrim checks that a log bounded by keep (SetStateLogKeep)
// lets go of its buffers once flushed when they pass it, and keeps them
// when they do not, or when it has no bound: what a flushed log keeps
// stands in the heap until the next Step.
func TestStateLogTrim(t *testing.T) {
	big := make([]byte, 1024)
	for _, c := range []struct {
		keep  int64
		sets  int
		kept  bool
		label string
	}{
		{keep: 1 << 20, sets: 2048, kept: false, label: "4 MiB logged under a 1 MiB bound"},
		{keep: 1 << 20, sets: 16, kept: true, label: "32 KiB logged under a 1 MiB bound"},
		{keep: 0, sets: 2048, kept: true, label: "4 MiB logged without a bound"},
	} {
		l := stateLog{keep: c.keep}
		l.reset()
		for range c.sets {
			l.set(big, big)
		}
		w := &recordWriter{}
		l.flush(w)
		l.trim()
		if len(w.got) != c.sets {
			t.Fatalf("%s: flushed %d changes, want %d", c.label, len(w.got), c.sets)
		}
		if kept := cap(l.buf) > 0; kept != c.kept {
			t.Errorf("%s: buffer kept %v (%d bytes), want %v", c.label, kept, cap(l.buf), c.kept)
		}
		l.reset()
		l.set([]byte("k"), []byte("v"))
		w = &recordWriter{}
		l.flush(w)
		if strings.Join(w.got, ",") != "set k=v" {
			t.Errorf("%s: the next Step flushed %v, want set k=v", c.label, w.got)
		}
	}
}
