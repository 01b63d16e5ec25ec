package slt

import (
	"strings"
	"testing"
)

// TestFormatValue checks the corpus' value formatting rules.
func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		typ  byte
		text string
		null bool
		want string
	}{
		{'I', "", true, "NULL"},
		{'I', "42", false, "42"},
		{'I', "-7.9", false, "-7"},
		{'I', "t", false, "1"},
		{'R', "2.5", false, "2.500"},
		{'R', "-0.0001", false, "0.000"},
		{'T', "", false, "(empty)"},
		{'T', "a\tb", false, "a@b"},
		{'T', "héllo", false, "héllo"},
	} {
		if got := FormatValue(tc.typ, tc.text, tc.null); got != tc.want {
			t.Errorf("FormatValue(%c, %q, %v) = %q, want %q", tc.typ, tc.text, tc.null, got, tc.want)
		}
	}
}

// TestMatches checks the three forms of an expected block.
func TestMatches(t *testing.T) {
	rows := [][]string{{"1", "a b"}, {"2", "NULL"}}
	for _, tc := range []struct {
		expected []string
		want     bool
	}{
		{[]string{"1", "a b", "2", "NULL"}, true},
		{[]string{"1 a b", "2 NULL"}, true},
		{[]string{HashValues([]string{"1", "a b", "2", "NULL"})}, true},
		{[]string{"1 a b"}, false},
		{[]string{"4 values hashing to 00000000000000000000000000000000"}, false},
	} {
		if got := Matches(tc.expected, rows); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.expected, got, tc.want)
		}
	}
	if got := HashValues(nil); got != "0 values hashing to d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("hash of nothing: %s", got)
	}
}

// TestMaterializeQueries checks where view definitions go and how the
// queries change.
func TestMaterializeQueries(t *testing.T) {
	src := `statement ok
CREATE TABLE t(a INTEGER)

statement ok
INSERT INTO t VALUES(1)

query I nosort
SELECT a FROM t ORDER BY 1
----
1

query I rowsort
SELECT a+1 FROM t
----
2
`
	recs, err := Parse("f.test", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	out := MaterializeQueries(recs, map[string]string{"f.test:7": "1 values hashing to x"})
	var got []string
	for _, r := range out {
		if r.Kind == Statement || r.Kind == Query {
			got = append(got, r.SQL+" "+strings.Join(r.Expected, ","))
		}
	}
	want := []string{
		"CREATE TABLE t(a INTEGER) ",
		"CREATE MATERIALIZED VIEW slt_mv_1 (c1) AS SELECT a FROM t ORDER BY 1 ",
		"CREATE MATERIALIZED VIEW slt_mv_2 (c1) AS SELECT a+1 FROM t ",
		"INSERT INTO t VALUES(1) ",
		"SELECT * FROM slt_mv_1 1 values hashing to x",
		"SELECT * FROM slt_mv_2 2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRewriteRoundTrip checks that rewriting with no results keeps a file.
func TestRewriteRoundTrip(t *testing.T) {
	src := "# comment\nstatement error 42P01\nSELECT 1\n\nskipif eddy\nquery IT rowsort lbl\nSELECT 1, 'x'\n----\n1 x\n\nhalt\n\n"
	recs, err := Parse("f", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := Rewrite(recs, nil); got != src {
		t.Errorf("round trip:\n%q\nwant\n%q", got, src)
	}
}
