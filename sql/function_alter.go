package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// ALTER FUNCTION: RENAME TO, OWNER TO, SET SCHEMA and the options
// (volatility, STRICT / CALLED ON NULL INPUT, and the planner hints
// COST, ROWS, PARALLEL, LEAKPROOF, which change nothing here). Each
// replaces the function's catalog entry as CREATE OR REPLACE does; a
// changed volatility re-checks the materialized views that inlined the
// function. Views name a function in their stored SQL, so renaming or
// moving a function a view uses is refused (0A000) rather than leaving
// the view naming a function that is gone.

// alteredFunction finds the function ow names for ALTER FUNCTION (42883
// when none) and checks the session owns it. The caller holds e.mu.
func (e *Engine) alteredFunction(s *Session, ow *pg.ObjectWithArgs) (*Object, error) {
	obj, err := e.functionNamed(ow)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		msg := "function " + strings.Join(stringList(ow.Objname), ".")
		if !ow.ArgsUnspecified {
			ts, _ := e.argTypes(ow)
			msg += "(" + typeNames(ts) + ")"
		}
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "%s does not exist", msg)
	}
	return obj, e.checkOwner(s, obj.Owner, "function", obj.Name)
}

// execAlterFunction executes ALTER FUNCTION f(...) option ....
func (p *Portal) execAlterFunction(st *pg.AlterFunctionStmt) error {
	p.tag = "ALTER FUNCTION"
	if st.Objtype != pg.ObjectType_OBJECT_FUNCTION {
		return repr.Unsupported("ALTER %s", strings.TrimPrefix(st.Objtype.String(), "OBJECT_"))
	}
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	old, err := e.alteredFunction(p.st.s, st.Func)
	if err != nil {
		return err
	}
	if err := routineKindMatches(old, st.Objtype); err != nil {
		return err
	}
	repl := old.clone()
	f := *old.Function
	repl.Function = &f
	for _, n := range st.Actions {
		d := n.GetDefElem()
		switch d.Defname {
		case "volatility":
			f.Volatility = d.Arg.GetString_().Sval[0]
		case "strict":
			f.Strict = d.Arg.GetBoolean().Boolval
		case "parallel", "leakproof", "cost", "rows":
		case "security":
			if d.Arg.GetBoolean().Boolval {
				return repr.Unsupported("SECURITY DEFINER")
			}
		default:
			return repr.Unsupported("ALTER FUNCTION ... %s", strings.ToUpper(d.Defname))
		}
	}
	return e.commitReplanned(old, repl)
}

// renameFunction executes ALTER FUNCTION f(...) RENAME TO name.
func (p *Portal) renameFunction(rs *pg.RenameStmt) error {
	p.tag = "ALTER FUNCTION"
	return p.moveFunction(rs.Object.GetObjectWithArgs(), "", rs.Newname)
}

// setFunctionSchema executes ALTER FUNCTION f(...) SET SCHEMA s.
func (p *Portal) setFunctionSchema(st *pg.AlterObjectSchemaStmt) error {
	p.tag = "ALTER FUNCTION"
	return p.moveFunction(st.Object.GetObjectWithArgs(), st.Newschema, "")
}

// moveFunction gives the function ow names a new schema or name ("":
// unchanged): 42723 when one with its arguments is already there.
func (p *Portal) moveFunction(ow *pg.ObjectWithArgs, schema, name string) error {
	s := p.st.s
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	old, err := e.alteredFunction(s, ow)
	if err != nil {
		return err
	}
	repl := old.clone()
	if schema != "" {
		if err := s.checkCreateIn(e.cat, schema, old.Name); err != nil {
			return err
		}
		repl.Schema = schema
	}
	if name != "" {
		repl.Name = name
	}
	for _, o := range e.cat.functionsNamed(repl.Schema, repl.Name) {
		if o.ID != old.ID && sameArgs(o.Function.Args, old.Function.Args) {
			return repr.Errorf(codeDuplicateFunction, "function %s(%s) already exists in schema \"%s\"", repl.Name, typeNames(old.Function.Args), repl.Schema)
		}
	}
	if deps := e.dropSet(old)[1:]; len(deps) > 0 {
		return repr.Unsupported("renaming or moving function %s, which view %s uses", old.Name, deps[0].Name)
	}
	fn, err := repl.planned()
	if err != nil {
		return err
	}
	repl.fn = fn
	return e.commitAltered(old, repl, nil)
}

// alterFunctionOwner executes ALTER FUNCTION f(...) OWNER TO role.
func (p *Portal) alterFunctionOwner(st *pg.AlterOwnerStmt) error {
	p.tag = "ALTER FUNCTION"
	s := p.st.s
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	old, err := e.alteredFunction(s, st.Object.GetObjectWithArgs())
	if err != nil {
		return err
	}
	owner, err := p.newOwnerOf(st.Newowner, old.Owner, "function", old.Name)
	if err != nil {
		return err
	}
	repl := old.clone()
	repl.Owner, repl.ACL = owner, newOwnerACL(old.ACL, old.Owner, owner)
	repl.fn = old.fn
	return e.commitAltered(old, repl, nil)
}

// commitReplanned plans repl, a changed copy of the SQL function old, and
// commits it with the dependents whose plans the change alters.
func (e *Engine) commitReplanned(old, repl *Object) error {
	fn, err := repl.planned()
	if err != nil {
		return err
	}
	repl.fn = fn
	also, _, err := e.replacedDependents(old, repl) // nothing is rebuilt for a function
	if err != nil {
		return err
	}
	return e.commitAltered(old, repl, nil, also...)
}
