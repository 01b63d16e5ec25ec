package dataflow

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// Parse reads the form Plan.String prints. Blank lines and lines starting
// with "--" are skipped. Column types (after "::") are required for Source
// and Constant and inferred for other operators when omitted. Expressions
// are parsed with expr.ParseExpr over the node's input columns; constant
// rows with repr.ParseLiteral, cast to the declared column types.
func Parse(s string) (*Plan, error) {
	p := &Plan{Output: -1}
	for ln, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		if err := p.parseLine(line); err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", ln+1, line, err)
		}
	}
	if len(p.Nodes) == 0 {
		return nil, fmt.Errorf("plan has no nodes")
	}
	if p.Output < 0 {
		p.Output = len(p.Nodes) - 1
	}
	if _, err := p.Loops(); err != nil {
		return nil, err
	}
	return p, nil
}

// parseLine parses a node line or the output line.
func (p *Plan) parseLine(line string) error {
	if rest, ok := strings.CutPrefix(line, "output "); ok {
		n, err := parseRef(strings.TrimSpace(rest), len(p.Nodes))
		p.Output = n
		return err
	}
	head, rest, ok := strings.Cut(line, " = ")
	if !ok || head != fmt.Sprintf("%%%d", len(p.Nodes)) {
		return fmt.Errorf("want %%%d = <operator> <arguments>", len(p.Nodes))
	}
	var n Node
	rest, typeList := cutTop(rest, " :: ")
	rest, inputList := cutTop(rest, " <- ")
	if inputList != "" {
		for _, ref := range splitTop(inputList, ',') {
			i, err := parseRef(ref, len(p.Nodes))
			if err != nil {
				return err
			}
			n.Inputs = append(n.Inputs, i)
		}
	}
	if typeList != "" {
		ts, err := parseTypes(typeList)
		if err != nil {
			return err
		}
		n.Types = ts
	}
	name, argText, _ := strings.Cut(rest, " ")
	args, err := parseArgs(argText)
	if err != nil {
		return err
	}
	var in [][]repr.T
	for _, i := range n.Inputs {
		in = append(in, p.Nodes[i].Types)
	}
	if n.Op, err = parseOp(name, args, in, n.Types); err != nil {
		return err
	}
	if n.Types == nil {
		if n.Types, err = inferTypes(n.Op, in); err != nil {
			return err
		}
	}
	p.Nodes = append(p.Nodes, n)
	return nil
}

// parseRef parses %i, which must name one of the first n nodes.
func parseRef(s string, n int) (int, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "%"))
	if err != nil || !strings.HasPrefix(strings.TrimSpace(s), "%") || i < 0 || i >= n {
		return 0, fmt.Errorf("bad node reference %q", s)
	}
	return i, nil
}

// parseOp builds the operator name from its arguments; in are the input
// column types and out the declared output types (nil if omitted).
func parseOp(name string, args map[string]string, in [][]repr.T, out []repr.T) (Op, error) {
	need := map[string]int{"Source": 0, "Constant": 0, "Variable": 0, "Join": 2, "Fixpoint": 2}
	want, ok := need[name]
	if !ok {
		want = 1
	}
	multi := name == "Union" || name == "DeltaJoin"
	if !multi && len(in) != want || multi && len(in) == 0 {
		return nil, fmt.Errorf("%s has %d inputs", name, len(in))
	}
	a := argReader{args: args}
	var op Op
	switch name {
	case "Source":
		op = a.source()
	case "Constant":
		op = a.constant(out)
	case "MFP":
		op = a.mfp(in[0])
	case "Reduce":
		op = a.reduce(in[0], out)
	case "Join":
		op = a.join(in[0], in[1])
	case "Union":
		op = Union{}
	case "DeltaJoin":
		op = a.deltaJoin(in)
	case "SessionWindow":
		op = a.session(in[0])
	case "Negate":
		op = Negate{}
	case "Threshold":
		op = Threshold{}
	case "TopK":
		op = a.topk()
	case "TemporalFilter":
		op = TemporalFilter{Lower: a.exprs("lower", in[0]), Upper: a.exprs("upper", in[0])}
	case "Window":
		op = a.window(in[0], out)
	case "Variable":
		op = a.variable()
	case "Fixpoint":
		op = Fixpoint{}
	case "FlatMap":
		op = a.flatMap(in[0])
	default:
		return nil, fmt.Errorf("unknown operator %q", name)
	}
	return op, a.finish()
}

