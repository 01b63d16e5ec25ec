package are

import (
	"regexp/syntax"
	"unicode/utf8"
)

// PostgreSQL decides the word constraints \y \Y \m \M with the locale's
// word characters (alphanumerics and _ over all of Unicode in C.UTF-8:
// isUWord), RE2 with ASCII ones, and RE2 has no \m or \M at all. A pattern
// with a word constraint is therefore run by the small Pike VM below
// (Thompson's construction simulated breadth-first, as RE2 and Go's
// regexp/exec.go do) over the program regexp/syntax compiles, with the
// same leftmost-longest rule Go applies under Longest: among the matches
// starting leftmost, the longest; among those, the one the
// highest-priority thread reaches first. Only the word context differs,
// so every other construct keeps RE2's meaning.

// startMark and endMark stand for \m and \M in a translated pattern: code
// points no UTF-8 text holds (surrogates), spelled with upper-case hex so
// that they differ from a user's \uD800 escape (quoteRune writes lower
// case). Compile turns them into empty-width assertions.
const (
	startMark = `\x{D800}`
	endMark   = `\x{D801}`
)

// Assertions beyond syntax.EmptyOp's six: the start and the end of a word.
const (
	emptyWordStart syntax.EmptyOp = 1 << 6
	emptyWordEnd   syntax.EmptyOp = 1 << 7
)

// wordContext returns the empty-width conditions that hold between runes
// r1 and r2 (-1 beyond either end of the text), with Unicode word
// characters.
func wordContext(r1, r2 rune) syntax.EmptyOp {
	op := syntax.EmptyOpContext(r1, r2) &^ (syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary)
	w1, w2 := r1 >= 0 && isUWord(r1), r2 >= 0 && isUWord(r2)
	switch {
	case w1 == w2:
		op |= syntax.EmptyNoWordBoundary
	case w2:
		op |= syntax.EmptyWordBoundary | emptyWordStart
	default:
		op |= syntax.EmptyWordBoundary | emptyWordEnd
	}
	return op
}

// compileProg compiles an RE2 expression for the VM, turning the marker
// runes into word start and end assertions.
func compileProg(expr string) (*syntax.Prog, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	for i := range prog.Inst {
		in := &prog.Inst[i]
		if in.Op != syntax.InstRune1 {
			continue
		}
		switch in.Rune[0] {
		case 0xD800:
			in.Op, in.Arg, in.Rune = syntax.InstEmptyWidth, uint32(emptyWordStart), nil
		case 0xD801:
			in.Op, in.Arg, in.Rune = syntax.InstEmptyWidth, uint32(emptyWordEnd), nil
		}
	}
	return prog, nil
}

// thread is one VM thread: a program counter and its capture positions.
type thread struct {
	pc  uint32
	cap []int
}

// vm runs one search of prog.
type vm struct {
	prog  *syntax.Prog
	seen  []uint32 // per instruction, the generation of the list it was last added to
	gen   uint32   // the generation of the list being added to
	match []int
}

// vmFind returns the leftmost-longest match of prog in s starting at or
// after byte offset from, as submatch indexes for ncap/2-1 groups (nil if
// none). The text before from is context for the assertions.
func vmFind(prog *syntax.Prog, ncap int, s string, from int) []int {
	m := &vm{prog: prog, seen: make([]uint32, len(prog.Inst)), gen: 1}
	prev := rune(-1)
	if from > 0 {
		prev, _ = utf8.DecodeLastRuneInString(s[:from])
	}
	var cur, next []thread
	for pos := from; ; {
		r, w := runeAt(s, pos)
		if m.match == nil {
			cap := make([]int, ncap)
			for i := range cap {
				cap[i] = -1
			}
			cap[0] = pos
			cur = m.add(cur, uint32(prog.Start), pos, cap, wordContext(prev, r))
		}
		if len(cur) == 0 && (m.match != nil || pos >= len(s)) {
			break
		}
		r2, _ := runeAt(s, pos+w)
		m.gen++
		next = m.step(cur, next[:0], pos, r, w, wordContext(r, r2))
		if w == 0 {
			break
		}
		pos += w
		prev = r
		cur, next = next, cur
	}
	return m.match
}

// runeAt decodes the rune at byte offset p (-1, 0 at the end).
func runeAt(s string, p int) (rune, int) {
	if p >= len(s) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(s[p:])
}

// add follows the empty transitions from pc at pos under context ctx,
// appending the threads that wait on a rune or a match, in priority order.
func (m *vm) add(q []thread, pc uint32, pos int, cap []int, ctx syntax.EmptyOp) []thread {
	if m.seen[pc] == m.gen {
		return q
	}
	m.seen[pc] = m.gen
	in := &m.prog.Inst[pc]
	switch in.Op {
	case syntax.InstFail:
	case syntax.InstAlt, syntax.InstAltMatch:
		q = m.add(q, in.Out, pos, cap, ctx)
		q = m.add(q, in.Arg, pos, cap, ctx)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(in.Arg)&^ctx == 0 {
			q = m.add(q, in.Out, pos, cap, ctx)
		}
	case syntax.InstNop:
		q = m.add(q, in.Out, pos, cap, ctx)
	case syntax.InstCapture:
		if int(in.Arg) < len(cap) {
			old := cap[in.Arg]
			cap[in.Arg] = pos
			q = m.add(q, in.Out, pos, cap, ctx)
			cap[in.Arg] = old
		} else {
			q = m.add(q, in.Out, pos, cap, ctx)
		}
	default: // a rune instruction or the match
		q = append(q, thread{pc: pc, cap: append([]int(nil), cap...)})
	}
	return q
}

// step runs the threads of cur on rune r (width w) at pos, adding their
// successors at pos+w, with context ctx there, to next.
func (m *vm) step(cur, next []thread, pos int, r rune, w int, ctx syntax.EmptyOp) []thread {
	for _, t := range cur {
		if m.match != nil && m.match[0] < t.cap[0] {
			continue // starts right of the match found: not leftmost
		}
		in := &m.prog.Inst[t.pc]
		if in.Op == syntax.InstMatch {
			if m.match == nil || m.match[1] < pos {
				t.cap[1] = pos
				m.match = t.cap
			}
			continue
		}
		if r >= 0 && consumes(in, r) {
			next = m.add(next, in.Out, pos+w, t.cap, ctx)
		}
	}
	return next
}

// consumes reports whether rune instruction in matches r.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	case syntax.InstRune:
		return in.MatchRune(r)
	}
	return false
}
