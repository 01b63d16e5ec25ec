package pgregress

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Category classifies one statement's pair of outcomes, worst first.
type Category int

// The categories; see the package comment.
const (
	Crash Category = iota
	Different
	EddyOK
	EddyError
	ErrorClass
	Unsupported
	FollowOn
	Unchecked
	Equal
	numCategories
)

// categoryNames are the report's column headings.
var categoryNames = [numCategories]string{"crash", "different", "eddy-ok", "eddy-error", "error-class", "unsupported", "follow-on", "unchecked", "equal"}

// String names the category.
func (c Category) String() string { return categoryNames[c] }

// Outcome is what one engine answered to one statement.
type Outcome struct {
	Fatal string // the connection broke, the server died or did not answer
	Code  string // the SQLSTATE of an error response ("" on success)
	Msg   string // the error message
	Tag   string // the command tag on success
	Cols  []string
	Types []uint32
	Rows  [][]string // NULL is nullText
}

// nullText stands for NULL in Outcome.Rows; no text value contains it.
const nullText = "\x00NULL"

// ok reports whether the statement succeeded.
func (o *Outcome) ok() bool { return o.Fatal == "" && o.Code == "" }

// String summarizes an outcome for the report (the first 20 rows).
func (o *Outcome) String() string {
	switch {
	case o.Fatal != "":
		return "FATAL " + o.Fatal
	case o.Code != "":
		return fmt.Sprintf("ERROR %s: %s", o.Code, o.Msg)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v", o.Tag, o.Cols)
	for i, r := range o.Rows {
		if i == 20 {
			fmt.Fprintf(&b, "\n    ... %d rows in all", len(o.Rows))
			break
		}
		b.WriteString("\n    " + strings.ReplaceAll(strings.Join(r, " | "), nullText, "NULL"))
	}
	return b.String()
}

// Classify compares Eddy's outcome e with PostgreSQL's p for statement sql
// and says what is wrong, if anything, in detail.
func Classify(sql string, p, e *Outcome) (Category, string) {
	switch {
	case e.Fatal != "":
		return Crash, e.Fatal
	case e.Code == "XX000":
		return Crash, "internal error: " + e.Msg
	case e.Code == "57014" && p.ok():
		return Crash, "timeout: " + e.Msg
	case e.Code == "0A000":
		return Unsupported, e.Msg
	case !p.ok() && !e.ok():
		if p.Fatal == "" && p.Code[:2] == e.Code[:2] {
			return Equal, ""
		}
		return ErrorClass, ""
	case !p.ok():
		return EddyOK, ""
	case !e.ok():
		return EddyError, ""
	}
	if strings.HasPrefix(p.Tag, "EXPLAIN") {
		return Unchecked, "EXPLAIN output"
	}
	return compareRows(sql, p, e)
}

// compareRows compares two successful outcomes: command tags of DML, the
// column count, then the rows as multisets and, under a top-level ORDER BY
// whose keys are output columns, the sequence of sort keys.
func compareRows(sql string, p, e *Outcome) (Category, string) {
	if isDML(p.Tag) && p.Tag != e.Tag {
		return Different, fmt.Sprintf("command tag %q, want %q", e.Tag, p.Tag)
	}
	if len(p.Cols) != len(e.Cols) {
		return Different, fmt.Sprintf("%d columns, want %d", len(e.Cols), len(p.Cols))
	}
	pr, er := canonical(p), canonical(e)
	ord := orderOf(sql, p.Cols)
	if ord.limited && !ord.sorted {
		if len(pr) != len(er) {
			return Different, fmt.Sprintf("%d rows, want %d", len(er), len(pr))
		}
		return Unchecked, "LIMIT without ORDER BY"
	}
	if ord.limited && ord.keys != nil {
		return compareLimited(pr, er, ord.keys)
	}
	if !sameMultiset(pr, er) {
		return Different, fmt.Sprintf("rows differ (%d rows, want %d)", len(er), len(pr))
	}
	if ord.sorted && ord.keys == nil && !slices.Equal(keySeq(pr, allCols(pr)), keySeq(er, allCols(er))) {
		return Unchecked, "order differs under an ORDER BY on expressions"
	}
	if ord.keys != nil && !slices.Equal(keySeq(pr, ord.keys), keySeq(er, ord.keys)) {
		return Different, "rows in a different order"
	}
	return Equal, ""
}

// isDML reports whether tag reports a row count that must match.
func isDML(tag string) bool {
	for _, p := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "COPY"} {
		if strings.HasPrefix(tag, p) {
			return true
		}
	}
	return false
}

// canonical returns o's rows with float values rounded to 12 significant
// digits: PostgreSQL and Eddy may add floats in different orders.
func canonical(o *Outcome) [][]string {
	rows := make([][]string, len(o.Rows))
	for i, r := range o.Rows {
		rows[i] = slices.Clone(r)
		for j, v := range r {
			if j < len(o.Types) && (o.Types[j] == 700 || o.Types[j] == 701) {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					rows[i][j] = strconv.FormatFloat(f, 'g', 12, 64)
				}
			}
		}
	}
	return rows
}

