package slt

import (
	"fmt"
	"strings"
)

// Rewrite renders recs as a file again, replacing every record's
// expectation by what the engine did (results must come from Run over the
// same recs). Records that were skipped keep their text. A query that
// failed becomes "statement error <SQLSTATE>"; a statement's "ok" or
// "error" follows the engine, keeping a matching error pattern.
func Rewrite(recs []Record, results []Result) string {
	byRec := map[*Record]*Result{}
	for i := range results {
		byRec[results[i].Record] = &results[i]
	}
	var sb strings.Builder
	threshold := 0
	for i := range recs {
		r := &recs[i]
		if r.Kind == HashThreshold {
			threshold = r.Threshold
		}
		if r.Kind == Verbatim {
			for _, l := range r.Text {
				sb.WriteString(l + "\n")
			}
			continue
		}
		writeRecord(&sb, rewritten(r, byRec[r], threshold))
	}
	return sb.String()
}

// rewritten returns r updated with the engine's result res (nil when the
// record was not run).
func rewritten(r *Record, res *Result, threshold int) Record {
	out := *r
	if res == nil || res.Outcome == Skip {
		return out
	}
	if res.ActualErr != nil {
		if r.Kind == Statement && r.ExpectError && errorMatches(r.ErrorPattern, res.ActualErr) && r.ErrorPattern != "" {
			return out
		}
		out.Kind, out.ExpectError, out.ErrorPattern = Statement, true, res.ActualErr.Code
		return out
	}
	switch r.Kind {
	case Statement:
		out.ExpectError, out.ErrorPattern = false, ""
	case Query:
		if res.Actual != nil || res.Outcome == Pass {
			out.Expected = ExpectedBlock(res.Actual, threshold)
		}
	}
	return out
}

// writeRecord prints one record followed by a blank line.
func writeRecord(sb *strings.Builder, r Record) {
	for _, c := range r.Conds {
		kw := "skipif"
		if c.Only {
			kw = "onlyif"
		}
		fmt.Fprintf(sb, "%s %s\n", kw, c.Engine)
	}
	switch r.Kind {
	case HashThreshold:
		fmt.Fprintf(sb, "hash-threshold %d\n", r.Threshold)
		return
	case Halt:
		sb.WriteString("halt\n")
		return
	case Statement:
		writeStatement(sb, r)
	case Query:
		writeQuery(sb, r)
	}
	sb.WriteString("\n")
}

// writeStatement prints a statement record.
func writeStatement(sb *strings.Builder, r Record) {
	if r.ExpectError {
		sb.WriteString(strings.TrimSpace("statement error "+r.ErrorPattern) + "\n")
	} else {
		sb.WriteString("statement ok\n")
	}
	sb.WriteString(r.SQL + "\n")
}

// writeQuery prints a query record with its expected block.
func writeQuery(sb *strings.Builder, r Record) {
	head := fmt.Sprintf("query %s %s %s", r.Types, r.Sort, r.Label)
	sb.WriteString(strings.TrimSpace(head) + "\n")
	sb.WriteString(r.SQL + "\n----\n")
	for _, l := range r.Expected {
		sb.WriteString(l + "\n")
	}
}
