package parse

import (
	"errors"
	"unicode/utf8"

	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
)

// synth is SQL text synthesized for pg_query from pieces of the input kept
// at their own byte offsets, with blanks everywhere else and a few
// synthetic words (a "SELECT" or "CREATE TABLE x" prefix, commas, a closing
// parenthesis) written into the blanks. Because every copied piece keeps its
// offset, the locations pg_query reports are byte offsets into the whole
// input, exactly as for a plain statement: nothing needs remapping.
type synth struct {
	buf    []byte
	copied [][2]int // byte ranges copied from the input
}

// newSynth returns a blank buffer as long as the input's first n bytes.
func newSynth(n int) *synth {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return &synth{buf: b}
}

// copyRange copies src[from:to] into place.
func (s *synth) copyRange(src string, from, to int) {
	copy(s.buf[from:to], src[from:to])
	s.copied = append(s.copied, [2]int{from, to})
}

// put writes synthetic text ending at byte offset end (exclusive). The
// callers' grammar guarantees room: each piece of PostgreSQL text follows
// at least as many bytes of extension keywords as the prefix needs.
func (s *synth) put(end int, text string) bool {
	if end < len(text) || end > len(s.buf) {
		return false
	}
	copy(s.buf[end-len(text):end], text)
	return true
}

// isCopied reports whether byte offset b lies in a copied piece.
func (s *synth) isCopied(b int) bool {
	for _, r := range s.copied {
		if b >= r[0] && b < r[1] {
			return true
		}
	}
	return false
}

// parse runs pg_query on the synthesized text. An error inside a copied
// piece keeps PostgreSQL's message and points at the same place in the
// input; an error on synthetic text (or at the synthesized end) is reported
// at the input's token there, so the user never sees a word they did not
// write.
func (p *front) parseSynth(s *synth) (*pg.ParseResult, error) {
	res, err := pg.Parse(string(s.buf))
	if err == nil {
		return res, nil
	}
	var pe *parser.Error
	if !errors.As(err, &pe) || pe.Cursorpos <= 0 {
		return nil, syntaxError(err)
	}
	b := charToByte(string(s.buf), int(pe.Cursorpos)-1)
	if s.isCopied(b) {
		return nil, repr.Errorf(repr.CodeSyntax, "%s", pe.Message).WithPosition(CharPosition(p.src, b))
	}
	return nil, p.syntaxErrAt(p.tokenAt(b))
}

// tokenAt returns the index of the first token starting at or after byte
// offset b (len(p.toks) if none).
func (p *front) tokenAt(b int) int {
	lo, hi := 0, len(p.toks)
	for lo < hi {
		m := (lo + hi) / 2
		if p.toks[m].start < b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// charToByte converts a 0-based character offset in s to a byte offset,
// clamped to len(s).
func charToByte(s string, chars int) int {
	b := 0
	for i := 0; i < chars && b < len(s); i++ {
		_, n := utf8.DecodeRuneInString(s[b:])
		b += n
	}
	return b
}