// sameMultiset reports whether a and b hold the same rows, counting
// duplicates.
func sameMultiset(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	return slices.Equal(sortedRows(a), sortedRows(b))
}

// sortedRows encodes each row as one string and sorts them.
func sortedRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "\x1f")
	}
	slices.Sort(out)
	return out
}

// keySeq returns each row's sort key, encoded.
func keySeq(rows [][]string, keys []int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		k := make([]string, len(keys))
		for j, c := range keys {
			k[j] = r[c]
		}
		out[i] = strings.Join(k, "\x1f")
	}
	return out
}

// compareLimited compares the results of an ORDER BY ... LIMIT whose sort
// keys are known: the key sequences must be equal, and so must the rows
// of every run of equal keys but the last, which LIMIT may cut among ties.
func compareLimited(p, e [][]string, keys []int) (Category, string) {
	pk, ek := keySeq(p, keys), keySeq(e, keys)
	if !slices.Equal(pk, ek) {
		return Different, fmt.Sprintf("sort keys differ (%d rows, want %d)", len(e), len(p))
	}
	last := len(pk)
	for last > 0 && pk[last-1] == pk[len(pk)-1] {
		last--
	}
	for lo := 0; lo < last; {
		hi := lo
		for hi < last && pk[hi] == pk[lo] {
			hi++
		}
		if !sameMultiset(p[lo:hi], e[lo:hi]) {
			return Different, fmt.Sprintf("rows differ at row %d", lo+1)
		}
		lo = hi
	}
	return Equal, ""
}

// order describes a statement's top-level ORDER BY and LIMIT.
type order struct {
	sorted  bool  // a top-level ORDER BY
	limited bool  // a top-level LIMIT, OFFSET or FETCH
	keys    []int // the output columns of the sort keys; nil if not all are columns
}

// orderOf parses sql and resolves its top-level sort keys against the
// output column names cols.
func orderOf(sql string, cols []string) order {
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return order{}
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil {
		return order{}
	}
	o := order{sorted: len(sel.SortClause) > 0, limited: sel.LimitCount != nil || sel.LimitOffset != nil}
	for _, n := range sel.SortClause {
		c := sortColumn(n.GetSortBy().GetNode(), cols)
		if c < 0 {
			o.keys = nil
			return o
		}
		o.keys = append(o.keys, c)
	}
	return o
}

// sortColumn returns the output column a sort key names (by position or
// by a column name that appears once in cols), or -1.
func sortColumn(n *pg_query.Node, cols []string) int {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		if i := int(c.GetIval().Ival) - 1; i >= 0 && i < len(cols) {
			return i
		}
		return -1
	}
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) == 0 {
		return -1
	}
	name := ref.Fields[len(ref.Fields)-1].GetString_().GetSval()
	at := -1
	for i, c := range cols {
		if c == name {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// allCols returns the indexes of every column of rows.
func allCols(rows [][]string) []int {
	if len(rows) == 0 {
		return nil
	}
	cols := make([]int, len(rows[0]))
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// createdName returns the unqualified, lower-case name of the table, view,
// type or function a CREATE statement (or SELECT INTO) makes, or "".
func createdName(sql string) string {
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return ""
	}
	n := tree.Stmts[0].Stmt
	var name string
	switch {
	case n.GetCreateStmt() != nil:
		name = n.GetCreateStmt().GetRelation().GetRelname()
	case n.GetCreateTableAsStmt() != nil:
		name = n.GetCreateTableAsStmt().GetInto().GetRel().GetRelname()
	case n.GetViewStmt() != nil:
		name = n.GetViewStmt().GetView().GetRelname()
	case n.GetSelectStmt() != nil:
		name = n.GetSelectStmt().GetIntoClause().GetRel().GetRelname()
	case n.GetCreateFunctionStmt() != nil:
		name = lastName(n.GetCreateFunctionStmt().GetFuncname())
	case n.GetCompositeTypeStmt() != nil:
		name = n.GetCompositeTypeStmt().GetTypevar().GetRelname()
	case n.GetCreateEnumStmt() != nil:
		name = lastName(n.GetCreateEnumStmt().GetTypeName())
	case n.GetCreateRangeStmt() != nil:
		name = lastName(n.GetCreateRangeStmt().GetTypeName())
	case n.GetCreateDomainStmt() != nil:
		name = lastName(n.GetCreateDomainStmt().GetDomainname())
	case n.GetDefineStmt() != nil:
		name = lastName(n.GetDefineStmt().GetDefnames())
	}
	return strings.ToLower(name)
}

// lastName returns the last element of a qualified name list.
func lastName(names []*pg_query.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

// setName returns the lower-case name of the setting a SET or RESET
// statement changes, or "".
func setName(sql string) string {
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return ""
	}
	return strings.ToLower(tree.Stmts[0].Stmt.GetVariableSetStmt().GetName())
}
