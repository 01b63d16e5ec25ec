package slt

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// selectSQL matches a query that can define a view.
var selectSQL = regexp.MustCompile(`(?is)^\s*(SELECT|WITH|VALUES)\b`)

// createSQL matches DDL that creates the tables a view reads.
var createSQL = regexp.MustCompile(`(?is)^\s*CREATE\b`)

// ViewPrefix starts the name of every view MaterializeQueries creates.
const ViewPrefix = "slt_mv_"

// MaterializeQueries returns the materialized-view form of a file: every
// SELECT query record becomes "CREATE MATERIALIZED VIEW slt_mv_N (c1, ...)
// AS <query>", placed right after the last CREATE statement before the
// query (so after the CREATE TABLEs and before the INSERTs), and the query
// itself becomes "SELECT * FROM slt_mv_N", compared sorted. A view keeps no
// order, so a nosort query is compared rowsorted against oracle, which maps
// "file:line" to PostgreSQL's rowsorted result hash; a nosort query without
// an oracle entry is dropped.
func MaterializeQueries(recs []Record, oracle map[string]string) []Record {
	creates := map[int][]Record{} // insertion index -> views to create there
	lastCreate := -1
	var out []Record
	n := 0
	for i := range recs {
		r := recs[i]
		if r.Kind == Statement && createSQL.MatchString(r.SQL) {
			lastCreate = i
		}
		if r.Kind != Query || !selectSQL.MatchString(r.SQL) {
			out = append(out, r)
			continue
		}
		n++
		view := fmt.Sprintf("%s%d", ViewPrefix, n)
		q, ok := viewQuery(r, view, oracle)
		if !ok {
			continue
		}
		creates[lastCreate+1] = append(creates[lastCreate+1], createView(r, view))
		out = append(out, q)
	}
	return placeCreates(recs, out, creates)
}

// viewQuery returns the query record that reads view instead of running
// r; ok is false when a nosort result has no oracle hash.
func viewQuery(r Record, view string, oracle map[string]string) (Record, bool) {
	q := r
	q.SQL = "SELECT * FROM " + view
	q.View = view
	if r.Sort == NoSort {
		h, ok := oracle[fmt.Sprintf("%s:%d", r.File, r.Line)]
		if !ok {
			return q, false
		}
		q.Sort, q.Expected = RowSort, []string{h}
	}
	return q, true
}

// createView returns the statement that creates view from query r. The
// column list avoids duplicate names such as two "?column?" columns.
func createView(r Record, view string) Record {
	cols := make([]string, len(r.Types))
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i+1)
	}
	sql := strings.TrimRight(strings.TrimSpace(r.SQL), ";")
	return Record{
		Kind:  Statement,
		File:  r.File,
		Line:  r.Line,
		Conds: r.Conds,
		SQL:   fmt.Sprintf("CREATE MATERIALIZED VIEW %s (%s) AS %s", view, strings.Join(cols, ", "), sql),
		View:  view,
	}
}

// placeCreates merges the view definitions into the transformed records:
// creates[k] goes right before the transformed form of recs[k].
func placeCreates(recs, out []Record, creates map[int][]Record) []Record {
	if len(creates) == 0 {
		return out
	}
	var merged []Record
	j := 0
	for k := range recs {
		merged = append(merged, creates[k]...)
		// Copy the transformed records that stem from recs[k]: the same
		// position, unless it was a dropped query.
		for j < len(out) && out[j].File == recs[k].File && out[j].Line == recs[k].Line {
			merged = append(merged, out[j])
			j++
		}
	}
	merged = append(merged, creates[len(recs)]...)
	return append(merged, out[j:]...)
}

// LoadOracle reads a *.oracle.json file: a map from "file:line" of a query
// record to "N values hashing to MD5" of PostgreSQL's rowsorted result.
func LoadOracle(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