// argReader reads name=value arguments, remembering the first error.
type argReader struct {
	args map[string]string
	used map[string]bool
	err  error
}

func (a *argReader) get(k string) (string, bool) {
	if a.used == nil {
		a.used = map[string]bool{}
	}
	a.used[k] = true
	v, ok := a.args[k]
	return v, ok
}

func (a *argReader) fail(err error) {
	if a.err == nil && err != nil {
		a.err = err
	}
}

// finish reports the first error or an argument nothing read.
func (a *argReader) finish() error {
	for k := range a.args {
		if !a.used[k] {
			a.fail(fmt.Errorf("unknown argument %s", k))
		}
	}
	return a.err
}

func (a *argReader) int(k string, def int64) int64 {
	v, ok := a.get(k)
	if !ok {
		return def
	}
	i, err := strconv.ParseInt(v, 10, 64)
	a.fail(err)
	return i
}

func (a *argReader) name(k string) string {
	v, _ := a.get(k)
	if strings.HasPrefix(v, `"`) {
		s, err := strconv.Unquote(v)
		a.fail(err)
		return s
	}
	return v
}

// list returns the items of a bracketed list argument.
func (a *argReader) list(k string) []string {
	v, ok := a.get(k)
	if !ok {
		return nil
	}
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		a.fail(fmt.Errorf("%s: want [...]", k))
		return nil
	}
	return splitTop(v[1:len(v)-1], ',')
}

func (a *argReader) cols(k string) []int {
	items := a.list(k)
	cols := make([]int, 0, len(items))
	for _, it := range items {
		cols = append(cols, a.col(it))
	}
	return cols
}

// col parses #i.
func (a *argReader) col(s string) int {
	i, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
	if err != nil || !strings.HasPrefix(s, "#") {
		a.fail(fmt.Errorf("bad column %q", s))
	}
	return i
}

// exprs parses a list of expressions over columns of types cols.
func (a *argReader) exprs(k string, cols []repr.T) []expr.Expr {
	var es []expr.Expr
	for _, it := range a.list(k) {
		e, err := expr.ParseExpr(it, cols)
		a.fail(err)
		if err == nil {
			es = append(es, e)
		}
	}
	return es
}

// source parses coll=N [name=x] [watermark=#i [retracts=true]].
func (a *argReader) source() Source {
	s := Source{Collection: repr.CollectionID(a.int("coll", 0)), Name: a.name("name")}
	if v, ok := a.get("watermark"); ok {
		s.HasEventTime, s.EventTimeCol = true, a.col(v)
	}
	if v, ok := a.get("retracts"); ok {
		s.Retracts = v == "true"
		if !s.Retracts || !s.HasEventTime {
			a.fail(fmt.Errorf("retracts=%s: only retracts=true, after watermark=", v))
		}
	}
	return s
}

func (a *argReader) constant(out []repr.T) Constant {
	var c Constant
	for _, it := range a.list("rows") {
		r, err := ParseRow(it, out)
		a.fail(err)
		c.Rows = append(c.Rows, r)
	}
	return c
}

func (a *argReader) mfp(in []repr.T) MFP {
	var m MFP
	cols := append([]repr.T(nil), in...)
	for _, it := range a.list("map") {
		e, err := expr.ParseExpr(it, cols)
		if a.fail(err); err != nil {
			break
		}
		m.Map = append(m.Map, e)
		cols = append(cols, e.Type())
	}
	m.Filter = a.exprs("filter", cols)
	m.Project = a.cols("project")
	if _, ok := a.args["project"]; !ok {
		for i := range cols {
			m.Project = append(m.Project, i)
		}
	}
	return m
}

