package sql

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Privileges on the objects that have no catalog record of their own:
// the built-in functions and aggregates (EXECUTE), the types (USAGE) and
// the database (CREATE, TEMPORARY, CONNECT). All are owned by the
// bootstrap superuser; an object without an ACL has PostgreSQL's
// default, in which PUBLIC holds EXECUTE on a function, USAGE on a type
// and TEMPORARY and CONNECT on the database (acldefault 'f', 'T', 'd').
// A GRANT or REVOKE stores the object's whole ACL (which then stays,
// printed in proacl, typacl or datacl, even when back to the default,
// as PostgreSQL's does). The ACLs live in the catalog (under the
// engine's lock; the set is replaced, never changed in place) and are
// stored together under one key. Functions are keyed by their
// regprocedure text (their OIDs are only stable for one build), types
// by OID; the one database ACL serves every database name (they name the
// same data, Databases).
//
// Checks: a statement records the functions it calls by name (FuncCall
// nodes, with their argument count) and the column types of the tables
// it creates or alters (qualifyNames); Portal.run refuses one whose
// role lacks EXECUTE on an overload of that name and argument count
// with a stored ACL (which may refuse, never wrongly admit, where only
// another overload was revoked), or USAGE on the type (an array's
// element type). Planning replaces the calls by the overloads it
// resolved, operators by the functions behind them (callNeeds,
// oprproc.go), and adds the functions of the casts it applied
// (castproc.go); SQL-syntax value functions are not checked.
// CONNECT is checked at login (Engine.CheckConnect), CREATE by CREATE
// SCHEMA; Eddy has no temporary objects.

// objectACLs are the stored ACLs of functions, types and the database.
type objectACLs struct {
	Funcs map[string][]ACLItem `json:",omitempty"` // by procInfo.sig
	Types map[uint32][]ACLItem `json:",omitempty"` // by type OID
	DB    []ACLItem            `json:",omitempty"`
}

var metaObjectACLs = storage.MetaKey("objacl")

// allDBPrivs are the database privileges.
const allDBPrivs = privCreate | privTemporary | privConnect

// clone returns a copy of o (nil: empty) to change.
func (o *objectACLs) clone() *objectACLs {
	if o == nil {
		return &objectACLs{}
	}
	return &objectACLs{Funcs: maps.Clone(o.Funcs), Types: maps.Clone(o.Types), DB: o.DB}
}

// funcACL returns p's effective ACL.
func (o *objectACLs) funcACL(p *procInfo) []ACLItem {
	var acl []ACLItem
	if o != nil {
		acl = o.Funcs[p.sig()]
	}
	return builtinACL(acl, privExecute, privExecute)
}

// typeACL returns the effective ACL of the type with OID oid (an array's
// is its element type's, as PostgreSQL's pg_type_aclmask).
func (o *objectACLs) typeACL(oid uint32) []ACLItem {
	var acl []ACLItem
	if o != nil {
		acl = o.Types[aclTypeOID(oid)]
	}
	return builtinACL(acl, privUsage, privUsage)
}

// compositeACL returns the ACL granted on composite type oid (nil: the
// default, which the owner's OID determines).
func (o *objectACLs) compositeACL(oid uint32) []ACLItem {
	if o == nil {
		return nil
	}
	return o.Types[aclTypeOID(oid)]
}

// compositeTypeACL returns the effective ACL of composite type o: the
// granted one, else the default (USAGE for PUBLIC and the owner, granted
// by the owner).
func (o *objectACLs) compositeTypeACL(ct *Object) []ACLItem {
	if acl := o.compositeACL(typeOID(ct)); acl != nil {
		return acl
	}
	owner := ownerOID(ct.Owner)
	return []ACLItem{{Grantor: owner, Privs: privUsage}, {Grantee: owner, Grantor: owner, Privs: privUsage}}
}

// dbACL returns the database's effective ACL.
func (o *objectACLs) dbACL() []ACLItem {
	var acl []ACLItem
	if o != nil {
		acl = o.DB
	}
	return builtinACL(acl, privTemporary|privConnect, allDBPrivs)
}

