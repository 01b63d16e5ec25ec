package slt

import (
	"crypto/md5"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// FormatValue renders one result value as sqllogictest prints it for a
// column of type typ (I, R or T). null reports an SQL NULL.
func FormatValue(typ byte, text string, null bool) string {
	if null {
		return "NULL"
	}
	switch typ {
	case 'I':
		return formatInt(text)
	case 'R':
		return formatReal(text)
	}
	if text == "" {
		return "(empty)"
	}
	return printable(text)
}

// formatInt prints an integer column: integers as they are, other numbers
// truncated toward zero (SQLite's integer conversion), booleans as 1/0.
func formatInt(text string) string {
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		return text
	}
	switch text {
	case "t", "true":
		return "1"
	case "f", "false":
		return "0"
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return strconv.FormatInt(int64(f), 10)
	}
	return printable(text)
}

// formatReal prints a real column with three decimals.
func formatReal(text string) string {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return printable(text)
	}
	s := fmt.Sprintf("%.3f", f)
	if s == "-0.000" {
		s = "0.000"
	}
	return s
}

// printable replaces control characters by '@', as the reference runner
// does, so that every value stays on one line.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < ' ' }) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' {
			return '@'
		}
		return r
	}, s)
}

// SortRows orders rows as the sort mode says. Rowsort compares rows value
// by value as strings; valuesort sorts all values and regroups them.
func SortRows(rows [][]string, mode SortMode) [][]string {
	switch mode {
	case RowSort:
		sort.SliceStable(rows, func(i, j int) bool { return lessRow(rows[i], rows[j]) })
	case ValueSort:
		vals := flatten(rows)
		sort.Strings(vals)
		if len(rows) > 0 {
			rows = regroup(vals, len(rows[0]))
		}
	}
	return rows
}

// lessRow compares two rows as sequences of strings.
func lessRow(a, b []string) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// flatten returns all values of rows in order.
func flatten(rows [][]string) []string {
	var vals []string
	for _, r := range rows {
		vals = append(vals, r...)
	}
	return vals
}

// regroup splits vals into rows of width values.
func regroup(vals []string, width int) [][]string {
	if width == 0 {
		return nil
	}
	var rows [][]string
	for i := 0; i+width <= len(vals); i += width {
		rows = append(rows, vals[i:i+width])
	}
	return rows
}

// HashValues returns "N values hashing to MD5" for vals: the md5 of every
// value followed by a newline.
func HashValues(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte("\n"))
	}
	return fmt.Sprintf("%d values hashing to %x", len(vals), h.Sum(nil))
}

// hashLine matches an expected block in hashed form.
var hashLine = regexp.MustCompile(`^\d+ values hashing to [0-9a-f]{32}$`)

// IsHash reports whether an expected block is in hashed form.
func IsHash(expected []string) bool {
	return len(expected) == 1 && hashLine.MatchString(expected[0])
}

// Matches reports whether the sorted actual rows match an expected block,
// which may list one value per line, one row per line, or a hash.
func Matches(expected []string, rows [][]string) bool {
	vals := flatten(rows)
	if IsHash(expected) {
		return expected[0] == HashValues(vals)
	}
	return equalLines(expected, vals) || equalLines(expected, RowLines(rows))
}

// RowLines renders rows one per line, values separated by spaces.
func RowLines(rows [][]string) []string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, " ")
	}
	return lines
}

// equalLines compares two line lists, ignoring trailing spaces.
func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.TrimRight(a[i], " ") != strings.TrimRight(b[i], " ") {
			return false
		}
	}
	return true
}

// ExpectedBlock renders sorted rows the way a rewritten file states them:
// a hash when there are more than threshold values (threshold > 0), else
// one row per line.
func ExpectedBlock(rows [][]string, threshold int) []string {
	vals := flatten(rows)
	if threshold > 0 && len(vals) > threshold {
		return []string{HashValues(vals)}
	}
	return RowLines(rows)
}
