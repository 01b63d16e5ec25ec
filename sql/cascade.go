package sql

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// DROP ... CASCADE's NOTICE. PostgreSQL's reportDependentObjects reports
// the objects a drop reaches through dependencies twice over: without
// CASCADE as the 2BP01's DETAIL ("view v2 depends on view v"), with it as
// a NOTICE naming each object it drops with the root ("drop cascades to
// view v2"; for several, "drop cascades to N other objects" with one
// DETAIL line each). Both come from one walk, so Eddy derives the NOTICE
// from the DETAIL lines of the 2BP01 the statement would raise without
// CASCADE (each check that raises one is pure): every line names the
// object first, "<object> depends on <object>".

// cascadeNotice returns the NOTICE for the 2BP01 errors errs (nil ones
// skipped; other errors ignored), or nil when none names an object.
func cascadeNotice(errs ...error) *repr.Error {
	var what []string
	for _, err := range errs {
		var re *repr.Error
		if err == nil || !errors.As(err, &re) || re.Code != repr.CodeDependentObjects {
			continue
		}
		for _, line := range strings.Split(re.Detail, "\n") {
			obj, _, ok := strings.Cut(line, " depends on ")
			if ok && !slices.Contains(what, obj) {
				what = append(what, obj)
			}
		}
	}
	switch len(what) {
	case 0:
		return nil
	case 1:
		return repr.Errorf("00000", "drop cascades to %s", what[0])
	}
	lines := make([]string, len(what))
	for i, w := range what {
		lines[i] = "drop cascades to " + w
	}
	return repr.Errorf("00000", "drop cascades to %d other objects", len(what)).WithDetail("%s", strings.Join(lines, "\n"))
}

// noticeCascade queues on s the NOTICE of a CASCADE that succeeded, from
// the 2BP01 errors its checks raised before it ran (cascadeNotice).
func (s *Session) noticeCascade(err error, checks ...error) {
	if err != nil {
		return
	}
	if n := cascadeNotice(checks...); n != nil {
		s.addNotice(n)
	}
}

// describe names o as PostgreSQL's getObjectDescription does: its kind,
// its name (schema-qualified outside public), a function's argument types.
func describe(o *Object) string {
	name := o.Name
	if o.Schema != "" && o.Schema != nsPublic {
		name = o.Schema + "." + o.Name
	}
	if o.Kind == relFunction && o.Function != nil {
		kind := "function"
		if o.Function.Proc {
			kind = "procedure"
		}
		return fmt.Sprintf("%s %s(%s)", kind, name, typeNames(o.Function.Args))
	}
	if o.Kind == relType && o.Enum == nil && len(o.Columns) > 0 {
		return "composite type " + name
	}
	return kindName(o.Kind) + " " + name
}

// dependencyLines lists the objects that depend on roots, directly or
// through others, as PostgreSQL's findDependentObjects walks them: depth
// first, dependents in creation (ID) order, each once, with the object
// it was reached from ("view v2 depends on view v"). seen holds objects
// not to list (the roots are added to it).
func (e *Engine) dependencyLines(seen map[uint64]bool, roots ...*Object) []string {
	var out []string
	var visit func(o *Object)
	visit = func(o *Object) {
		for _, d := range e.cat.dependents(o.ID) {
			if seen[d.ID] || !e.directlyOn(d, o) {
				continue
			}
			seen[d.ID] = true
			out = append(out, describe(d)+" depends on "+describe(o))
			visit(d)
		}
	}
	for _, r := range roots {
		seen[r.ID] = true
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

// directlyOn reports whether d depends on o other than through another
// object d depends on (Deps lists a view's relations at every depth;
// PostgreSQL's pg_depend holds only the direct ones).
func (e *Engine) directlyOn(d, o *Object) bool {
	for _, x := range d.Deps {
		if x == o.ID {
			continue
		}
		if mid := e.cat.byID[x]; mid != nil && slices.Contains(mid.Deps, o.ID) {
			return false
		}
	}
	return true
}

// identityOwner is PostgreSQL's 2BP01 for dropping the sequence of an
// identity column (an internal dependency: CASCADE does not reach past
// it), or nil.
func (e *Engine) identityOwner(o *Object) error {
	if o.Kind != relSequence || o.Sequence == nil || o.Sequence.OwnedBy == 0 {
		return nil
	}
	t := e.cat.byID[o.Sequence.OwnedBy]
	if t == nil {
		return nil
	}
	for _, c := range t.Columns {
		if c.Identity != 0 && c.Seq == o.ID {
			return repr.Errorf(repr.CodeDependentObjects, "cannot drop sequence %s because column %s of table %s requires it", o.Name, c.Name, t.Name).
				WithHint("You can drop column %s of table %s instead.", c.Name, t.Name)
		}
	}
	return nil
}

// mergeDependents is err, a 2BP01, with the DETAIL lines of more (a
// 2BP01 about the same object, or nil) after its own; any other err is
// returned as is.
func mergeDependents(err, more error) error {
	var re, mo *repr.Error
	if !errors.As(err, &re) || re.Code != repr.CodeDependentObjects || !errors.As(more, &mo) || mo.Code != repr.CodeDependentObjects {
		return err
	}
	out := *re
	out.Detail = re.Detail + "\n" + mo.Detail
	return &out
}

// dropList runs one(i) for each of the n objects of a DROP under e.mu, as
// one atomic step: PostgreSQL drops the list as a set, so an object that
// only objects later in the list depend on does not block the drop (DROP
// TABLE pktable, fktable). An object refused with 2BP01 is retried after
// the others are gone; when a round drops nothing more, the statement
// fails with the remaining refusals' lines and nothing is dropped. A
// dependency cycle inside the list (two tables referencing each other)
// of foreign keys drops too: listed(i) (nil for lists of routines) is
// the object the i-th name finds, or nil; while the list is dropped
// e.dropListed holds them, and a
// foreign key of one of them is removed without refusing the drop of the
// table it references (dropSide), as the table itself goes too.
func (e *Engine) dropList(s *Session, n int, listed func(i int) *Object, one func(i int) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n == 1 {
		return s.noticeSkipped(one(0))
	}
	if listed != nil {
		e.dropListed = map[uint64]bool{}
		for i := 0; i < n; i++ {
			if o := listed(i); o != nil {
				e.dropListed[o.ID] = true
			}
		}
		defer func() { e.dropListed = nil }()
	}
	return e.atomically(func() error {
		pending := make([]int, n)
		for i := range pending {
			pending[i] = i
		}
		for {
			var next []int
			var refused []*repr.Error
			for _, i := range pending {
				err := s.noticeSkipped(one(i))
				var re *repr.Error
				if errors.As(err, &re) && re.Code == repr.CodeDependentObjects {
					next, refused = append(next, i), append(refused, re)
					continue
				}
				if err != nil {
					return err
				}
			}
			if len(next) == 0 {
				return nil
			}
			if len(next) == len(pending) {
				return refusedSet(refused)
			}
			pending = next
		}
	})
}

// refusedSet is PostgreSQL's 2BP01 for a multi-object DROP: one error
// naming no object, with the DETAIL lines of each refusal once.
func refusedSet(refused []*repr.Error) error {
	if len(refused) == 1 && refused[0].Detail == "" {
		return refused[0]
	}
	seen := map[string]bool{}
	var lines []string
	for _, re := range refused {
		for _, l := range strings.Split(re.Detail, "\n") {
			if l != "" && !seen[l] {
				seen[l] = true
				lines = append(lines, l)
			}
		}
	}
	return repr.Errorf(repr.CodeDependentObjects, "cannot drop desired object(s) because other objects depend on them").
		WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}
