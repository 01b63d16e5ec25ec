package parse

import "strings"

// segment is one statement of the input: tokens toks[lo:hi] and the bytes
// from just after the previous top-level semicolon (start) to its own
// semicolon or the end of the input (end). toks[hi], if it exists, is the
// terminating semicolon.
type segment struct {
	lo, hi     int
	start, end int
}

// split cuts the tokens into statements at semicolons outside parentheses
// and brackets. Like psql, it also keeps the body of a SQL-standard
// function (CREATE FUNCTION ... BEGIN ATOMIC ...; ...; END) together by
// counting BEGIN/CASE against END inside CREATE FUNCTION/PROCEDURE. An
// unbalanced statement simply runs on; pg_query reports its error.
func split(src string, toks []token) []segment {
	var segs []segment
	seg := segment{}
	depth, blocks := 0, 0
	routine := false
	for i, t := range toks {
		if i == seg.lo {
			routine = isRoutine(src, toks[i:])
		}
		text := src[t.start:t.end]
		switch {
		case t.kind == tkPunct && (text == "(" || text == "["):
			depth++
		case t.kind == tkPunct && (text == ")" || text == "]"):
			depth = max(depth-1, 0)
		case routine && t.kind == tkIdent && (strings.EqualFold(text, "BEGIN") || strings.EqualFold(text, "CASE")):
			blocks++
		case routine && t.kind == tkIdent && strings.EqualFold(text, "END"):
			blocks = max(blocks-1, 0)
		case t.kind == tkPunct && text == ";" && depth == 0 && blocks == 0:
			seg.hi, seg.end = i, t.start
			segs = append(segs, seg)
			seg = segment{lo: i + 1, start: t.end}
		}
	}
	seg.hi, seg.end = len(toks), len(src)
	return append(segs, seg)
}

// isRoutine reports whether the statement starting at toks creates a
// function or procedure.
func isRoutine(src string, toks []token) bool {
	words := []string{"CREATE", "OR", "REPLACE"}
	j := 0
	for _, w := range words {
		if j < len(toks) && isWord(src, toks[j], w) {
			j++
		} else if w == "CREATE" {
			return false
		}
	}
	return j < len(toks) && (isWord(src, toks[j], "FUNCTION") || isWord(src, toks[j], "PROCEDURE"))
}

// isWord reports whether t is the unquoted keyword w (case-insensitively).
func isWord(src string, t token, w string) bool {
	return t.kind == tkIdent && t.end-t.start == len(w) && strings.EqualFold(src[t.start:t.end], w)
}

// extWords are the words without which no statement can be an extension.
var extWords = []string{"source", "sink", "subscribe", "watermark", "emit", "connector"}

// mayHaveExt is the fast path's pre-check: whether sql contains any
// extension word (anywhere, case-insensitively). When it does not, Parse
// hands the text to pg_query without tokenizing it.
func mayHaveExt(sql string) bool {
	for i := 0; i < len(sql); i++ {
		c := sql[i] | 0x20
		if c != 's' && c != 'w' && c != 'e' && c != 'c' {
			continue
		}
		for _, w := range extWords {
			if len(sql)-i >= len(w) && w[0] == c && strings.EqualFold(sql[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}
