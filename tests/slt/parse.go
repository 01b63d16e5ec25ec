package slt

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// RecordKind distinguishes the kinds of records in a file.
type RecordKind int

// The record kinds.
const (
	Statement RecordKind = iota
	Query
	HashThreshold
	Halt
	Verbatim // comments and blank lines, kept for rewriting
)

// SortMode says how a query's rows are ordered before comparison.
type SortMode string

// The sort modes of sqllogictest.
const (
	NoSort    SortMode = "nosort"
	RowSort   SortMode = "rowsort"
	ValueSort SortMode = "valuesort"
)

// Cond is a skipif/onlyif guard on the record that follows it.
type Cond struct {
	Only   bool // onlyif rather than skipif
	Engine string
}

// Record is one record of a sqllogictest file.
type Record struct {
	Kind RecordKind
	File string
	Line int // 1-based line of the statement/query/... line itself
	// Conds are the guards before the record.
	Conds []Cond
	// SQL is the statement or query text.
	SQL string
	// ExpectError and ErrorPattern describe "statement error [pattern]":
	// a five-character pattern is a SQLSTATE, anything else a regexp on
	// the message, an empty pattern accepts any error.
	ExpectError  bool
	ErrorPattern string
	// Types, Sort and Label come from the query line.
	Types string
	Sort  SortMode
	Label string
	// Expected holds the result lines after "----".
	Expected []string
	// Threshold is the argument of hash-threshold.
	Threshold int
	// Text holds a Verbatim record's lines.
	Text []string
	// View names the materialized view that a MaterializeQueries query
	// reads, for the PostgreSQL refresh hook.
	View string
}

// Pos returns "file:line" of r.
func (r *Record) Pos() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// Parse reads a sqllogictest file. name is used in positions.
func Parse(name string, rd io.Reader) ([]Record, error) {
	p := &parser{name: name, sc: bufio.NewScanner(rd)}
	p.sc.Buffer(make([]byte, 1<<20), 1<<24)
	return p.parse()
}

// parser reads lines and groups them into records.
type parser struct {
	name string
	sc   *bufio.Scanner
	line int
}

// next returns the next line, or false at the end of input.
func (p *parser) next() (string, bool) {
	if !p.sc.Scan() {
		return "", false
	}
	p.line++
	return strings.TrimRight(p.sc.Text(), "\r"), true
}

// parse reads all records.
func (p *parser) parse() ([]Record, error) {
	var recs []Record
	var conds []Cond
	for {
		l, ok := p.next()
		if !ok {
			break
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			if len(conds) == 0 {
				recs = appendVerbatim(recs, p.name, p.line, l)
			}
			continue
		}
		f := strings.Fields(trimmed)
		switch f[0] {
		case "skipif", "onlyif":
			if len(f) < 2 {
				return nil, p.errorf("%s needs an engine", f[0])
			}
			conds = append(conds, Cond{Only: f[0] == "onlyif", Engine: f[1]})
			continue
		}
		r, err := p.record(f)
		if err != nil {
			return nil, err
		}
		r.Conds, conds = conds, nil
		recs = append(recs, r)
	}
	if p.sc.Err() != nil {
		return nil, p.sc.Err()
	}
	return recs, nil
}

// appendVerbatim adds l to a trailing Verbatim record or starts one.
func appendVerbatim(recs []Record, file string, line int, l string) []Record {
	if n := len(recs); n > 0 && recs[n-1].Kind == Verbatim {
		recs[n-1].Text = append(recs[n-1].Text, l)
		return recs
	}
	return append(recs, Record{Kind: Verbatim, File: file, Line: line, Text: []string{l}})
}

// record parses the record whose first line has fields f.
func (p *parser) record(f []string) (Record, error) {
	r := Record{File: p.name, Line: p.line}
	switch f[0] {
	case "statement":
		return p.statement(r, f)
	case "query":
		return p.query(r, f)
	case "hash-threshold":
		if len(f) != 2 {
			return r, p.errorf("hash-threshold needs one number")
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return r, p.errorf("hash-threshold: %v", err)
		}
		r.Kind, r.Threshold = HashThreshold, n
		return r, nil
	case "halt":
		r.Kind = Halt
		return r, nil
	}
	return r, p.errorf("unknown record %q", f[0])
}

// statement parses "statement ok|error [pattern]" and its SQL.
func (p *parser) statement(r Record, f []string) (Record, error) {
	r.Kind = Statement
	if len(f) < 2 {
		return r, p.errorf("statement needs ok or error")
	}
	switch f[1] {
	case "ok":
	case "error":
		r.ExpectError = true
		r.ErrorPattern = strings.Join(f[2:], " ")
	default:
		return r, p.errorf("statement %s: want ok or error", f[1])
	}
	sql, sep := p.sqlBlock()
	if sep {
		return r, p.errorf("statement has a ---- result block")
	}
	r.SQL = sql
	return r, nil
}

// query parses "query <types> [sort] [label]", its SQL and results.
func (p *parser) query(r Record, f []string) (Record, error) {
	r.Kind = Query
	if len(f) < 2 {
		return r, p.errorf("query needs column types")
	}
	r.Types, r.Sort = f[1], NoSort
	if len(f) > 2 {
		switch s := SortMode(f[2]); s {
		case NoSort, RowSort, ValueSort:
			r.Sort = s
		default:
			return r, p.errorf("unknown sort mode %q", f[2])
		}
	}
	if len(f) > 3 {
		r.Label = f[3]
	}
	for _, c := range r.Types {
		if !strings.ContainsRune("ITR", c) {
			return r, p.errorf("unknown column type %q", c)
		}
	}
	sql, sep := p.sqlBlock()
	r.SQL = sql
	if sep {
		r.Expected = p.block()
	}
	return r, nil
}

// sqlBlock reads SQL lines up to a blank line or "----"; sep reports
// whether "----" ended it.
func (p *parser) sqlBlock() (sql string, sep bool) {
	var lines []string
	for {
		l, ok := p.next()
		if !ok || strings.TrimSpace(l) == "" {
			break
		}
		if l == "----" {
			sep = true
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), sep
}

// block reads result lines up to a blank line.
func (p *parser) block() []string {
	var lines []string
	for {
		l, ok := p.next()
		if !ok || strings.TrimSpace(l) == "" {
			return lines
		}
		lines = append(lines, l)
	}
}

// errorf returns a parse error at the current line.
func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, p.line, fmt.Sprintf(format, args...))
}