func (a *argReader) reduce(in []repr.T, out []repr.T) Reduce {
	r := Reduce{Key: a.cols("key")}
	if v, ok := a.get("emit"); ok {
		r.EmitOnClose = v == "close"
		if !r.EmitOnClose {
			a.fail(fmt.Errorf("bad emit %q (want close)", v))
		}
	}
	if v, ok := a.get("append-only"); ok {
		r.AppendOnly = v == "true"
		if !r.AppendOnly {
			a.fail(fmt.Errorf("bad append-only %q", v))
		}
	}
	for i, it := range a.list("aggs") {
		agg, err := expr.ParseAgg(it, in)
		if err == nil && out != nil && len(r.Key)+i < len(out) {
			agg.T = out[len(r.Key)+i]
		}
		a.fail(err)
		r.Aggs = append(r.Aggs, agg)
	}
	if v, ok := a.get("shared"); ok {
		r.Shared = a.sharedGroups(v, r)
	}
	return r
}

// sharedGroups parses a Reduce's shared=<index> lookup=[...]: the lookup
// columns must be its key columns, in any order.
func (a *argReader) sharedGroups(v string, r Reduce) *SharedGroups {
	n, err := strconv.ParseUint(v, 10, 64)
	sh := &SharedGroups{Index: n, Cols: a.cols("lookup")}
	sorted, key := slices.Sorted(slices.Values(sh.Cols)), slices.Sorted(slices.Values(r.Key))
	if err != nil || n == 0 || len(r.Key) == 0 || r.EmitOnClose || r.AppendOnly || !slices.Equal(sorted, key) {
		a.fail(fmt.Errorf("bad shared %q (a grouped Reduce reads shared=<index> lookup=[its key columns])", v))
	}
	return sh
}

var onRE = regexp.MustCompile(`^#(\d+)=#(\d+)$`)

func (a *argReader) join(left, right []repr.T) Join {
	var j Join
	kinds := map[string]JoinKind{"inner": InnerJoin, "left": LeftJoin, "right": RightJoin, "full": FullJoin}
	kind, ok := a.get("kind")
	if j.Kind = kinds[kind]; ok && kinds[kind] == 0 && kind != "inner" {
		a.fail(fmt.Errorf("bad join kind %q", kind))
	}
	for _, it := range a.list("on") {
		m := onRE.FindStringSubmatch(it)
		if m == nil {
			a.fail(fmt.Errorf("bad join condition %q", it))
			continue
		}
		l, _ := strconv.Atoi(m[1])
		r, _ := strconv.Atoi(m[2])
		j.LeftKey, j.RightKey = append(j.LeftKey, l), append(j.RightKey, r)
	}
	j.Residual = a.exprs("residual", append(append([]repr.T(nil), left...), right...))
	if r, ok := a.get("append-only"); ok {
		j.AppendOnly = r == "true"
		if !j.AppendOnly || j.Kind != InnerJoin {
			a.fail(fmt.Errorf("bad append-only %q (only an inner join can be)", r))
		}
	}
	if sh, ok := a.get("shared"); ok {
		j.Shared = parseShared(sh)
		if j.Shared == nil || j.Kind != InnerJoin || j.AppendOnly {
			a.fail(fmt.Errorf("bad shared %q (an inner join that is not append-only reads left:<index> or right:<index>)", sh))
		}
	}
	return j
}

// parseShared parses left:<index> or right:<index> (nil if malformed).
func parseShared(s string) *SharedArrangement {
	side, id, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(id, 10, 64)
	if !ok || err != nil || n == 0 || side != "left" && side != "right" {
		return nil
	}
	sh := &SharedArrangement{Index: n}
	if side == "right" {
		sh.Side = 1
	}
	return sh
}

func (a *argReader) topk() TopK {
	t := TopK{Key: a.cols("key"), Limit: a.int("limit", -1), Offset: a.int("offset", 0)}
	if r, ok := a.get("rank"); ok {
		t.Rank = r == "true"
		if !t.Rank {
			a.fail(fmt.Errorf("bad rank %q", r))
		}
	}
	if r, ok := a.get("append-only"); ok {
		t.AppendOnly = r == "true"
		if !t.AppendOnly {
			a.fail(fmt.Errorf("bad append-only %q", r))
		}
	}
	for _, it := range a.list("order") {
		c, err := expr.ParseSortCol(it)
		a.fail(err)
		t.Order = append(t.Order, c)
	}
	return t
}

