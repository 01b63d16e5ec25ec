package storage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// The tests write rows as comma-separated literals: 1, -2.5, 'text', true,
// NULL. Text literals may not contain commas.

func parseRow(s string) (repr.Row, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return repr.Row{}, nil
	}
	var row repr.Row
	for _, f := range strings.Split(s, ",") {
		d, err := parseDatum(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		row = append(row, d)
	}
	return row, nil
}

func parseDatum(f string) (repr.Datum, error) {
	switch {
	case f == "NULL":
		return repr.Null, nil
	case f == "true" || f == "false":
		return repr.NewBool(f == "true"), nil
	case len(f) >= 2 && f[0] == '\'' && f[len(f)-1] == '\'':
		return repr.NewText(f[1 : len(f)-1]), nil
	case strings.HasSuffix(f, "n"): // numeric: 1.00n
		v, _, err := apd.NewFromString(strings.TrimSuffix(f, "n"))
		if err != nil {
			return repr.Null, err
		}
		return repr.NewNumeric(v), nil
	case strings.Contains(f, "."):
		v, err := strconv.ParseFloat(f, 64)
		return repr.NewFloat(v), err
	}
	v, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		return repr.Null, fmt.Errorf("bad literal %q", f)
	}
	return repr.NewInt(v), nil
}

func formatRow(r repr.Row) string {
	parts := make([]string, len(r))
	for i, d := range r {
		parts[i] = formatDatum(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func formatDatum(d repr.Datum) string {
	switch d.Family() {
	case repr.FamUnknown:
		return "NULL"
	case repr.FamBool:
		return strconv.FormatBool(d.Bool())
	case repr.FamInt:
		return strconv.FormatInt(d.Int(), 10)
	case repr.FamFloat:
		return strconv.FormatFloat(d.Float(), 'g', -1, 64)
	case repr.FamText:
		return "'" + d.Text() + "'"
	case repr.FamNumeric:
		return d.Numeric().String()
	}
	return fmt.Sprintf("<family %d>", d.Family())
}
