package jsonpath

import (
	"strconv"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// String prints the path in PostgreSQL's normal form (printJsonPathItem):
// "strict " for strict mode, keys and variables quoted, operators spaced
// and parenthesised by priority.
func (p *Path) String() string {
	var b strings.Builder
	if p.Strict {
		b.WriteString("strict ")
	}
	printItem(&b, p.Expr, false, true)
	return b.String()
}

// priority is PostgreSQL's operationPriority.
func priority(k Kind) int {
	switch k {
	case KOr:
		return 0
	case KAnd:
		return 1
	case KEqual, KNotEqual, KLess, KGreater, KLessOrEqual, KGreaterOrEqual, KStartsWith:
		return 2
	case KAdd, KSub:
		return 3
	case KMul, KDiv, KMod:
		return 4
	case KPlus, KMinus:
		return 5
	}
	return 6
}

var opText = map[Kind]string{KAnd: "&&", KOr: "||", KEqual: "==", KNotEqual: "!=", KLess: "<",
	KGreater: ">", KLessOrEqual: "<=", KGreaterOrEqual: ">=", KAdd: "+", KSub: "-", KMul: "*",
	KDiv: "/", KMod: "%", KStartsWith: "starts with"}

var methodText = map[Kind]string{KType: ".type()", KSize: ".size()", KAbs: ".abs()",
	KFloor: ".floor()", KCeiling: ".ceiling()", KDouble: ".double()", KKeyValue: ".keyvalue()"}

// printItem prints it and its chain. inKey is set for a chained accessor
// (which then starts with a dot); brackets asks an operator for
// parentheses. An operator with accessors after it is always
// parenthesised, so that the text parses back to the same path
// (PostgreSQL 15 omits them where the priority does not ask for them).
func printItem(b *strings.Builder, it *Item, inKey, brackets bool) {
	brackets = brackets || it.Next != nil
	switch it.Kind {
	case KNull:
		dot(b, inKey)
		b.WriteString("null")
	case KKey:
		dot(b, inKey)
		writeQuoted(b, it.Str)
	case KString:
		writeQuoted(b, it.Str)
	case KVariable:
		b.WriteByte('$')
		writeQuoted(b, it.Str)
	case KNumeric:
		if it.Next != nil {
			b.WriteByte('(')
		}
		b.WriteString(repr.FormatText(repr.NewNumeric(it.Num), repr.Numeric, nil))
		if it.Next != nil {
			b.WriteByte(')')
		}
	case KBool:
		b.WriteString(strconv.FormatBool(it.Bool))
	case KAnd, KOr, KEqual, KNotEqual, KLess, KGreater, KLessOrEqual, KGreaterOrEqual,
		KAdd, KSub, KMul, KDiv, KMod, KStartsWith:
		open(b, brackets)
		printItem(b, it.Left, false, priority(it.Left.Kind) <= priority(it.Kind))
		b.WriteString(" " + opText[it.Kind] + " ")
		printItem(b, it.Right, false, priority(it.Right.Kind) <= priority(it.Kind))
		closeParen(b, brackets)
	case KLikeRegex:
		open(b, brackets)
		printItem(b, it.Left, false, priority(it.Left.Kind) <= priority(it.Kind))
		b.WriteString(" like_regex ")
		writeQuoted(b, it.Str)
		if it.Flags != 0 {
			b.WriteString(" flag \"")
			for _, c := range "ismxq" {
				if flagBit(c)&it.Flags != 0 {
					b.WriteRune(c)
				}
			}
			b.WriteByte('"')
		}
		closeParen(b, brackets)
	case KPlus, KMinus:
		open(b, brackets)
		if it.Kind == KPlus {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		printItem(b, it.Left, false, priority(it.Left.Kind) <= priority(it.Kind))
		closeParen(b, brackets)
	case KFilter:
		b.WriteString("?(")
		printItem(b, it.Left, false, false)
		b.WriteByte(')')
	case KNot:
		b.WriteString("!(")
		printItem(b, it.Left, false, false)
		b.WriteByte(')')
	case KIsUnknown:
		b.WriteByte('(')
		printItem(b, it.Left, false, false)
		b.WriteString(") is unknown")
	case KExists:
		b.WriteString("exists (")
		printItem(b, it.Left, false, false)
		b.WriteByte(')')
	case KCurrent:
		b.WriteByte('@')
	case KRoot:
		b.WriteByte('$')
	case KLast:
		b.WriteString("last")
	case KAnyArray:
		b.WriteString("[*]")
	case KAnyKey:
		dot(b, inKey)
		b.WriteByte('*')
	case KIndexArray:
		b.WriteByte('[')
		for i, s := range it.Subs {
			if i > 0 {
				b.WriteByte(',')
			}
			printItem(b, s.From, false, false)
			if s.To != nil {
				b.WriteString(" to ")
				printItem(b, s.To, false, false)
			}
		}
		b.WriteByte(']')
	case KAny:
		dot(b, inKey)
		printAny(b, it.First, it.Last)
	case KDatetime:
		b.WriteString(".datetime(")
		if it.Bool {
			writeQuoted(b, it.Str)
		}
		b.WriteByte(')')
	default:
		b.WriteString(methodText[it.Kind])
	}
	if it.Next != nil {
		printItem(b, it.Next, true, true)
	}
}

// flagBit maps a printed flag letter to its bit.
func flagBit(c rune) uint8 {
	return map[rune]uint8{'i': FlagI, 's': FlagS, 'm': FlagM, 'x': FlagX, 'q': FlagQ}[c]
}

func printAny(b *strings.Builder, first, last uint32) {
	level := func(v uint32) string {
		if v == AnyLast {
			return "last"
		}
		return strconv.FormatUint(uint64(v), 10)
	}
	switch {
	case first == 0 && last == AnyLast:
		b.WriteString("**")
	case first == last:
		b.WriteString("**{" + level(first) + "}")
	default:
		b.WriteString("**{" + level(first) + " to " + level(last) + "}")
	}
}

func dot(b *strings.Builder, inKey bool) {
	if inKey {
		b.WriteByte('.')
	}
}

func open(b *strings.Builder, brackets bool) {
	if brackets {
		b.WriteByte('(')
	}
}

func closeParen(b *strings.Builder, brackets bool) {
	if brackets {
		b.WriteByte(')')
	}
}

// writeQuoted writes s as a JSON string, as PostgreSQL's escape_json.
func writeQuoted(b *strings.Builder, s string) {
	b.Write(repr.AppendJSONString(nil, s))
}
