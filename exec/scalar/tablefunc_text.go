package scalar

import "github.com/eddydb/eddy/sql/types"

// regexp_split_to_table(s, pattern [, flags]): the pieces of s between
// the matches of pattern. As in PostgreSQL's setup_regexp_matches with
// ignore_degenerate, a match counts only if it starts before the end of s
// and ends after the previous counted match, so empty matches at the start
// or end, or right after a match, split nothing; the g flag is refused.
func init() {
	t := types.Text
	tableFn("regexp_split_to_table", col1(t), regexpSplit, t, t)
	tableFn("regexp_split_to_table", col1(t), regexpSplit, t, t, t)
}

func regexpSplit(_ *Ctx, a []types.Datum, emit func([]types.Datum) error) error {
	s := a[0].Text()
	m, _, err := newMatcher("regexp_split_to_table", s, a[1].Text(), optText(a, 2), false)
	if err != nil {
		return err
	}
	buf := make([]types.Datum, 1)
	prev := 0
	m.each(0, func(loc []int) bool {
		if loc[0] >= len(s) || loc[1] <= prev {
			return true
		}
		buf[0] = types.NewText(s[prev:loc[0]])
		if err = emit(buf); err != nil {
			return false
		}
		prev = loc[1]
		return true
	})
	if err != nil {
		return err
	}
	buf[0] = types.NewText(s[prev:])
	return emit(buf)
}
