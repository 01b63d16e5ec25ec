package storage

import (
	"fmt"
	"github.com/cockroachdb/apd/v3"
	"strconv"
	"strings"

	"github.com/eddydb/eddy/sql/types"
)

// The tests write rows as comma-separated literals: 1, -2.5, 'text', true,
// NULL. Text literals may not contain commas.

func parseRow(s string) (types.Row, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return types.Row{}, nil
	}
	var row types.Row
	for _, f := range strings.Split(s, ",") {
		d, err := parseDatum(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		row = append(row, d)
	}
	return row, nil
}

func parseDatum(f string) (types.Datum, error) {
	switch {
	case f == "NULL":
		return types.Null, nil
	case f == "true" || f == "false":
		return types.NewBool(f == "true"), nil
	case len(f) >= 2 && f[0] == '\'' && f[len(f)-1] == '\'':
		return types.NewText(f[1 : len(f)-1]), nil
	case strings.HasSuffix(f, "n"): // numeric: 1.00n
		v, _, err := apd.NewFromString(strings.TrimSuffix(f, "n"))
		if err != nil {
			return types.Null, err
		}
		return types.NewNumeric(v), nil
	case strings.Contains(f, "."):
		v, err := strconv.ParseFloat(f, 64)
		return types.NewFloat(v), err
	}
	v, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		return types.Null, fmt.Errorf("bad literal %q", f)
	}
	return types.NewInt(v), nil
}

func formatRow(r types.Row) string {
	parts := make([]string, len(r))
	for i, d := range r {
		parts[i] = formatDatum(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func formatDatum(d types.Datum) string {
	switch d.Family() {
	case types.FamUnknown:
		return "NULL"
	case types.FamBool:
		return strconv.FormatBool(d.Bool())
	case types.FamInt:
		return strconv.FormatInt(d.Int(), 10)
	case types.FamFloat:
		return strconv.FormatFloat(d.Float(), 'g', -1, 64)
	case types.FamText:
		return "'" + d.Text() + "'"
	case types.FamNumeric:
		return d.Numeric().String()
	}
	return fmt.Sprintf("<family %d>", d.Family())
}
