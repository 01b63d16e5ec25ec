package sql

import (
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// What a role owns or holds privileges on: DROP ROLE's dependency check,
// REASSIGN OWNED and DROP OWNED.
//
// PostgreSQL records these as shared dependencies (pg_shdepend); Eddy
// reads them off the catalog, where every schema and object carries its
// owner and ACL. The dependents of a role are listed in OID order, as
// PostgreSQL's checkSharedDependencies sorts them, one line each:
// "owner of <object>" for what it owns, "privileges for <object>" where
// an ACL names it (as grantee or grantor) on an object it does not own.

// roleDep is one object that depends on a role.
type roleDep struct {
	oid   uint32
	sub   int // the column's attnum + 1 for a column's privileges, else 0
	owner bool
	desc  string
}

// line is the DROP ROLE detail line of d.
func (d roleDep) line() string {
	if d.owner {
		return "owner of " + d.desc
	}
	return "privileges for " + d.desc
}

// aclNames reports whether acl names role as grantee or grantor.
func aclNames(acl []ACLItem, role uint32) bool {
	for _, a := range acl {
		if a.Grantee == role || a.Grantor == role {
			return true
		}
	}
	return false
}

// roleDependents lists what depends on role in the catalog, in OID
// order; the caller holds the engine's lock.
func (s *Session) roleDependents(cat *Catalog, role uint32) []roleDep {
	var out []roleDep
	for _, sc := range cat.schemas {
		if sc.system {
			continue
		}
		desc := "schema " + sc.Name
		switch {
		case ownerOID(sc.Owner) == role && sc.Owner != 0:
			out = append(out, roleDep{oid: cat.namespaceOID(sc.Name), owner: true, desc: desc})
		case aclNames(sc.ACL, role):
			out = append(out, roleDep{oid: cat.namespaceOID(sc.Name), desc: desc})
		}
	}
	for _, o := range cat.objects() {
		if isSystemRelation(o.ID) || o.Kind == relIndex {
			continue
		}
		desc := kindName(o.Kind) + " " + s.describedName(cat, o)
		oid := relOID(o.ID)
		switch {
		case ownerOID(o.Owner) == role && o.Owner != 0:
			out = append(out, roleDep{oid: oid, owner: true, desc: desc})
		case aclNames(o.ACL, role):
			out = append(out, roleDep{oid: oid, desc: desc})
		case o.Kind == relType && aclNames(cat.objACLs.compositeACL(typeOID(o)), role):
			out = append(out, roleDep{oid: typeOID(o), desc: desc})
		}
		for i, c := range o.Columns {
			if aclNames(c.ACL, role) {
				out = append(out, roleDep{oid: oid, sub: i + 1, desc: fmt.Sprintf("column %s of %s", c.Name, desc)})
			}
		}
	}
	out = append(out, cat.objACLs.roleDependents(role)...)
	for _, d := range cat.defACLs {
		desc := cat.defaclDesc(d, s.e.roleName)
		switch {
		case d.Role == role:
			out = append(out, roleDep{oid: relOID(d.ID), owner: true, desc: desc})
		case aclNames(d.ACL, role):
			out = append(out, roleDep{oid: relOID(d.ID), desc: desc})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].oid != out[j].oid {
			return out[i].oid < out[j].oid
		}
		return out[i].sub < out[j].sub
	})
	return out
}

// describedName is o's name as PostgreSQL's getObjectDescription writes
// it: qualified unless the search path finds it unqualified.
func (s *Session) describedName(cat *Catalog, o *Object) string {
	if s.visible(cat, o.Schema, o.Name) {
		return o.Name
	}
	return o.Schema + "." + o.Name
}

// checkRoleUnused refuses to drop a role that owns objects or holds
// privileges (2BP01 with PostgreSQL's detail lines); the caller holds
// the engine's lock.
func (s *Session) checkRoleUnused(cat *Catalog, name string) error {
	r, ok := s.e.role(name)
	if !ok {
		return nil // reported by DROP ROLE
	}
	deps := s.roleDependents(cat, r.OID)
	if len(deps) == 0 {
		return nil
	}
	lines := make([]string, len(deps))
	for i, d := range deps {
		lines[i] = d.line()
	}
	return repr.Errorf(repr.CodeDependentObjects, "role \"%s\" cannot be dropped because some objects depend on it", name).
		WithDetail("%s", strings.Join(lines, "\n"))
}

