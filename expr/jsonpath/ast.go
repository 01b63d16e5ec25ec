package jsonpath

import (
	"github.com/cockroachdb/apd/v3"

	"github.com/eddydb/eddy/expr/are"
)

// Kind is the kind of a path item, after PostgreSQL's JsonPathItemType.
type Kind uint8

// The item kinds.
const (
	KNull Kind = iota
	KString
	KNumeric
	KBool
	KAnd
	KOr
	KNot
	KIsUnknown
	KEqual
	KNotEqual
	KLess
	KGreater
	KLessOrEqual
	KGreaterOrEqual
	KAdd
	KSub
	KMul
	KDiv
	KMod
	KPlus
	KMinus
	KAnyArray
	KAnyKey
	KIndexArray
	KAny
	KKey
	KCurrent
	KRoot
	KVariable
	KFilter
	KExists
	KType
	KSize
	KAbs
	KFloor
	KCeiling
	KDouble
	KDatetime
	KKeyValue
	KLast
	KStartsWith
	KLikeRegex
)

// Regex flags of like_regex, as PostgreSQL prints them (in this order).
const (
	FlagI uint8 = 1 << iota
	FlagS
	FlagM
	FlagX
	FlagQ
)

// AnyLast is the level "last" of .**{...}.
const AnyLast = ^uint32(0)

// Item is one path item; Next is the accessor applied to its result.
type Item struct {
	Kind Kind
	// Str is the key, string, variable name, like_regex pattern or
	// datetime template.
	Str string
	// Num is a numeric literal.
	Num *apd.Decimal
	// Bool is a boolean literal; for KDatetime, whether a template was given.
	Bool bool
	// Left is the operand of unary items (!, is unknown, +, -, exists,
	// filter, like_regex, starts with) and the left operand of binary ones.
	Left, Right *Item
	// Subs are the subscripts of [...].
	Subs []Subscript
	// First and Last are the levels of .**{First to Last}.
	First, Last uint32
	// Flags are like_regex's flags.
	Flags uint8
	// re is like_regex's compiled pattern.
	re   *are.Regexp
	Next *Item
}

// Subscript is one element of an array accessor: an index or a range.
type Subscript struct {
	From, To *Item // To is nil for a single index
}

// Path is a parsed jsonpath: its mode and its expression.
type Path struct {
	Strict bool
	Expr   *Item
}

// isPredicate reports whether an item yields a truth value: a predicate
// followed by an accessor is an expression.
func (it *Item) isPredicate() bool {
	if it.Next != nil {
		return false
	}
	switch it.Kind {
	case KAnd, KOr, KNot, KIsUnknown, KEqual, KNotEqual, KLess, KGreater, KLessOrEqual,
		KGreaterOrEqual, KExists, KStartsWith, KLikeRegex:
		return true
	}
	return false
}