// builtinACL returns acl, or when nil the default ACL of an object the
// bootstrap superuser owns: PUBLIC holds public, the owner all.
func builtinACL(acl []ACLItem, public, all aclMode) []ACLItem {
	if acl != nil {
		return acl
	}
	return []ACLItem{{Grantor: oidSuperuser, Privs: public}, {Grantee: oidSuperuser, Grantor: oidSuperuser, Privs: all}}
}

// aclTypeOID is the type whose ACL governs type oid: an array's element
// type, else itself.
func aclTypeOID(oid uint32) uint32 {
	if t, ok := repr.FromOID(oid); ok && t.Family == repr.FamArray && !t.Vector {
		return t.ElemType().OID()
	}
	return oid
}

// sig is p's regprocedure text, name(argument types), its ACL's key.
func (p *procInfo) sig() string { return p.name + "(" + p.argNames() + ")" }

// procsNamed are the built-in functions by name, all overloads.
var procsNamed = func() map[string][]*procInfo {
	out := map[string][]*procInfo{}
	for _, p := range procs {
		out[p.name] = append(out[p.name], p)
	}
	return out
}()

// restoreObjectACLs loads the stored ACLs.
func (e *Engine) restoreObjectACLs() error {
	v, ok, err := e.db.Get(metaObjectACLs)
	if err != nil || !ok {
		return err
	}
	return json.Unmarshal(v, &e.cat.objACLs)
}

// persistObjectACLs writes o to b.
func persistObjectACLs(o *objectACLs, b *storage.Batch) error {
	v, err := json.Marshal(o)
	if err != nil {
		return err
	}
	b.Set(metaObjectACLs, v)
	return nil
}

// otherTarget is a GRANT's function, type or database (aclTarget.other).
type otherTarget struct {
	kind, name string // as "permission denied for <kind> <name>" names it
	proc       *procInfo
	typ        uint32
	all        aclMode
	acl        []ACLItem // the effective ACL
	owner      uint32    // a composite type's owner; 0 for built-ins
}

// set stores acl as the target's in o.
func (t *otherTarget) set(o *objectACLs, acl []ACLItem) {
	switch {
	case t.proc != nil:
		if o.Funcs == nil {
			o.Funcs = map[string][]ACLItem{}
		}
		o.Funcs[t.proc.sig()] = acl
	case t.typ != 0:
		if o.Types == nil {
			o.Types = map[uint32][]ACLItem{}
		}
		o.Types[t.typ] = acl
	default:
		o.DB = acl
	}
}

// otherTargets resolves the objects of GRANT ON FUNCTION | PROCEDURE |
// ROUTINE | TYPE | DOMAIN | DATABASE and ALL FUNCTIONS | ROUTINES IN
// SCHEMA; ok is false for other kinds. The caller holds the engine's
// lock.
func (e *Engine) otherTargets(gs *pg.GrantStmt) (out []aclTarget, ok bool, err error) {
	acls := e.cat.objACLs
	switch gs.Objtype {
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
		var ps []*procInfo
		var objs []*pg.Node
		if gs.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
			ps, err = e.allProcsIn(gs)
			out = e.sqlFunctionTargetsIn(gs)
		} else if out, objs, err = e.sqlFunctionTargets(gs.Objects, gs.Objtype); err == nil && len(objs) > 0 {
			ps, err = lookupProcs(objs, gs.Objtype)
		}
		for _, p := range ps {
			out = append(out, aclTarget{other: &otherTarget{kind: "function", name: p.name, proc: p, all: privExecute, acl: acls.funcACL(p)}})
		}
		return out, true, err
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		for _, n := range gs.Objects {
			if ct, ok := e.cat.compositeTypeByText(strings.Join(listStrings(n), "."), func(string) string { return "" }); ok {
				if ct.Family == repr.FamArray {
					return nil, true, repr.Errorf(codeInvalidPrivType, "cannot set privileges of array types").
						WithHint("Set the privileges of the element type instead.")
				}
				o := e.cat.userTypeByOID(userTypeOID(ct))
				out = append(out, aclTarget{other: &otherTarget{kind: "type", name: e.cat.typeName(ct), typ: userTypeOID(ct),
					all: privUsage, acl: acls.compositeTypeACL(o), owner: o.Owner}})
				continue
			}
			t, err := grantType(n, gs.Objtype == pg.ObjectType_OBJECT_DOMAIN)
			if err != nil {
				return nil, true, err
			}
			out = append(out, aclTarget{other: &otherTarget{kind: "type", name: t.Name(), typ: t.OID(), all: privUsage, acl: acls.typeACL(t.OID())}})
		}
		return out, true, nil
	case pg.ObjectType_OBJECT_DATABASE:
		for _, n := range gs.Objects {
			name := n.GetString_().GetSval()
			if err := DatabaseExists(name); err != nil {
				return nil, true, err
			}
			out = append(out, aclTarget{other: &otherTarget{kind: "database", name: name, all: allDBPrivs, acl: acls.dbACL()}})
		}
		return out, true, nil
	}
	return nil, false, nil
}

