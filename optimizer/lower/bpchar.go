package lower

import (
	"github.com/eddydb/eddy/optimizer/ir"
	"github.com/eddydb/eddy/repr"
)

// unboundedBpchar reports whether t is bpchar without a length. Its values
// keep the trailing blanks they were written with ('ab' and 'ab  '), which
// bpchar's = ignores but Eddy's key encoding (repr.AppendKey) does not;
// char(n) values are all padded to n, so their keys agree with =.
func unboundedBpchar(t repr.T) bool {
	return t.Family == repr.FamText && t.Kind == repr.KindChar && t.Length <= 0
}

// checkBpcharKeys refuses, with 0A000, an operator that groups or
// deduplicates by an unbounded bpchar column (GROUP BY, DISTINCT, DISTINCT
// ON, PARTITION BY, UNION, INTERSECT, EXCEPT, count(DISTINCT ...)): it
// would tell apart values PostgreSQL treats as one. Joins are safe: their
// keys are cast to text (bpcharKey).
func checkBpcharKeys(rel ir.Rel) error {
	var key []int
	construct := "grouping"
	switch r := rel.(type) {
	case *ir.Reduce:
		key = r.Key
		for _, a := range r.Aggs {
			if a.Distinct && a.Col >= 0 {
				key = append(append([]int(nil), key...), a.Col)
			}
		}
	case *ir.TopK:
		key, construct = r.Key, "DISTINCT ON or PARTITION BY"
	case *ir.Window:
		key, construct = r.Key, "PARTITION BY"
	case *ir.SessionWindow:
		key = r.Key
	case *ir.Threshold:
		construct = "INTERSECT or EXCEPT"
		for i := range r.Input.ColTypes() {
			key = append(key, i)
		}
	default:
		return nil
	}
	in := rel.Children()[0].ColTypes()
	for _, k := range key {
		if k < len(in) && unboundedBpchar(in[k]) {
			return repr.Unsupported("%s by a bpchar value without a length (its trailing blanks would count); cast it to text or char(n)", construct)
		}
	}
	return nil
}