// ownedRoles resolves the roles of REASSIGN/DROP OWNED (42704 for an
// unknown one) and checks the caller has the privileges of each (42501
// "permission denied to <what>").
func (p *Portal) ownedRoles(list []*pg.RoleSpec, what string) (map[uint32]bool, error) {
	s := p.st.s
	out := map[uint32]bool{}
	for _, rs := range list {
		name := p.roleSpecName(rs)
		r, ok := s.e.role(name)
		if !ok {
			return nil, repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", name)
		}
		if !s.e.isMemberOf(s.currentUser(), r.OID) {
			return nil, repr.Errorf(codeInsufficientPrivilege, "permission denied to %s", what)
		}
		out[r.OID] = true
	}
	return out, nil
}

// roleSpecs are the RoleSpec nodes of a role list.
func roleSpecs(list []*pg.Node) []*pg.RoleSpec {
	out := make([]*pg.RoleSpec, len(list))
	for i, n := range list {
		out[i] = n.GetRoleSpec()
	}
	return out
}

// ownedBy reports whether an owner field names one of roles (the
// bootstrap superuser, 0, owns what the system needs and is never
// among them).
func ownedBy(owner uint32, roles map[uint32]bool) bool {
	return owner != 0 && roles[owner]
}

// execReassignOwned executes REASSIGN OWNED BY roles TO role: the
// schemas and objects the roles own pass to the new owner, their ACLs
// rewritten as by ALTER ... OWNER TO, in one batch.
func (p *Portal) execReassignOwned(st *pg.ReassignOwnedStmt) error {
	p.tag = "REASSIGN OWNED"
	olds, err := p.ownedRoles(roleSpecs(st.Roles), "reassign objects")
	if err != nil {
		return err
	}
	nus, err := p.ownedRoles([]*pg.RoleSpec{st.Newrole}, "reassign objects")
	if err != nil {
		return err
	}
	var nu uint32
	for oid := range nus {
		nu = oid
	}
	if nu == oidSuperuser {
		nu = 0
	}
	e := p.st.s.e
	for oid := range olds {
		if oid == oidSuperuser || oid < firstRoleOID {
			name := e.roleName(oid)
			return repr.Errorf(repr.CodeDependentObjects, "cannot reassign ownership of objects owned by role %s because they are required by the database system", name)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var pairs [][2]*Object
	for _, o := range e.cat.objects() {
		if ownedBy(o.Owner, olds) && !isSystemRelation(o.ID) {
			c := o.clone()
			c.Owner, c.ACL = nu, newOwnerACL(o.ACL, o.Owner, nu)
			newOwnerColumnACLs(c.Columns, o.Owner, nu)
			pairs = append(pairs, [2]*Object{o, c})
		}
	}
	var schemas []*Schema
	for _, sc := range e.cat.schemas {
		if ownedBy(sc.Owner, olds) && !sc.system {
			c := *sc
			c.Owner, c.ACL = nu, newOwnerACL(sc.ACL, sc.Owner, nu)
			schemas = append(schemas, &c)
		}
	}
	return e.commitReplaced(pairs, schemas, nil)
}

// execDropOwned executes DROP OWNED BY roles [CASCADE | RESTRICT]: the
// privileges granted to the roles on other objects are revoked (with
// the grants they made of them), then the objects and schemas they own
// are dropped, latest first. Without CASCADE, an object of another role
// that depends on one of them refuses the statement before anything
// changes.
func (p *Portal) execDropOwned(st *pg.DropOwnedStmt) error {
	p.tag = "DROP OWNED"
	roles, err := p.ownedRoles(roleSpecs(st.Roles), "drop objects")
	if err != nil {
		return err
	}
	cascade := st.Behavior == pg.DropBehavior_DROP_CASCADE
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	objs, schemas := e.ownedObjects(roles)
	if !cascade {
		if err := p.st.s.checkDropOwned(objs, schemas); err != nil {
			return err
		}
	}
	return e.atomically(func() error { return e.dropOwned(roles, objs, schemas, cascade) })
}

// dropOwned is DROP OWNED's work: revoking, then dropping.
func (e *Engine) dropOwned(roles map[uint32]bool, objs []*Object, schemas []*Schema, cascade bool) error {
	if err := e.revokeFromRoles(roles); err != nil {
		return err
	}
	if err := e.dropDefaultACLsOf(roles); err != nil {
		return err
	}
	for i := len(objs) - 1; i >= 0; i-- {
		if e.cat.byID[objs[i].ID] == nil {
			continue // dropped with an earlier one
		}
		if err := e.dropLocked(objs[i], cascade); err != nil {
			return err
		}
	}
	for _, sc := range schemas {
		if err := e.dropSchemaLocked(sc, cascade); err != nil {
			return err
		}
	}
	return nil
}

// ownedObjects returns the objects (by ID; not indexes, nor sequences
// that go with their tables) and schemas the roles own.
func (e *Engine) ownedObjects(roles map[uint32]bool) ([]*Object, []*Schema) {
	var objs []*Object
	for _, o := range e.cat.objects() {
		if !ownedBy(o.Owner, roles) || isSystemRelation(o.ID) || o.Kind == relIndex {
			continue
		}
		if o.Kind == relSequence && o.Sequence.OwnedBy != 0 && e.cat.byID[o.Sequence.OwnedBy] != nil {
			continue
		}
		objs = append(objs, o)
	}
	var schemas []*Schema
	for _, sc := range e.cat.schemas {
		if ownedBy(sc.Owner, roles) && !sc.system {
			schemas = append(schemas, sc)
		}
	}
	sort.Slice(schemas, func(i, j int) bool { return schemas[i].ID < schemas[j].ID })
	return objs, schemas
}

// checkDropOwned refuses DROP OWNED ... RESTRICT when an object the roles
// do not own depends on one they do (2BP01, as PostgreSQL's
// reportDependentObjects), or sits in a schema they own (the error
// dropping that schema alone reports).
func (s *Session) checkDropOwned(objs []*Object, schemas []*Schema) error {
	e := s.e
	owned := map[uint64]bool{}
	for _, o := range objs {
		owned[o.ID] = true
	}
	var lines []string
	for _, o := range objs {
		for _, d := range e.cat.dependents(o.ID) {
			if !owned[d.ID] {
				lines = append(lines, fmt.Sprintf("%s %s depends on %s %s", kindName(d.Kind), s.describedName(e.cat, d),
					kindName(o.Kind), s.describedName(e.cat, o)))
			}
		}
	}
	if len(lines) > 0 {
		return repr.Errorf(repr.CodeDependentObjects, "cannot drop desired object(s) because other objects depend on them").
			WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, sc := range schemas {
		for _, o := range e.cat.objectsIn(sc.Name) {
			if !owned[o.ID] && o.Kind != relIndex && !(o.Kind == relSequence && owned[o.Sequence.OwnedBy]) {
				return e.dropSchemaLocked(sc, false) // fails: o is in sc
			}
		}
	}
	return nil
}

// revokeFromRoles removes the roles from the ACLs (and column ACLs) of
// the schemas and objects they do not own, with every grant they made
// of what they lose, in one batch.
func (e *Engine) revokeFromRoles(roles map[uint32]bool) error {
	var pairs [][2]*Object
	for _, o := range e.cat.objects() {
		if ownedBy(o.Owner, roles) || isSystemRelation(o.ID) {
			continue
		}
		c := o.clone()
		changed := false
		c.ACL, changed = withoutRoles(o.ACL, roles)
		for i := range c.Columns {
			var ch bool
			if c.Columns[i].ACL, ch = withoutRoles(o.Columns[i].ACL, roles); ch {
				changed = true
				if len(c.Columns[i].ACL) == 0 {
					c.Columns[i].ACL = nil // a column's empty ACL is no ACL
				}
			}
		}
		if changed {
			pairs = append(pairs, [2]*Object{o, c})
		}
	}
	var schemas []*Schema
	for _, sc := range e.cat.schemas {
		if acl, ch := withoutRoles(sc.ACL, roles); ch && !ownedBy(sc.Owner, roles) {
			c := *sc
			c.ACL = acl
			schemas = append(schemas, &c)
		}
	}
	return e.commitReplaced(pairs, schemas, e.cat.objACLs.withoutRoles(roles))
}

// withoutRoles returns acl without the items granted to the roles and
// the grants that depended on them (revokeDependent, cascading), and
// whether it changed.
func withoutRoles(acl []ACLItem, roles map[uint32]bool) ([]ACLItem, bool) {
	changed := false
	var out []ACLItem
	for _, a := range acl {
		if roles[a.Grantee] && a.Grantee != 0 {
			changed = true
			continue
		}
		out = append(out, a)
	}
	if !changed {
		return acl, false
	}
	for r := range roles {
		out, _ = revokeDependent(out, r, ^aclMode(0), true)
	}
	if out == nil {
		out = []ACLItem{}
	}
	return out, true
}