// allProcsIn is ALL FUNCTIONS | ROUTINES IN SCHEMA names: every built-in
// function of pg_catalog (the other schemas hold none, nor any
// procedure).
func (e *Engine) allProcsIn(gs *pg.GrantStmt) ([]*procInfo, error) {
	var out []*procInfo
	for _, n := range gs.Objects {
		name := n.GetString_().GetSval()
		if e.cat.schemas[name] == nil {
			return nil, repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		if name == nsPgCatalog && gs.Objtype != pg.ObjectType_OBJECT_PROCEDURE {
			out = append(out, procs...)
		}
	}
	return out, nil
}

// lookupProcs resolves GRANT's function names, each with its argument
// types or, without them, the only function of that name.
func lookupProcs(objs []*pg.Node, kind pg.ObjectType) ([]*procInfo, error) {
	var out []*procInfo
	for _, n := range objs {
		ow := n.GetObjectWithArgs()
		name, err := procName(ow.Objname)
		if err != nil {
			return nil, err
		}
		if kind == pg.ObjectType_OBJECT_PROCEDURE && len(procsNamed[name]) > 0 {
			return nil, repr.Errorf(repr.CodeWrongObjectType, "%s is not a procedure", name)
		}
		if ow.ArgsUnspecified {
			p, err := uniqueProc(name)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
			continue
		}
		args := make([]uint32, len(ow.Objargs))
		for i, a := range ow.Objargs {
			if args[i], err = argTypeOID(a.GetTypeName()); err != nil {
				return nil, err
			}
		}
		p := procWithArgs(name, args)
		if p == nil {
			return nil, repr.Errorf(repr.CodeUndefinedFunction, "function %s(%s) does not exist", name, typeListNames(args))
		}
		out = append(out, p)
	}
	return out, nil
}

// procName is a function's name, unqualified (pg_catalog holds them all).
func procName(names []*pg.Node) (string, error) {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n.GetString_().GetSval()
	}
	if len(parts) == 2 && parts[0] != nsPgCatalog || len(parts) > 2 || len(parts) == 0 {
		return "", repr.Errorf(repr.CodeUndefinedFunction, "function %s does not exist", strings.Join(parts, "."))
	}
	return parts[len(parts)-1], nil
}

// uniqueProc is the one function named name (42883 if none, 42725 if
// several).
func uniqueProc(name string) (*procInfo, error) {
	switch ps := procsNamed[name]; len(ps) {
	case 0:
		return nil, repr.Errorf(repr.CodeUndefinedFunction, "could not find a function named \"%s\"", name)
	case 1:
		return ps[0], nil
	}
	return nil, repr.Errorf("42725", "function name \"%s\" is not unique", name).
		WithHint("Specify the argument list to select the function unambiguously.")
}

// procWithArgs is the function name(args), or nil.
func procWithArgs(name string, args []uint32) *procInfo {
	for _, p := range procsNamed[name] {
		if slices.Equal(p.args, args) {
			return p
		}
	}
	return nil
}

// argTypeOID is the OID of a function argument's type name (pseudo-types
// included).
func argTypeOID(tn *pg.TypeName) (uint32, error) {
	if len(tn.ArrayBounds) == 0 {
		last := tn.Names[len(tn.Names)-1].GetString_().GetSval()
		if oid, ok := pseudoTypeOID(last); ok {
			return oid, nil
		}
	}
	t, err := typeFromName(tn)
	return t.OID(), err
}

