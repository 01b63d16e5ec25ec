package expr

import "github.com/eddydb/eddy/repr"

// regexp_split_to_table(s, pattern [, flags]): the pieces of s between
// the matches of pattern. As in PostgreSQL's setup_regexp_matches with
// ignore_degenerate, a match counts only if it starts before the end of s
// and ends after the previous counted match, so empty matches at the start
// or end, or right after a match, split nothing; the g flag is refused.
// regexp_matches(s, pattern [, flags]): one text[] row per match (every
// match with g, else the first), holding the capture groups (NULL where a
// group did not take part) or, without groups, the whole match.
// string_to_table(s, delimiter [, null_string]): the pieces
// string_to_array returns, one per row (not strict: a NULL delimiter
// splits into characters).
func init() {
	t := repr.Text
	tableFn("regexp_split_to_table", col1(t), regexpSplit, t, t)
	tableFn("regexp_split_to_table", col1(t), regexpSplit, t, t, t)
	tableFn("regexp_matches", col1(repr.ArrayOf(t)), regexpMatches, t, t)
	tableFn("regexp_matches", col1(repr.ArrayOf(t)), regexpMatches, t, t, t)
	tableFn("string_to_table", col1(t), stringToTable, t, t).NullArgs = true
	tableFn("string_to_table", col1(t), stringToTable, t, t, t).NullArgs = true
	fn("regexp_split_to_array", repr.ArrayOf(t), regexpSplitArray, t, t)
	fn("regexp_split_to_array", repr.ArrayOf(t), regexpSplitArray, t, t, t)
}

// regexpSplitArray is regexp_split_to_array(s, pattern [, flags]): the
// pieces regexp_split_to_table returns, as one text[].
func regexpSplitArray(_ *Ctx, a []repr.Datum) (repr.Datum, error) {
	var elems []repr.Datum
	err := splitByRegexp("regexp_split_to_array", a, func(piece []repr.Datum) error {
		elems = append(elems, piece[0])
		return nil
	})
	if err != nil {
		return repr.Null, err
	}
	return repr.NewArray(elems), nil
}

func regexpMatches(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	s := a[0].Text()
	m, global, err := newMatcher("regexp_matches", s, a[1].Text(), optText(a, 2), true)
	if err != nil {
		return err
	}
	buf := make([]repr.Datum, 1)
	m.each(0, func(loc []int) bool {
		buf[0] = matchArray(s, loc)
		err = emit(buf)
		return err == nil && global
	})
	return err
}

// matchArray returns a match's capture groups as a text array (the whole
// match when the pattern has none).
func matchArray(s string, loc []int) repr.Datum {
	if len(loc) == 2 {
		return repr.NewArray([]repr.Datum{repr.NewText(s[loc[0]:loc[1]])})
	}
	elems := make([]repr.Datum, 0, len(loc)/2-1)
	for g := 2; g+1 < len(loc); g += 2 {
		if loc[g] < 0 {
			elems = append(elems, repr.Null)
			continue
		}
		elems = append(elems, repr.NewText(s[loc[g]:loc[g+1]]))
	}
	return repr.NewArray(elems)
}

func stringToTable(ctx *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	arr, err := stringToArray(ctx, a)
	if err != nil || arr.IsNull() {
		return err
	}
	buf := make([]repr.Datum, 1)
	for _, e := range arr.Array() {
		buf[0] = e
		if err := emit(buf); err != nil {
			return err
		}
	}
	return nil
}

func regexpSplit(_ *Ctx, a []repr.Datum, emit func([]repr.Datum) error) error {
	return splitByRegexp("regexp_split_to_table", a, emit)
}

// splitByRegexp emits the pieces of a[0] between the matches of the
// pattern a[1] (flags a[2]) for the function name.
func splitByRegexp(name string, a []repr.Datum, emit func([]repr.Datum) error) error {
	s := a[0].Text()
	m, _, err := newMatcher(name, s, a[1].Text(), optText(a, 2), false)
	if err != nil {
		return err
	}
	buf := make([]repr.Datum, 1)
	prev := 0
	m.each(0, func(loc []int) bool {
		if loc[0] >= len(s) || loc[1] <= prev {
			return true
		}
		buf[0] = repr.NewText(s[prev:loc[0]])
		if err = emit(buf); err != nil {
			return false
		}
		prev = loc[1]
		return true
	})
	if err != nil {
		return err
	}
	buf[0] = repr.NewText(s[prev:])
	return emit(buf)
}
