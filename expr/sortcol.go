package expr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SortCol is one ORDER BY column.
type SortCol struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// String prints the sort column as in ORDER BY, naming NULLS FIRST/LAST
// only where it differs from PostgreSQL's default (last for ASC, first
// for DESC).
func (c SortCol) String() string {
	s := fmt.Sprintf("#%d", c.Col)
	switch {
	case c.Desc && !c.NullsFirst:
		s += " DESC NULLS LAST"
	case c.Desc:
		s += " DESC"
	case c.NullsFirst:
		s += " NULLS FIRST"
	}
	return s
}

// FormatSortCols prints an ORDER BY list: #0 DESC, #1.
func FormatSortCols(order []SortCol) string {
	s := make([]string, len(order))
	for i, o := range order {
		s[i] = o.String()
	}
	return strings.Join(s, ", ")
}

var sortRE = regexp.MustCompile(`^#(\d+)( ASC| DESC)?( NULLS FIRST| NULLS LAST)?$`)

// ParseSortCol parses "#i[ ASC| DESC][ NULLS FIRST| NULLS LAST]".
func ParseSortCol(s string) (SortCol, error) {
	m := sortRE.FindStringSubmatch(s)
	if m == nil {
		return SortCol{}, fmt.Errorf("bad sort column %q", s)
	}
	c := SortCol{Desc: m[2] == " DESC"}
	c.Col, _ = strconv.Atoi(m[1])
	c.NullsFirst = m[3] == " NULLS FIRST" || m[3] == "" && c.Desc
	return c, nil
}

// parseCol parses #i.
func parseCol(s string) (int, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
	if err != nil || !strings.HasPrefix(s, "#") || i < 0 {
		return 0, fmt.Errorf("bad column %q", s)
	}
	return i, nil
}