// grantType resolves GRANT ON TYPE | DOMAIN's name: arrays are refused
// (their element type carries their privileges), and, Eddy having no
// domains, every DOMAIN name.
func grantType(n *pg.Node, domain bool) (repr.T, error) {
	var parts []string
	for _, it := range n.GetList().GetItems() {
		parts = append(parts, it.GetString_().GetSval())
	}
	name := strings.Join(parts, ".")
	t, err := repr.TypeByName(strings.TrimPrefix(name, "pg_catalog."), nil)
	switch {
	case err != nil:
		return t, repr.Errorf(repr.CodeUndefinedObject, "type \"%s\" does not exist", name)
	case domain:
		return t, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a domain", name)
	case t.Family == repr.FamArray && !t.Vector:
		return t, repr.Errorf(codeInvalidPrivType, "cannot set privileges of array types").
			WithHint("Set the privileges of the element type instead.")
	}
	return t, nil
}

// typeNameText is a type name's dotted text with "[]" for an array.
func typeNameText(tn *pg.TypeName) string {
	parts := make([]string, len(tn.Names))
	for i, n := range tn.Names {
		parts[i] = n.GetString_().GetSval()
	}
	s := strings.Join(parts, ".")
	if len(tn.ArrayBounds) > 0 {
		s += "[]"
	}
	return s
}

// checkObjectNeed checks a statement's need n for EXECUTE on the
// functions named n.fn or USAGE on type n.typ; the caller holds the
// engine's lock.
func (e *Engine) checkObjectNeed(role string, n privNeed) error {
	acls := e.cat.objACLs
	if acls == nil {
		return nil
	}
	if ct := e.cat.userTypeByOID(n.typ); ct != nil {
		if p, _ := e.rolePrivs(role, acls.compositeTypeACL(ct), ct.Owner, privUsage); p&privUsage == 0 {
			return repr.Errorf(codeInsufficientPrivilege, "permission denied for type %s", ct.Name)
		}
		return nil
	}
	if n.typ != 0 {
		if p, _ := e.rolePrivs(role, acls.typeACL(n.typ), 0, privUsage); p&privUsage == 0 {
			name := repr.Unknown.Name()
			if t, ok := repr.FromOID(aclTypeOID(n.typ)); ok {
				name = t.Name()
			}
			return repr.Errorf(codeInsufficientPrivilege, "permission denied for type %s", name)
		}
		return nil
	}
	if len(acls.Funcs) == 0 {
		return nil
	}
	called := procsCalled(n.fn, n.nargs)
	if p := procBySigText(n.sig); p != nil {
		called = []*procInfo{p}
	}
	for _, p := range called {
		if acls.Funcs[p.sig()] == nil {
			continue
		}
		if held, _ := e.rolePrivs(role, acls.funcACL(p), 0, privExecute); held&privExecute == 0 {
			return repr.Errorf(codeInsufficientPrivilege, "permission denied for function %s", p.name)
		}
	}
	return nil
}

// procBySigText is the built-in function with regprocedure text sig
// (nil: none, or sig is empty).
func procBySigText(sig string) *procInfo {
	if sig == "" {
		return nil
	}
	name, _, _ := strings.Cut(sig, "(")
	for _, p := range procsNamed[name] {
		if p.sig() == sig {
			return p
		}
	}
	return nil
}

// callNeeds replaces the EXECUTE needs that binding read off a
// statement's AST (name and arity: it may refuse, never wrongly admit)
// with those of the calls and casts its planning resolved
// (planner.Options.Calls): each overload by its signature, so revoking
// f(text) leaves f(integer) callable, the function of each cast
// (castproc.go), and the functions of the views it reads, which
// PostgreSQL checks against the role that queries the view. A variadic
// function's resolved arguments are not its pg_proc signature: it stays
// checked by name and arity.
func callNeeds(needs []privNeed, calls []planner.Call) []privNeed {
	out := slices.DeleteFunc(slices.Clone(needs), func(n privNeed) bool { return n.fn != "" })
	seen := map[string]bool{}
	for i, c := range calls {
		if i > 0 && sameCall(calls[i-1], c) {
			continue // the same needs: an IN list's thousand = calls
		}
		for _, n := range callNeedsOf(c) {
			out = appendNeed(out, seen, n)
		}
	}
	return out
}