// session parses key=[#k...] time=#t gap=<duration>.
func (a *argReader) session(in []repr.T) SessionWindow {
	sw := SessionWindow{Key: a.cols("key")}
	v, _ := a.get("time")
	sw.TimeCol = a.col(v)
	g, _ := a.get("gap")
	d, err := time.ParseDuration(g)
	a.fail(err)
	sw.Gap = d.Microseconds()
	switch {
	case sw.Gap <= 0 || d%time.Microsecond != 0:
		a.fail(fmt.Errorf("bad gap %q: want a positive number of microseconds", g))
	case sw.TimeCol < 0 || sw.TimeCol >= len(in):
		a.fail(fmt.Errorf("time column #%d out of range", sw.TimeCol))
	}
	return sw
}

// ParseRow parses a tuple of literals, (1, 'a', NULL), casting each value
// to the corresponding type of ts (when ts is not nil).
func ParseRow(s string, ts []repr.T) (repr.Row, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, fmt.Errorf("row %q: want (v, ...)", s)
	}
	items := splitTop(s[1:len(s)-1], ',')
	if ts != nil && len(items) != len(ts) {
		return nil, fmt.Errorf("row %s has %d values, want %d", s, len(items), len(ts))
	}
	r := make(repr.Row, len(items))
	for i, it := range items {
		d, t, err := repr.ParseLiteral(it)
		if err != nil {
			return nil, err
		}
		if ts != nil && !d.IsNull() && t != ts[i] {
			if d, err = repr.Cast(d, t, ts[i], time.UTC, true); err != nil {
				return nil, err
			}
		}
		r[i] = d
	}
	return r, nil
}

// parseTypes parses a comma-separated list of type names.
func parseTypes(s string) ([]repr.T, error) {
	var ts []repr.T
	for _, it := range splitTop(s, ',') {
		it = strings.TrimSpace(it)
		elem, isArray := strings.CutSuffix(it, "[]")
		name, modText, hasMods := strings.Cut(elem, "(")
		var mods []int32
		if hasMods {
			for _, m := range strings.Split(strings.TrimSuffix(modText, ")"), ",") {
				v, err := strconv.Atoi(strings.TrimSpace(m))
				if err != nil {
					return nil, fmt.Errorf("bad type %q", it)
				}
				mods = append(mods, int32(v))
			}
		}
		t, err := expr.ParseTypeName(strings.TrimSpace(name), mods)
		if err != nil {
			return nil, err
		}
		if isArray {
			t = repr.ArrayOf(t)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// parseArgs splits "k=v k=[a, b] ..." into a map.
func parseArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		k, rest, ok := strings.Cut(s, "=")
		if !ok || strings.ContainsAny(k, " []") {
			return nil, fmt.Errorf("want name=value at %q", s)
		}
		end := valueEnd(rest)
		args[k], s = rest[:end], rest[end:]
	}
	return args, nil
}

// valueEnd returns the length of the argument value at the start of s:
// a bracketed list, a quoted name or a word.
func valueEnd(s string) int {
	if i := indexTop(s, " "); i >= 0 {
		return i
	}
	return len(s)
}

// cutTop splits s at the first top-level occurrence of sep.
func cutTop(s, sep string) (before, after string) {
	if i := indexTop(s, sep); i >= 0 {
		return s[:i], strings.TrimSpace(s[i+len(sep):])
	}
	return s, ""
}

// indexTop returns the index of the first occurrence of sep in s outside
// quotes ('...' with ” escapes, "...") and brackets, or -1.
func indexTop(s, sep string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(s, i)
			continue
		case c == '(' || c == '[':
			depth++
			continue
		case c == ')' || c == ']':
			depth--
			continue
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			return i
		}
	}
	return -1
}

// skipQuoted returns the index of the quote closing the one at s[i].
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q == '"':
			j++
		case s[j] == q && q == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++
		case s[j] == q:
			return j
		}
	}
	return len(s)
}

// splitTop splits s at top-level occurrences of sep, trimming each item;
// an empty s has no items.
func splitTop(s string, sep byte) []string {
	var items []string
	for strings.TrimSpace(s) != "" {
		i := indexTop(s, string(sep))
		if i < 0 {
			items = append(items, strings.TrimSpace(s))
			break
		}
		items = append(items, strings.TrimSpace(s[:i]))
		s = s[i+1:]
	}
	return items
}
