package sql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// GRANT and REVOKE of object privileges, and ALTER ... OWNER TO.

// codeInvalidGrant is PostgreSQL's invalid_grant_operation.
const codeInvalidPrivType = "0LP01"

// privNames are the SQL names of the privilege bits, in bit order.
var privNames = []string{"INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "EXECUTE", "USAGE", "CREATE", "TEMPORARY", "CONNECT"}

// privByName returns the privilege named name (any case; TEMP is
// TEMPORARY).
func privByName(name string) (aclMode, bool) {
	if strings.EqualFold(name, "TEMP") {
		return privTemporary, true
	}
	for i, n := range privNames {
		if strings.EqualFold(n, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// aclTarget is one object a GRANT or REVOKE changes: a relation, a
// schema, or a function, type or database (other, objacl.go).
type aclTarget struct {
	obj    *Object
	schema *Schema
	other  *otherTarget
}

func (t aclTarget) owner() uint32 {
	switch {
	case t.obj != nil:
		return t.obj.Owner
	case t.schema != nil:
		return t.schema.Owner
	}
	return t.other.owner // 0: the bootstrap superuser's
}

// all is every privilege t can carry.
func (t aclTarget) all() aclMode {
	switch {
	case t.obj != nil:
		return relAllPrivs(t.obj)
	case t.schema != nil:
		return allSchemaPrivs
	}
	return t.other.all
}

func (t aclTarget) acl() []ACLItem {
	switch {
	case t.obj != nil:
		return relACL(t.obj)
	case t.schema != nil:
		return schemaACL(t.schema)
	}
	return t.other.acl
}

// kindAndName are the words of "permission denied for <kind> <name>".
func (t aclTarget) kindAndName() (string, string) {
	switch {
	case t.obj != nil:
		return kindName(t.obj.Kind), t.obj.Name
	case t.schema != nil:
		return "schema", t.schema.Name
	}
	return t.other.kind, t.other.name
}

// execGrant executes GRANT/REVOKE privileges ON [TABLE] names | ALL
// TABLES | SEQUENCES | FUNCTIONS | ROUTINES IN SCHEMA names | SCHEMA |
// SEQUENCE | FUNCTION | PROCEDURE | ROUTINE | TYPE | DOMAIN | DATABASE
// names TO/FROM roles [WITH GRANT OPTION] [GRANTED BY role].
func (p *Portal) execGrant(gs *pg.GrantStmt) error {
	p.tag = map[bool]string{true: "GRANT", false: "REVOKE"}[gs.IsGrant]
	s, e := p.st.s, p.st.s.e
	all, err := grantKindPrivs(gs.Objtype)
	if err != nil {
		return err
	}
	if gs.Targtype == pg.GrantTargetType_ACL_TARGET_DEFAULTS {
		return repr.Unsupported("ALTER DEFAULT PRIVILEGES")
	}
	if err := p.checkGrantor(gs.Grantor); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// PostgreSQL's order: the objects, the grantees, the privileges.
	targets, err := e.aclTargets(gs)
	if err != nil {
		return err
	}
	grantees, err := p.grantees(gs.Grantees)
	if err != nil {
		return err
	}
	privs, err := grantPrivs(gs.Privileges, all, gs.Objtype)
	if err != nil {
		return err
	}
	cols, err := columnGrants(gs.Privileges)
	if err != nil {
		return err
	}
	caller, _ := e.role(s.currentUser())
	var pairs [][2]*Object
	var schemas []*Schema
	var others *objectACLs
	for _, t := range targets {
		tp, err := s.targetPrivs(t, privs, len(gs.Privileges) == 0 || privs == all)
		if err != nil {
			return err
		}
		if t.other != nil {
			acl, err := e.changeACL(s, caller, t, t.all(), tp, grantees, gs)
			if err != nil {
				return err
			}
			if others == nil {
				others = e.cat.objACLs.clone()
			}
			t.other.set(others, acl)
			continue
		}
		if t.schema != nil {
			c := *t.schema
			if c.ACL, err = e.changeACL(s, caller, t, t.all(), tp, grantees, gs); err != nil {
				return err
			}
			schemas = append(schemas, &c)
			continue
		}
		nu, err := e.grantOnRelation(s, caller, t, tp, cols, grantees, gs)
		if err != nil {
			return err
		}
		pairs = append(pairs, [2]*Object{t.obj, nu})
	}
	return e.commitReplaced(pairs, schemas, others)
}

// checkGrantor checks GRANTED BY: PostgreSQL 15 takes only the current
// user (0A000 otherwise).
func (p *Portal) checkGrantor(rs *pg.RoleSpec) error {
	if rs == nil {
		return nil
	}
	name := p.roleSpecName(rs)
	if _, ok := p.st.s.e.role(name); !ok {
		return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", name)
	}
	if name != p.st.s.currentUser() {
		return repr.Errorf(repr.CodeFeatureNotSupported, "grantor must be current user")
	}
	return nil
}

// grantOnRelation returns relation t.obj after a GRANT or REVOKE of
// privs on it and of the column items cols on its columns (a
// relation-level REVOKE also revokes them from the columns).
func (e *Engine) grantOnRelation(s *Session, caller Role, t aclTarget, privs aclMode, cols []colGrant, grantees []uint32, gs *pg.GrantStmt) (*Object, error) {
	nu := t.obj.clone()
	if privs != 0 || len(cols) == 0 {
		acl, err := e.changeACL(s, caller, t, t.all(), privs, grantees, gs)
		if err != nil {
			return nil, err
		}
		nu.ACL = acl
	}
	if len(cols) == 0 && (gs.IsGrant || privs&allColumnPrivs == 0) {
		return nu, nil
	}
	grantor := ownerOID(t.obj.Owner)
	if !e.isMemberOf(s.currentUser(), grantor) {
		grantor = caller.OID
		if _, g := e.rolePrivs(s.currentUser(), relACL(t.obj), t.obj.Owner, allTablePrivs); g == 0 && len(cols) > 0 {
			return nil, repr.Errorf(codeInsufficientPrivilege, "permission denied for table %s", t.obj.Name)
		}
	}
	var err error
	nu.Columns, err = changeColumnACLs(t.obj, cols, privs, grantor, grantees, gs)
	return nu, err
}

// grantKindPrivs is every privilege GRANT ON <kind> may name: ON TABLE
// also takes the sequence privileges, checked per object (targetPrivs).
func grantKindPrivs(kind pg.ObjectType) (aclMode, error) {
	switch kind {
	case pg.ObjectType_OBJECT_SCHEMA:
		return allSchemaPrivs, nil
	case pg.ObjectType_OBJECT_SEQUENCE:
		return allSeqPrivs, nil
	case pg.ObjectType_OBJECT_TABLE:
		return allTablePrivs | allSeqPrivs, nil
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
		return privExecute, nil
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		return privUsage, nil
	case pg.ObjectType_OBJECT_DATABASE:
		return allDBPrivs, nil
	}
	return 0, repr.Unsupported("GRANT ON %s", strings.TrimPrefix(kind.String(), "OBJECT_"))
}

// targetPrivs narrows a GRANT ON TABLE's privileges to what target t
// carries: ALL is all of them; a sequence drops the others with
// PostgreSQL's warning, a table refuses USAGE (0LP01).
func (s *Session) targetPrivs(t aclTarget, privs aclMode, all bool) (aclMode, error) {
	if t.obj == nil {
		return privs, nil
	}
	own := relAllPrivs(t.obj)
	switch {
	case all:
		return own, nil
	case privs&^own == 0:
		return privs, nil
	case t.obj.Kind == relSequence:
		s.notify(repr.Errorf("01007", "sequence \"%s\" only supports USAGE, SELECT, and UPDATE privileges", t.obj.Name))
		return privs & own, nil
	}
	return 0, repr.Errorf(codeInvalidPrivType, "invalid privilege type USAGE for table")
}

// grantPrivs reads a privilege list (nil is ALL) as a set valid for the
// object kind (0LP01 otherwise).
func grantPrivs(list []*pg.Node, all aclMode, kind pg.ObjectType) (aclMode, error) {
	if len(list) == 0 {
		return all, nil
	}
	var out aclMode
	for _, n := range list {
		ap := n.GetAccessPriv()
		if len(ap.Cols) > 0 {
			continue // a column privilege (columnGrants)
		}
		if ap.PrivName == "" { // ALL [PRIVILEGES]
			out |= all
			continue
		}
		b, ok := privByName(ap.PrivName)
		if !ok || b&all == 0 {
			return 0, repr.Errorf(codeInvalidPrivType, "invalid privilege type %s for %s", strings.ToUpper(ap.PrivName), grantKindWord(kind))
		}
		out |= b
	}
	return out, nil
}

// grantKindWord names an object kind in GRANT's errors.
func grantKindWord(kind pg.ObjectType) string {
	switch kind {
	case pg.ObjectType_OBJECT_TABLE:
		return "table"
	case pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_FUNCTION,
		pg.ObjectType_OBJECT_SCHEMA, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_TYPE,
		pg.ObjectType_OBJECT_DOMAIN, pg.ObjectType_OBJECT_DATABASE:
		return strings.ToLower(strings.TrimPrefix(kind.String(), "OBJECT_"))
	}
	return "table"
}

// grantees resolves the grantee list to role OIDs (0 is PUBLIC).
func (p *Portal) grantees(list []*pg.Node) ([]uint32, error) {
	var out []uint32
	for _, n := range list {
		rs := n.GetRoleSpec()
		if rs.Roletype == pg.RoleSpecType_ROLESPEC_PUBLIC {
			out = append(out, 0)
			continue
		}
		name := p.roleSpecName(rs)
		r, ok := p.st.s.e.role(name)
		if !ok {
			return nil, repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", name)
		}
		out = append(out, r.OID)
	}
	return out, nil
}

// aclTargets resolves a GRANT's objects (under the engine's lock).
func (e *Engine) aclTargets(gs *pg.GrantStmt) ([]aclTarget, error) {
	if out, ok, err := e.otherTargets(gs); ok {
		return out, err
	}
	var out []aclTarget
	for _, n := range gs.Objects {
		switch {
		case gs.Objtype == pg.ObjectType_OBJECT_SCHEMA || gs.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
			name := n.GetString_().GetSval()
			sc := e.cat.schemas[name]
			if sc == nil {
				return nil, repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if gs.Objtype == pg.ObjectType_OBJECT_SCHEMA {
				out = append(out, aclTarget{schema: sc})
				continue
			}
			seqs := gs.Objtype == pg.ObjectType_OBJECT_SEQUENCE
			for _, o := range e.cat.objectsIn(name) {
				if o.Kind != relIndex && (o.Kind == relSequence) == seqs {
					out = append(out, aclTarget{obj: o})
				}
			}
		default:
			rv := n.GetRangeVar()
			o := e.cat.lookup(rv.Schemaname, rv.Relname)
			if o == nil || rv.Schemaname == "" {
				return nil, repr.ErrUndefinedTable.New(rv.Relname)
			}
			switch {
			case o.Kind == relIndex:
				return nil, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is an index", o.Name)
			case gs.Objtype == pg.ObjectType_OBJECT_SEQUENCE && o.Kind != relSequence:
				return nil, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a sequence", o.Name)
			}
			if isSystemRelation(o.ID) {
				return nil, repr.Errorf(codeInsufficientPrivilege, "permission denied: \"%s\" is a system relation", o.Name)
			}
			out = append(out, aclTarget{obj: o})
		}
	}
	return out, nil
}

// changeACL returns t's ACL after the grant or revoke. A member of the
// owner acts as the owner; another role may grant only what it holds
// with grant option, as its own grantor.
func (e *Engine) changeACL(s *Session, caller Role, t aclTarget, all, privs aclMode, grantees []uint32, gs *pg.GrantStmt) ([]ACLItem, error) {
	if t.schema != nil && t.schema.system {
		return nil, repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", t.schema.Name)
	}
	grantor := ownerOID(t.owner())
	if !e.isMemberOf(s.currentUser(), grantor) {
		held, grantable := e.rolePrivs(s.currentUser(), t.acl(), t.owner(), all)
		if held == 0 {
			kind, name := t.kindAndName()
			return nil, repr.Errorf(codeInsufficientPrivilege, "permission denied for %s %s", kind, name)
		}
		// Without grant option nothing is granted.
		_, name := t.kindAndName()
		s.warnUngranted(gs.IsGrant, privs, privs&grantable, privs == all, name)
		privs &= grantable
		grantor = caller.OID
	}
	acl := append([]ACLItem(nil), t.acl()...)
	for _, g := range grantees {
		acl = applyACL(acl, g, grantor, privs, gs.IsGrant, gs.GrantOption)
		if !gs.IsGrant && g != 0 {
			var err error
			if acl, err = revokeDependent(acl, g, privs, gs.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
				return nil, err
			}
		}
	}
	return acl, nil
}

// warnUngranted warns, as PostgreSQL's restrict_and_check_grant, when a
// GRANT or REVOKE by a role that is not the owner changes fewer of the
// privileges asked (the others lacking its grant option) than named.
func (s *Session) warnUngranted(grant bool, asked, done aclMode, all bool, name string) {
	words := map[bool][2]string{true: {"no privileges were granted", "not all privileges were granted"},
		false: {"no privileges could be revoked", "not all privileges could be revoked"}}[grant]
	code := map[bool]string{true: "01007", false: "01006"}[grant] // privilege not granted / revoked
	switch {
	case done == 0:
		s.notify(repr.Errorf(code, "%s for \"%s\"", words[0], name))
	case !all && done != asked:
		s.notify(repr.Errorf(code, "%s for \"%s\"", words[1], name))
	}
}

// revokeDependent handles the grants that grantor made of privs once it
// lost their grant option: 2BP01 without CASCADE, else they are revoked
// too (and theirs, transitively).
func revokeDependent(acl []ACLItem, grantor uint32, privs aclMode, cascade bool) ([]ACLItem, error) {
	for _, a := range acl {
		lost := privs
		for _, b := range acl {
			if b.Grantee == grantor {
				lost &^= b.Grantable // still held with grant option from another grantor
			}
		}
		if a.Grantor != grantor || a.Grantee == grantor || a.Privs&lost == 0 {
			continue
		}
		if !cascade {
			return nil, repr.Errorf(repr.CodeDependentObjects, "dependent privileges exist").
				WithHint("Use CASCADE to revoke them too.")
		}
		next := applyACL(acl, a.Grantee, grantor, a.Privs&lost, false, false)
		var err error
		if a.Grantee != 0 {
			next, err = revokeDependent(next, a.Grantee, a.Privs&lost, true)
		}
		return revokeDependentRest(next, err, grantor, privs)
	}
	return acl, nil
}

// revokeDependentRest continues revokeDependent after one dependent
// grant was revoked (the list changed under the loop).
func revokeDependentRest(acl []ACLItem, err error, grantor uint32, privs aclMode) ([]ACLItem, error) {
	if err != nil {
		return nil, err
	}
	return revokeDependent(acl, grantor, privs, true)
}

// applyACL grants or revokes privs for grantee as granted by grantor:
// a grant adds to (or appends) their item, with grant option also to
// its grantable set; a revoke removes the privileges (or, REVOKE GRANT
// OPTION FOR, only their grant option), dropping an emptied item.
func applyACL(acl []ACLItem, grantee, grantor uint32, privs aclMode, grant, option bool) []ACLItem {
	i := 0
	for i < len(acl) && (acl[i].Grantee != grantee || acl[i].Grantor != grantor) {
		i++
	}
	if i == len(acl) {
		if !grant {
			return acl
		}
		acl = append(acl, ACLItem{Grantee: grantee, Grantor: grantor})
	}
	a := &acl[i]
	switch {
	case grant:
		a.Privs |= privs
		if option {
			a.Grantable |= privs
		}
	case option:
		a.Grantable &^= privs
	default:
		a.Privs &^= privs
		a.Grantable &^= privs
	}
	if a.Privs == 0 {
		acl = append(acl[:i], acl[i+1:]...)
	}
	return acl
}

// commitReplaced stores changed objects (old, new pairs), schemas and
// (when not nil) the functions', types' and database's ACLs in one batch, puts them in the catalog and ends the subscriptions that
// lost their privileges; the caller holds the engine's lock.
func (e *Engine) commitReplaced(pairs [][2]*Object, schemas []*Schema, others *objectACLs) error {
	if len(pairs) == 0 && len(schemas) == 0 && others == nil {
		return nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	for _, p := range pairs {
		if err := e.persistObject(p[1], b); err != nil {
			return err
		}
	}
	for _, sc := range schemas {
		if err := persistSchema(sc, b); err != nil {
			return err
		}
	}
	if others != nil {
		if err := persistObjectACLs(others, b); err != nil {
			return err
		}
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	for _, p := range pairs {
		if err := e.cat.replace(p[0], p[1]); err != nil {
			return err
		}
	}
	for _, sc := range schemas {
		e.cat.schemas[sc.Name] = sc
	}
	if others != nil {
		e.cat.objACLs = others
	}
	e.cat.version++
	e.recheckSubscriptions()
	return nil
}

// newOwnerOf resolves ALTER ... OWNER TO's role and checks the caller
// may give the object to it: it owns the object (as a member of its
// owner) and is a member of the new owner, or is a superuser.
func (p *Portal) newOwnerOf(rs *pg.RoleSpec, owner uint32, kind, name string) (uint32, error) {
	s := p.st.s
	r, ok := s.e.role(p.roleSpecName(rs))
	if !ok {
		return 0, repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", p.roleSpecName(rs))
	}
	if err := s.e.checkOwner(s, owner, kind, name); err != nil {
		return 0, err
	}
	if !s.e.isMemberOf(s.currentUser(), r.OID) {
		return 0, repr.Errorf(codeInsufficientPrivilege, "must be able to SET ROLE \"%s\"", r.Name)
	}
	if r.OID == oidSuperuser {
		return 0, nil
	}
	return r.OID, nil
}

// newOwnerACL rewrites an ACL for an owner change, as PostgreSQL's
// aclnewowner: the old owner's entries become the new owner's, and
// entries that then have the same grantee and grantor merge.
func newOwnerACL(acl []ACLItem, old, nu uint32) []ACLItem {
	if acl == nil {
		return nil
	}
	old, nu = ownerOID(old), ownerOID(nu)
	out := make([]ACLItem, 0, len(acl))
	for _, a := range acl {
		if a.Grantee == old {
			a.Grantee = nu
		}
		if a.Grantor == old {
			a.Grantor = nu
		}
		i := slices.IndexFunc(out, func(b ACLItem) bool { return b.Grantee == a.Grantee && b.Grantor == a.Grantor })
		if i < 0 {
			out = append(out, a)
			continue
		}
		out[i].Privs |= a.Privs
		out[i].Grantable |= a.Grantable
	}
	return out
}

// execAlterOwner executes ALTER SCHEMA name OWNER TO role.
func (p *Portal) execAlterOwner(st *pg.AlterOwnerStmt) error {
	if st.ObjectType != pg.ObjectType_OBJECT_SCHEMA {
		return repr.Unsupported("ALTER %s OWNER TO", strings.TrimPrefix(st.ObjectType.String(), "OBJECT_"))
	}
	p.tag = "ALTER SCHEMA"
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	name := st.Object.GetString_().GetSval()
	sc := e.cat.schemas[name]
	if sc == nil {
		return repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	if sc.system {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", name)
	}
	owner, err := p.newOwnerOf(st.Newowner, sc.Owner, "schema", name)
	if err != nil {
		return err
	}
	nu := *sc
	nu.Owner, nu.ACL = owner, newOwnerACL(sc.ACL, sc.Owner, owner)
	b := e.db.NewBatch()
	defer b.Close()
	if err := persistSchema(&nu, b); err != nil {
		return err
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	e.cat.schemas[name] = &nu
	e.cat.version++
	e.recheckSubscriptions()
	return nil
}

// alterRelOwner executes ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE
// name OWNER TO role (the only command of its statement); the caller
// holds the engine's lock.
func (p *Portal) alterRelOwner(obj *Object, rs *pg.RoleSpec) error {
	e := p.st.s.e
	owner, err := p.newOwnerOf(rs, obj.Owner, kindName(obj.Kind), obj.Name)
	if err != nil {
		return err
	}
	nu := obj.clone()
	nu.Owner, nu.ACL = owner, newOwnerACL(obj.ACL, obj.Owner, owner)
	newOwnerColumnACLs(nu.Columns, obj.Owner, owner)
	b := e.db.NewBatch()
	defer b.Close()
	if err := e.persistObject(nu, b); err != nil {
		return err
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	if err := e.cat.replace(obj, nu); err != nil {
		return err
	}
	e.recheckSubscriptions()
	return nil
}

// ownerChange returns the OWNER TO command of an ALTER TABLE that has
// only that command (nil otherwise).
func ownerChange(as *pg.AlterTableStmt) *pg.RoleSpec {
	if len(as.Cmds) != 1 {
		return nil
	}
	c := as.Cmds[0].GetAlterTableCmd()
	if c.Subtype != pg.AlterTableType_AT_ChangeOwner {
		return nil
	}
	return c.Newowner
}

// relKindOK reports whether ALTER <kind> may name an object of kind k.
func relKindOK(k planner.RelKind) bool {
	return k == planner.RelTable || k == planner.RelView || k == planner.RelMaterializedView || k == relSequence || k == planner.RelSource
}

// privKind is the kind of object a has_*_privilege function asks about.
type privKind int

const (
	privOnTable privKind = iota
	privOnSchema
	privOnSequence
	privOnFunction
	privOnType
	privOnDatabase
)

// privKindAll is every privilege an object of kind k can carry.
var privKindAll = map[privKind]aclMode{privOnTable: allTablePrivs, privOnSchema: allSchemaPrivs, privOnSequence: allSeqPrivs,
	privOnFunction: privExecute, privOnType: privUsage, privOnDatabase: allDBPrivs}

// hasPrivilege is has_table_privilege, has_schema_privilege and
// has_sequence_privilege: ([role,] object, privileges), the role and
// object by name or OID, privileges a comma-separated list of names,
// each optionally WITH GRANT OPTION; true when the role holds any of
// them.
func hasPrivilege(kind privKind) catalogFunc {
	return func(c sessionCatalog, s *sysSnap, a []repr.Datum) (repr.Datum, error) {
		if len(a) < 2 || a[len(a)-1].IsNull() || a[len(a)-2].IsNull() {
			return repr.Null, nil
		}
		role, err := c.privRole(a, 3)
		if err != nil {
			return repr.Null, err
		}
		all := privKindAll[kind]
		want, opt, err := privSpec(a[len(a)-1].Text(), all)
		if err != nil {
			return repr.Null, err
		}
		held, grantable, ok, err := c.heldPrivs(s, kind, a[len(a)-2], role, all)
		if err != nil || !ok {
			return repr.Null, err
		}
		if opt {
			held = grantable
		}
		return repr.NewBool(held&want != 0), nil
	}
}

// privRole is the role a has_*_privilege call asks about: its first
// argument (a name or OID) when it has n arguments, else the current
// user.
func (c sessionCatalog) privRole(a []repr.Datum, n int) (string, error) {
	if len(a) < n {
		return c.s.currentUser(), nil
	}
	role := a[0].Text()
	if a[0].Family() != repr.FamText {
		role = c.s.e.roleName(uint32(a[0].Int()))
	}
	if _, ok := c.s.e.role(role); !ok {
		return "", repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", role)
	}
	return role, nil
}

// privSpec parses has_*_privilege's privilege list.
func privSpec(spec string, all aclMode) (want aclMode, option bool, err error) {
	for _, part := range strings.Split(spec, ",") {
		p := strings.ToUpper(strings.Join(strings.Fields(part), " "))
		if q, ok := strings.CutSuffix(p, " WITH GRANT OPTION"); ok {
			p, option = q, true
		}
		b, ok := privByName(p)
		if !ok || b&all == 0 {
			return 0, false, repr.Errorf(repr.CodeInvalidParameter, "unrecognized privilege type: \"%s\"", strings.TrimSpace(part))
		}
		want |= b
	}
	return want, option, nil
}

// heldPrivs returns what role holds on the object named (text) or
// identified (OID) by obj; ok is false for an unknown OID (NULL).
func (c sessionCatalog) heldPrivs(s *sysSnap, kind privKind, obj repr.Datum, role string, all aclMode) (held, grantable aclMode, ok bool, err error) {
	switch kind {
	case privOnSchema:
		return c.heldSchemaPrivs(s, obj, role)
	case privOnFunction, privOnType, privOnDatabase:
		return c.heldOtherPrivs(s, kind, obj, role)
	}
	o, sys, err := c.privRelation(s, obj)
	switch {
	case err != nil:
		return 0, 0, false, err
	case sys:
		return privSelect, 0, true, nil // system relations: readable by all
	case o == nil:
		return 0, 0, false, nil
	case kind == privOnSequence && o.Kind != relSequence:
		return 0, 0, false, repr.Errorf(repr.CodeWrongObjectType, "\"%s\" is not a sequence", o.Name)
	}
	p, g := c.s.e.rolePrivs(role, relACL(o), o.Owner, relAllPrivs(o))
	return p & all, g & all, true, nil
}

// heldSchemaPrivs is heldPrivs for a schema.
func (c sessionCatalog) heldSchemaPrivs(s *sysSnap, obj repr.Datum, role string) (held, grantable aclMode, ok bool, err error) {
	name := obj.Text()
	if obj.Family() != repr.FamText {
		name = s.cat.namespaceName(uint32(obj.Int()))
	}
	sc := s.cat.schemas[name]
	switch {
	case sc == nil && obj.Family() == repr.FamText:
		return 0, 0, false, repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", name)
	case sc == nil:
		return 0, 0, false, nil
	case sc.system:
		return privUsage, 0, true, nil
	}
	p, g := c.s.e.rolePrivs(role, schemaACL(sc), sc.Owner, allSchemaPrivs)
	return p, g, true, nil
}

// privRelation resolves a has_*_privilege relation argument: a name
// (42P01 if missing) or an OID (nil if unknown); sys reports a system
// relation.
func (c sessionCatalog) privRelation(s *sysSnap, obj repr.Datum) (o *Object, sys bool, err error) {
	if obj.Family() == repr.FamText {
		schema, name := splitQualifiedName(obj.Text())
		if schema == "" {
			schema = c.s.resolveSchema(s.cat, name)
		}
		if lookupSysRel(schema, name) != nil {
			return nil, true, nil
		}
		if o = s.cat.lookup(schema, name); o == nil || schema == "" {
			return nil, false, repr.ErrUndefinedTable.New(obj.Text())
		}
		return o, false, nil
	}
	ri := s.rel(uint32(obj.Int()))
	if ri == nil {
		return nil, false, nil
	}
	return ri.obj, ri.obj == nil, nil
}