// sameCall reports whether a and b are the same function (or cast) for
// the same argument types, so that callNeedsOf returns the same needs for
// both.
func sameCall(a, b planner.Call) bool {
	return a.Fn == b.Fn && a.SQLFunction == b.SQLFunction && slices.Equal(a.From, b.From) && slices.Equal(a.To, b.To)
}

// callNeedsOf are the EXECUTE needs of one call or cast: the function
// PostgreSQL applies for its argument types as written (a cross-type
// operator, crossOperatorProcs), or else the overload planning resolved
// and the functions of the casts of its arguments to that overload's
// types.
func callNeedsOf(c planner.Call) []privNeed {
	if c.SQLFunction != 0 {
		return []privNeed{{id: c.SQLFunction, priv: privExecute}}
	}
	if c.Fn == nil {
		return castNeeds(c.From, c.To)
	}
	if p, ok := crossOperatorProc(c); ok {
		return []privNeed{{fn: p.name, nargs: 2, sig: p.sig()}}
	}
	if n, ok := concatNeeds(c); ok {
		return n
	}
	out := castNeeds(c.From, c.To)
	f := c.Fn
	if p, ok := operatorProc(f); ok {
		return append(out, privNeed{fn: p.name, nargs: len(f.Args), sig: p.sig()})
	}
	if procsNamed[f.Name] == nil {
		return out // a syntax form's function, or an operator PostgreSQL has no such overload of
	}
	n := privNeed{fn: f.Name, nargs: len(f.Args)}
	if !expr.IsVariadic(f.Name) {
		args := make([]uint32, len(f.Args))
		for i, a := range f.Args {
			args[i] = argOID(a, f.Polymorphic())
		}
		n.sig = f.Name + "(" + typeListNames(args) + ")"
	}
	return append(out, n)
}

// castNeeds are the EXECUTE needs of casting values of types from to
// types to: the functions of those casts that have one.
func castNeeds(from, to []repr.T) []privNeed {
	var out []privNeed
	for i := range min(len(from), len(to)) {
		if from[i] == to[i] {
			continue
		}
		if p := castProc(from[i].OID(), to[i].OID()); p != nil {
			out = append(out, privNeed{fn: p.name, nargs: 1, sig: p.sig()})
		}
	}
	return out
}

// crossOperatorProc is the function of the operator PostgreSQL has for
// the argument types of c as written (crossOperatorProcs); ok is false
// when c is no operator or those types are not such an operator's.
func crossOperatorProc(c planner.Call) (*procInfo, bool) {
	if len(c.From) != 2 || c.Fn.Polymorphic() {
		return nil, false
	}
	sig := opSig{name: c.Fn.Name, left: written(c, 0).OID(), right: written(c, 1).OID()}
	op, ok := crossOperatorProcs[sig]
	if !ok {
		return nil, false
	}
	p := procByOID(op.oid)
	return p, p != nil
}

// appendNeed appends the EXECUTE need n to needs unless seen has it.
func appendNeed(needs []privNeed, seen map[string]bool, n privNeed) []privNeed {
	key := n.fn + "/" + n.sig + "/" + itoa(n.nargs)
	if seen[key] {
		return needs
	}
	seen[key] = true
	return append(needs, n)
}

// operatorProc is the function behind the operator overload f resolves
// to (oprproc.go); ok is false when f is no operator or has none.
func operatorProc(f *expr.Func) (*procInfo, bool) {
	if len(f.Args) == 0 || len(f.Args) > 2 || f.Polymorphic() {
		return nil, false
	}
	sig := opSig{name: f.Name, right: argOID(f.Args[len(f.Args)-1], false)}
	if len(f.Args) == 2 {
		sig.left = argOID(f.Args[0], false)
	}
	op, ok := operatorProcs[sig]
	if !ok {
		return nil, false
	}
	p := procByOID(op.oid)
	return p, p != nil
}

// written is the type of c's argument i as PostgreSQL resolves its
// operator: as written, an untyped literal as what it was cast to
// (bpchar LIKE 'a%' is bpcharlike(character, text)).
func written(c planner.Call, i int) repr.T {
	if c.From[i].Family == repr.FamUnknown && i < len(c.To) {
		return c.To[i]
	}
	return c.From[i]
}

