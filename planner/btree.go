package planner

import (
	"errors"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// PostgreSQL sorts, groups and deduplicates a type by its default btree
// operator class; a type without one (json and jsonpath, of Eddy's types:
// jsonb has one) cannot be an ORDER BY key (42883 "could not identify an ordering
// operator") nor a GROUP BY, DISTINCT, UNION/INTERSECT/EXCEPT (without
// ALL), aggregate DISTINCT or window PARTITION BY column ("could not
// identify an equality operator"), nor an aggregate's or a window's ORDER
// BY key, though Eddy's datums could compare it as text. min and max
// exist for fewer types still (noExtremum). An array or
// record of json resolves its operator in PostgreSQL and fails only when
// run; Eddy does not refuse those.

// hasBtree reports whether t has a default btree operator class.
func hasBtree(t repr.T) bool {
	return t.Family != repr.FamJSON && t.Family != repr.FamJSONPath
}

// noExtremum reports whether PostgreSQL 15 has no min or max for t:
// pg_aggregate lists them for numbers, text (name, varchar and "char"
// reach it by implicit casts), char(n), dates and times, intervals,
// enums and arrays (anyarray, whose elements need an ordering), and for
// none of Eddy's other types: boolean, bytea, uuid, jsonb, json,
// jsonpath, records and bit strings, though they sort (42883).
func noExtremum(t repr.T) bool {
	switch t.Family {
	case repr.FamBool, repr.FamBytea, repr.FamUUID, repr.FamJSONB, repr.FamJSON, repr.FamJSONPath,
		repr.FamRecord, repr.FamBit:
		return true
	case repr.FamArray:
		return !hasBtree(t.ElemType())
	}
	return false
}

// orderingPrefix begins noOrdering's message, before the type's name.
const orderingPrefix = "could not identify an ordering operator for type "

// noOrdering is PostgreSQL's error for sorting by a value of type t
// (nil when t has an ordering); loc is the key's 0-based location.
func noOrdering(b *builder, t repr.T, loc int32) error {
	if hasBtree(t) {
		return nil
	}
	return repr.Errorf(repr.CodeUndefinedFunction, orderingPrefix+"%s", b.typeName(t)).
		WithHint("Use an explicit ordering operator or modify the query.").WithPosition(loc + 1)
}

// noEquality is PostgreSQL's error for grouping or deduplicating values of
// one of the types ts (nil when each has an equality); loc is the
// 0-based location of the construct, or -1 for none.
func noEquality(b *builder, ts []repr.T, loc int32) error {
	for _, t := range ts {
		if !hasBtree(t) {
			err := repr.Errorf(repr.CodeUndefinedFunction, "could not identify an equality operator for type %s", b.typeName(t))
			if loc >= 0 {
				err = err.WithPosition(loc + 1)
			}
			return err
		}
	}
	return nil
}

// distinctOnKeyError turns noOrdering's error for a DISTINCT ON key, which
// orderBy resolves as a sort key, into PostgreSQL's, which names the
// missing equality operator first; other errors pass unchanged.
func distinctOnKeyError(err error) error {
	var re *repr.Error
	if !errors.As(err, &re) || re.Code != repr.CodeUndefinedFunction {
		return err
	}
	t, ok := strings.CutPrefix(re.Message, orderingPrefix)
	if !ok {
		return err
	}
	out := repr.Errorf(repr.CodeUndefinedFunction, "could not identify an equality operator for type %s", t)
	out.Position = re.Position
	return out
}
