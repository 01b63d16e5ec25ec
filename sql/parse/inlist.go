package parse

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// inListMin is the fewest literals of an IN list that the front reads
// itself (inLists); inListMinBytes the shortest input Parse looks for one
// in. Tests lower them.
var inListMin, inListMinBytes = 16, 512

// inList is a long IN list of plain literals (`x IN (1, 2, ...)`, as
// bulk deletes send them) whose entries after the first are blanked out
// of the text pg_query parses and read here: pg_query's cost grows with
// every node it builds and serialises, the front's is a few bytes per
// literal. first is the first literal's A_Const as pg_query makes it
// (checked against pg_query's), rest the others; from and to the bytes
// blanked.
type inList struct {
	first    *pg.A_Const
	rest     []*pg.Node
	from, to int
}

// mayHaveLongInList is Parse's pre-check for inLists: an input long
// enough, with the word IN followed by a parenthesis in it.
func mayHaveLongInList(sql string) bool {
	if len(sql) < inListMinBytes {
		return false
	}
	for i := 1; i < len(sql); i++ {
		if sql[i] != '(' {
			continue
		}
		j := i - 1
		for j > 0 && (sql[j] == ' ' || sql[j] == '\n' || sql[j] == '\t' || sql[j] == '\r') {
			j--
		}
		if j >= 1 && sql[j]|0x20 == 'n' && sql[j-1]|0x20 == 'i' && (j < 2 || !isIdentByte(sql[j-2])) {
			return true
		}
	}
	return false
}

// isIdentByte reports whether c may continue an identifier.
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}

// inLists finds in seg every IN "(" literal {"," literal} ")" of at
// least inListMin literals (each one insertValues reads: a plain string,
// a number, NULL, TRUE or FALSE), blanks in masked the text from the end
// of its first literal to its ")" and returns the lists. The caller
// splices them back into pg_query's tree (spliceInLists).
func (p *front) inLists(seg segment, masked []byte) []inList {
	toks := p.toks[seg.lo:seg.hi]
	var out []inList
	for i := 0; i+2 < len(toks); i++ {
		if !isWord(p.src, toks[i], "IN") || !p.isPunct(toks[i+1], "(") {
			continue
		}
		l, n, ok := p.literalList(toks[i+2:])
		if !ok {
			continue
		}
		blank(masked, l.from, l.to)
		out = append(out, l)
		i += 2 + n
	}
	return out
}

// literalList reads toks as `literal {"," literal} ")"` of at least
// inListMin literals and returns the list and the tokens it took.
func (p *front) literalList(toks []token) (l inList, n int, ok bool) {
	end := 0
	for end < len(toks) && !p.isPunct(toks[end], ")") {
		if p.isPunct(toks[end], "(") {
			return l, 0, false
		}
		end++
	}
	if end == len(toks) || end < 2*inListMin-1 {
		return l, 0, false
	}
	slab := newRowSlab(end/2+1, 0)
	firstEnd := 0
	for i := 0; i < end; {
		k, ok := p.literal(toks[i:end], slab)
		if !ok {
			return l, 0, false
		}
		i += k
		if len(slab.items) == 1 {
			firstEnd = toks[i-1].end
		}
		switch {
		case i == end:
		case p.isPunct(toks[i], ",") && i+1 < end:
			i++
		default:
			return l, 0, false
		}
	}
	if len(slab.items) < inListMin {
		return l, 0, false
	}
	return inList{first: slab.items[0].GetAConst(), rest: slab.items[1:], from: firstEnd, to: toks[end].start}, end + 1, true
}

// spliceInLists appends each list's other literals to the list pg_query
// parsed in its place (an IN whose list is the first literal alone, the
// same node the front makes of it). It returns false, with stmts
// unchanged, when a list is not found so: the caller then parses the
// text without the blanks.
func spliceInLists(stmts []Stmt, lists []inList) bool {
	found := make([]*pg.List, len(lists))
	for i, l := range lists {
		for _, s := range stmts {
			if s.AST != nil {
				if found[i] = findInList(s.AST.ProtoReflect(), l.first); found[i] != nil {
					break
				}
			}
		}
		if found[i] == nil {
			return false
		}
	}
	for i, l := range lists {
		found[i].Items = append(found[i].Items, l.rest...)
	}
	return true
}

// findInList returns the right-hand list of the IN expression in m whose
// list holds only first's equal, at first's location, or nil.
func findInList(m protoreflect.Message, first *pg.A_Const) *pg.List {
	if e, ok := m.Interface().(*pg.A_Expr); ok && e.Kind == pg.A_Expr_Kind_AEXPR_IN {
		if l := e.GetRexpr().GetList(); l != nil && len(l.Items) == 1 && proto.Equal(l.Items[0].GetAConst(), first) {
			return l
		}
	}
	var found *pg.List
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len() && found == nil; i++ {
				found = findInList(l.Get(i).Message(), first)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			found = findInList(v.Message(), first)
		}
		return found == nil
	})
	return found
}