// procsCalled are the overloads a call of name with nargs arguments may
// resolve to: those taking nargs, or every one when none does (a
// variadic function).
func procsCalled(name string, nargs int) []*procInfo {
	all := procsNamed[name]
	var out []*procInfo
	for _, p := range all {
		if len(p.args) == nargs {
			out = append(out, p)
		}
	}
	if out == nil {
		return all
	}
	return out
}

// CheckConnect refuses a login of user to database unless the role holds
// CONNECT on it (42501, as PostgreSQL's).
func (e *Engine) CheckConnect(user, database string) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if p, _ := e.rolePrivs(user, e.cat.objACLs.dbACL(), 0, allDBPrivs); p&privConnect != 0 {
		return nil
	}
	return repr.Errorf(codeInsufficientPrivilege, "permission denied for database %s", database).
		WithDetail("User does not have CONNECT privilege.")
}

// hasDatabasePriv reports whether role holds priv on the database; the
// caller holds the engine's lock.
func (e *Engine) hasDatabasePriv(role string, priv aclMode) bool {
	p, _ := e.rolePrivs(role, e.cat.objACLs.dbACL(), 0, allDBPrivs)
	return p&priv == priv
}

// withoutRoles returns o without the grants to the roles (DROP OWNED;
// withoutRoles), nil when nothing changes.
func (o *objectACLs) withoutRoles(roles map[uint32]bool) *objectACLs {
	if o == nil {
		return nil
	}
	nu, changed := o.clone(), false
	for k, acl := range o.Funcs {
		if a, ch := withoutRoles(acl, roles); ch {
			nu.Funcs[k], changed = a, true
		}
	}
	for k, acl := range o.Types {
		if a, ch := withoutRoles(acl, roles); ch {
			nu.Types[k], changed = a, true
		}
	}
	if a, ch := withoutRoles(o.DB, roles); ch {
		nu.DB, changed = a, true
	}
	if !changed {
		return nil
	}
	return nu
}

// roleDependents are DROP ROLE's "privileges for" lines of the
// functions, types and database whose ACLs name role.
func (o *objectACLs) roleDependents(role uint32) []roleDep {
	if o == nil {
		return nil
	}
	var out []roleDep
	if aclNames(o.DB, role) {
		out = append(out, roleDep{oid: oidDatabase, desc: "database " + Databases[0]})
	}
	for _, p := range procs {
		if aclNames(o.Funcs[p.sig()], role) {
			out = append(out, roleDep{oid: p.oid, desc: "function " + p.sig()})
		}
	}
	for oid, acl := range o.Types {
		if t, ok := repr.FromOID(oid); ok && aclNames(acl, role) {
			out = append(out, roleDep{oid: oid, desc: "type " + t.Name()})
		}
	}
	return out
}

// call records that a query calls fc (EXECUTE on a built-in function of
// that name, checked at run time).
func (q *qualifier) call(fc *pg.FuncCall) {
	if q.priv == 0 {
		return
	}
	name, err := procName(fc.Funcname)
	if err != nil || procsNamed[name] == nil {
		return
	}
	q.needs = append(q.needs, privNeed{fn: name, nargs: len(fc.Args)})
}

// columnTypes records that a statement declares columns of the types of
// the column definitions among defs (USAGE on each).
func (q *qualifier) columnTypes(defs []*pg.Node) {
	for _, d := range defs {
		cd := d.GetColumnDef()
		if cd == nil || cd.TypeName == nil {
			continue
		}
		if t, err := typeFromName(cd.TypeName); err == nil {
			q.needs = append(q.needs, privNeed{typ: t.OID()})
		} else if ct, ok := q.cat.compositeTypeByText(typeNameText(cd.TypeName), func(name string) string { return q.s.typeSchema(q.cat, name) }); ok {
			if ct.Family == repr.FamArray {
				ct = ct.ElemType()
			}
			q.needs = append(q.needs, privNeed{typ: ct.Composite})
		}
	}
}

