package queries

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/eddydb/eddy/server/connector/nexmark"
)

// SQL is a verbatim copy of /work/shared/nexmark/queries.sql (the
// benchmark runs the queries unchanged; only the sources get the options
// that bound the stream).
//
//go:embed queries.sql
var SQL string

// Query is one Nexmark query: its materialized view and the statements
// that must run before it (plain views it reads, such as q12's bid_p).
type Query struct {
	Name string
	// Setup are CREATE VIEW statements the view reads.
	Setup []string
	// View is the CREATE MATERIALIZED VIEW statement, unchanged.
	View string
	// Sources are the Nexmark sources the query reads.
	Sources []string
}

// Suite is queries.sql parsed: the three CREATE SOURCE statements and the
// queries in file order.
type Suite struct {
	Sources map[string]string // source name -> CREATE SOURCE statement
	Queries []Query
}

var (
	reSource = regexp.MustCompile(`(?is)^CREATE\s+SOURCE\s+(\w+)`)
	reView   = regexp.MustCompile(`(?is)^CREATE\s+VIEW\s+(\w+)`)
	reMV     = regexp.MustCompile(`(?is)^CREATE\s+MATERIALIZED\s+VIEW\s+(\w+)`)
	reFrom   = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+(?:(?:TUMBLE|HOP|CUMULATE)\s*\(\s*)?(\w+)`)
	reWith   = regexp.MustCompile(`(?i)(nexmark\.table\.type\s*=\s*'\w+')`)
)

// ParseSuite splits a queries.sql text into statements (each ends with ';'
// at the end of a line; "--" lines are comments) and classifies them.
func ParseSuite(text string) (*Suite, error) {
	s := &Suite{Sources: map[string]string{}}
	views := map[string]string{} // plain view name -> statement
	for _, stmt := range splitStatements(text) {
		switch {
		case reSource.MatchString(stmt):
			s.Sources[strings.ToLower(reSource.FindStringSubmatch(stmt)[1])] = stmt
		case reView.MatchString(stmt):
			views[strings.ToLower(reView.FindStringSubmatch(stmt)[1])] = stmt
		case reMV.MatchString(stmt):
			q := Query{Name: strings.ToLower(reMV.FindStringSubmatch(stmt)[1]), View: stmt}
			q.Setup, q.Sources = resolveInputs(stmt, views, s.Sources)
			s.Queries = append(s.Queries, q)
		default:
			return nil, fmt.Errorf("queries.sql: unexpected statement %.40q", stmt)
		}
	}
	if len(s.Sources) != 3 {
		return nil, fmt.Errorf("queries.sql: want the sources person, auction, bid; have %d", len(s.Sources))
	}
	return s, nil
}

// resolveInputs returns the plain views a statement reads (to create
// first) and the sources it reads, directly or through those views.
func resolveInputs(stmt string, views, sources map[string]string) (setup, srcs []string) {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(sql string) {
		for _, m := range reFrom.FindAllStringSubmatch(sql, -1) {
			name := strings.ToLower(m[1])
			if seen[name] {
				continue
			}
			seen[name] = true
			if v, ok := views[name]; ok {
				walk(v)
				setup = append(setup, v)
			} else if _, ok := sources[name]; ok {
				srcs = append(srcs, name)
			}
		}
	}
	walk(stmt)
	return setup, srcs
}

// splitStatements drops comment lines and splits at ';' ending a line.
func splitStatements(text string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(t, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	return out
}

// BoundedSource returns a CREATE SOURCE statement with the options that
// bound and shape the stream appended after nexmark.table.type: the event
// count, the event-time rate, and optionally a different name (so a test
// can create connector-fed tables with the same columns).
func BoundedSource(stmt string, events, rate int64) string {
	opts := fmt.Sprintf("${1}, nexmark.event.num = '%d'", events)
	if rate > 0 {
		opts += fmt.Sprintf(", nexmark.event.rate = '%d'", rate)
	}
	return reWith.ReplaceAllString(stmt, opts)
}

// Select returns the queries named in names (comma-separated; empty: all),
// in file order; an unknown name is an error.
func (s *Suite) Select(names string) ([]Query, error) {
	if strings.TrimSpace(names) == "" {
		return s.Queries, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		want[strings.ToLower(strings.TrimSpace(n))] = true
	}
	var out []Query
	for _, q := range s.Queries {
		if want[q.Name] {
			out = append(out, q)
			delete(want, q.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("no query %q in queries.sql", n)
	}
	return out, nil
}

var (
	reAsSelect = regexp.MustCompile(`(?is)^CREATE\s+MATERIALIZED\s+VIEW\s+\w+\s+AS\s+`)
	reEmit     = regexp.MustCompile(`(?is)\s+EMIT\s+ON\s+WINDOW\s+CLOSE\s*$`)
	reInput    = regexp.MustCompile(`(?i)\b((?:FROM|JOIN)\s+(?:(?:TUMBLE|HOP|CUMULATE)\s*\(\s*)?)(bid|person|auction|bid_p)\b`)
)

// AdHoc returns the SELECT of a materialized view statement with every
// source (and q12's bid_p) it reads renamed with suffix (bid -> bid_t), and
// EMIT ON WINDOW CLOSE dropped: the same query, run once over tables that
// hold the same events.
func AdHoc(stmt, suffix string) string {
	sel := reEmit.ReplaceAllString(reAsSelect.ReplaceAllString(stmt, ""), "")
	return reInput.ReplaceAllString(sel, "${1}${2}"+suffix)
}

// Renamed returns a CREATE VIEW statement (q12's bid_p) with its name and
// the sources it reads renamed with suffix.
func Renamed(stmt, suffix string) string {
	stmt = reView.ReplaceAllString(stmt, "CREATE VIEW ${1}"+suffix)
	return reInput.ReplaceAllString(stmt, "${1}${2}"+suffix)
}

var reWatermark = regexp.MustCompile(`(?is),\s*WATERMARK\s+FOR\s+.*?SECOND\s*\)`)

// TableOf returns the CREATE TABLE ... WITH (connector = 'nexmark', ...)
// statement storing the same events as a CREATE SOURCE: same columns and
// options, the name suffixed, no watermark (a table is read as a batch).
func TableOf(sourceStmt, suffix string, events, rate int64) string {
	stmt := BoundedSource(sourceStmt, events, rate)
	stmt = reSource.ReplaceAllString(stmt, "CREATE TABLE ${1}"+suffix)
	return reWatermark.ReplaceAllString(stmt, "\n)")
}

// TableType returns the Nexmark event type a source of the suite keeps.
func TableType(source string) nexmark.TableType {
	switch strings.ToLower(source) {
	case "person":
		return nexmark.Person
	case "auction":
		return nexmark.Auction
	}
	return nexmark.Bid
}

// CountOf returns how many of the events numbered below n have type t: the
// rows a source of type t holds once it has read up to position n.
func CountOf(t nexmark.TableType, n int64) int64 {
	const block = 50 // the generator's proportion total
	perBlock := int64(0)
	for i := range int64(block) {
		if nexmark.TypeOf(i) == t {
			perBlock++
		}
	}
	c := n / block * perBlock
	for i := n / block * block; i < n; i++ {
		if nexmark.TypeOf(i) == t {
			c++
		}
	}
	return c
}