// compositeOfPrivArg is the composite type has_type_privilege names (by
// name on the session's search path, or by OID, an array's its element
// type), nil when it names none.
func (c sessionCatalog) compositeOfPrivArg(s *sysSnap, obj repr.Datum, byName bool) *Object {
	if !byName {
		return s.cat.userTypeByOID(aclCompositeOID(s.cat, uint32(obj.Int())))
	}
	ct, ok := s.cat.compositeTypeByText(obj.Text(), func(name string) string { return c.s.typeSchema(s.cat, name) })
	if !ok {
		return nil
	}
	if ct.Family == repr.FamArray {
		ct = ct.ElemType()
	}
	return s.cat.userTypeByOID(userTypeOID(ct))
}

// aclCompositeOID maps a composite array type's OID to its element's.
func aclCompositeOID(cat *Catalog, oid uint32) uint32 {
	if t, ok := cat.compositeTypeByOID(oid); ok && t.Family == repr.FamArray {
		return userTypeOID(t.ElemType())
	}
	return oid
}

// heldOtherPrivs is heldPrivs for a function (regprocedure text or
// OID), a type (name or OID) or the database (name or OID); ok is false
// for an unknown OID (NULL).
func (c sessionCatalog) heldOtherPrivs(s *sysSnap, kind privKind, obj repr.Datum, role string) (held, grantable aclMode, ok bool, err error) {
	byName := obj.Family() == repr.FamText
	var acl []ACLItem
	all := privKindAll[kind]
	switch kind {
	case privOnFunction:
		if o := c.sqlFunctionOf(s, obj); o != nil {
			p, g := c.s.e.rolePrivs(role, relACL(o), o.Owner, privExecute)
			return p, g, true, nil
		}
		var p *procInfo
		if byName {
			if p, err = procBySig(obj.Text()); err != nil {
				return 0, 0, false, err
			}
		} else if p = procByOID(uint32(obj.Int())); p == nil {
			return 0, 0, false, nil
		}
		acl = s.cat.objACLs.funcACL(p)
	case privOnType:
		if ct := c.compositeOfPrivArg(s, obj, byName); ct != nil {
			p, g := c.s.e.rolePrivs(role, s.cat.objACLs.compositeTypeACL(ct), ct.Owner, privUsage)
			return p, g, true, nil
		}
		oid := uint32(obj.Int())
		if byName {
			t, err := repr.TypeByName(strings.TrimSpace(obj.Text()), nil)
			if err != nil {
				return 0, 0, false, err
			}
			oid = t.OID()
		} else if _, known := repr.FromOID(oid); !known {
			return 0, 0, false, nil
		}
		acl = s.cat.objACLs.typeACL(oid)
	default:
		if byName {
			if err := DatabaseExists(obj.Text()); err != nil {
				return 0, 0, false, err
			}
		} else if uint32(obj.Int()) != oidDatabase {
			return 0, 0, false, nil
		}
		acl = s.cat.objACLs.dbACL()
	}
	p, g := c.s.e.rolePrivs(role, acl, 0, all)
	return p, g, true, nil
}

// procBySig resolves regprocedure text, name(type, ...) (42883 when no
// function matches; the type I/O functions, whose arguments pg_proc does
// not list, match by name); a name alone must be unique.
func procBySig(sig string) (*procInfo, error) {
	name, args, hasArgs := strings.Cut(strings.TrimSpace(sig), "(")
	name = strings.TrimPrefix(strings.TrimSpace(name), "pg_catalog.")
	if !hasArgs {
		return uniqueProc(name)
	}
	args = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(args), ")"))
	var oids []uint32
	if args != "" {
		for _, a := range splitTypeList(args) {
			oid, ok := pseudoTypeOID(a)
			if !ok {
				t, err := repr.TypeByName(strings.TrimSpace(a), nil)
				if err != nil {
					return nil, err
				}
				oid = t.OID()
			}
			oids = append(oids, oid)
		}
	}
	if p := procWithArgs(name, oids); p != nil {
		return p, nil
	}
	if p := procsNamed[name]; len(p) == 1 && ioProcs[name] != 0 {
		return p[0], nil // a type I/O function: pg_proc lists no arguments
	}
	return nil, repr.Errorf(repr.CodeUndefinedFunction, "function \"%s\" does not exist", sig)
}

// splitTypeList splits a list of type names at the commas outside
// parentheses (numeric(10, 2)).
func splitTypeList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
