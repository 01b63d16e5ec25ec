package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// Ownership and object privileges.
//
// Every object and schema has an owner, a role OID (0 stands for the
// bootstrap superuser, OID 10, and is what objects made before owners
// were recorded have), and an access control list of PostgreSQL's
// aclitems by role OID; a nil list is the default, in which the owner
// holds every privilege (and, for public, PUBLIC holds USAGE). A role
// holds a privilege if it is a superuser, a member of the owner, or a
// member of a grantee (PUBLIC included), as in PostgreSQL
// (has_privs_of_role, roles.go). Statements record the privileges they
// need on each relation they name (qualifyNames) and Portal.run checks
// them before every execution, so a REVOKE takes effect on the next
// statement; an open SUBSCRIBE checks again on every delivery.

// ACLItem is one entry of an access control list, PostgreSQL's aclitem:
// Grantee (0 is PUBLIC) holds Privs, of which Grantable it may grant on,
// as granted by Grantor.
type ACLItem struct {
	Grantee   uint32 `json:",omitempty"`
	Grantor   uint32
	Privs     aclMode
	Grantable aclMode `json:",omitempty"`
}

// aclMode is a set of privileges, bits in PostgreSQL's order (which is
// the order of their letters in aclitem text).
type aclMode uint16

// The privileges.
const (
	privInsert aclMode = 1 << iota
	privSelect
	privUpdate
	privDelete
	privTruncate
	privReferences
	privTrigger
	privExecute
	privUsage
	privCreate
	privTemporary
	privConnect

	allTablePrivs  = privInsert | privSelect | privUpdate | privDelete | privTruncate | privReferences | privTrigger
	allSchemaPrivs = privUsage | privCreate
	allSeqPrivs    = privUsage | privSelect | privUpdate
)

// relAllPrivs is every privilege relation o can carry.
func relAllPrivs(o *Object) aclMode {
	if o.Kind == relFunction {
		return privExecute
	}
	if o.Kind == relSequence {
		return allSeqPrivs
	}
	return allTablePrivs
}

// aclLetters are the aclitem letters of the privilege bits, in bit order.
const aclLetters = "arwdDxtXUCTc"

// ownerOID is the role OID of an owner field (0 is the bootstrap
// superuser).
func ownerOID(owner uint32) uint32 {
	if owner == 0 {
		return oidSuperuser
	}
	return owner
}

// format renders the item as aclitem text, grantee=privs/grantor with a
// '*' after each grantable privilege; name gives role names.
func (a ACLItem) format(name func(uint32) string) string {
	var b strings.Builder
	if a.Grantee != 0 {
		b.WriteString(pgQuoteIdent(name(a.Grantee)))
	}
	b.WriteByte('=')
	for i := range aclLetters {
		if a.Privs&(1<<i) != 0 {
			b.WriteByte(aclLetters[i])
			if a.Grantable&(1<<i) != 0 {
				b.WriteByte('*')
			}
		}
	}
	b.WriteByte('/')
	b.WriteString(pgQuoteIdent(name(a.Grantor)))
	return b.String()
}

// effectiveACL returns acl, or the default ACL of an object owned by
// owner when acl is nil (the owner holds all privileges; public's
// default also grants USAGE to PUBLIC).
func effectiveACL(acl []ACLItem, owner uint32, all aclMode, isPublic bool) []ACLItem {
	if acl != nil {
		return acl
	}
	o := ownerOID(owner)
	// Room for both items, so that where the result does not escape (a
	// privilege check inlining this) no append moves it to the heap.
	out := append(make([]ACLItem, 0, 2), ACLItem{Grantee: o, Grantor: o, Privs: all})
	if isPublic {
		out = append(out, ACLItem{Grantor: o, Privs: privUsage})
	}
	return out
}

// schemaACL returns sc's effective ACL.
func schemaACL(sc *Schema) []ACLItem {
	return effectiveACL(sc.ACL, sc.Owner, allSchemaPrivs, sc.Name == nsPublic)
}

// relACL returns o's effective ACL.
func relACL(o *Object) []ACLItem {
	if o.Kind == relFunction && o.ACL == nil {
		return functionDefaultACL(o.Owner)
	}
	return effectiveACL(o.ACL, o.Owner, relAllPrivs(o), false)
}

// rolePrivs returns the privileges role (by name) holds in acl of an
// object owned by owner, and those it may grant. As PostgreSQL's
// aclmask: a superuser holds everything, the owner (or a member of it)
// holds every grant option implicitly, but its privileges are those the
// ACL gives it, so an owner that revoked its own privileges is refused
// (42501) like anyone else until it grants them back.
func (e *Engine) rolePrivs(role string, acl []ACLItem, owner uint32, all aclMode) (privs, grantable aclMode) {
	if e.isSuperuser(role) {
		return all, all
	}
	if e.isMemberOf(role, ownerOID(owner)) {
		grantable = all
	}
	for _, a := range acl {
		if a.Grantee == 0 || e.isMemberOf(role, a.Grantee) {
			privs |= a.Privs
			grantable |= a.Grantable
		}
	}
	return privs, grantable
}

// hasSchemaPriv reports whether role holds priv on schema sc; everyone
// may use the system schemas, and only superusers create in them.
func (e *Engine) hasSchemaPriv(role string, sc *Schema, priv aclMode) bool {
	if sc.system {
		return priv == privUsage || e.isMemberOf(role, oidSuperuser)
	}
	p, _ := e.rolePrivs(role, schemaACL(sc), sc.Owner, allSchemaPrivs)
	return p&priv == priv
}

// hasRelPriv reports whether role holds every privilege of priv on o.
func (e *Engine) hasRelPriv(role string, o *Object, priv aclMode) bool {
	p, _ := e.rolePrivs(role, relACL(o), o.Owner, relAllPrivs(o))
	return p&priv == priv
}

// mayUseSchema reports whether the session's role holds USAGE on ns.
func (s *Session) mayUseSchema(cat *Catalog, ns string) bool {
	sc := cat.schemas[ns]
	return sc == nil || s.e.hasSchemaPriv(s.currentUser(), sc, privUsage)
}

// checkSchemaUsage refuses a name in a schema the role may not use (42501
// "permission denied for schema s").
func (s *Session) checkSchemaUsage(cat *Catalog, ns string) error {
	if s.mayUseSchema(cat, ns) {
		return nil
	}
	return repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", ns)
}

// checkCreateIn checks that an object may be created in schema ns: it
// exists (3F000), is not a system schema, and the role holds CREATE on
// it (42501).
func (s *Session) checkCreateIn(cat *Catalog, ns, name string) error {
	sc := cat.schemas[ns]
	if sc == nil {
		return repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", ns)
	}
	if sc.system {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied to create \"%s.%s\"", ns, name).
			WithDetail("System catalog modifications are currently disallowed.")
	}
	if !s.e.hasSchemaPriv(s.currentUser(), sc, privCreate) {
		return repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", ns)
	}
	return nil
}

// checkOwner refuses a role that is not a member of the owner: 42501
// "must be owner of <kind> <name>".
func (e *Engine) checkOwner(s *Session, owner uint32, kind, name string) error {
	if e.isMemberOf(s.currentUser(), ownerOID(owner)) {
		return nil
	}
	return repr.Errorf(codeInsufficientPrivilege, "must be owner of %s %s", kind, name)
}

// checkDatabaseCreate refuses CREATE SCHEMA to a role without CREATE on
// the database (by default held by superusers only); the caller holds
// the engine's lock.
func (e *Engine) checkDatabaseCreate(s *Session) error {
	if e.hasDatabasePriv(s.currentUser(), privCreate) {
		return nil
	}
	return repr.Errorf(codeInsufficientPrivilege, "permission denied for database %s", s.settings.database)
}

// newOwner is the owner recorded for an object the session creates: its
// current role's OID.
func (s *Session) newOwner() uint32 {
	r, ok := s.e.role(s.currentUser())
	if !ok || r.OID == oidSuperuser {
		return 0
	}
	return r.OID
}

// checkOwnsRel refuses a role that does not own relation rv.
func (s *Session) checkOwnsRel(rv *pg.RangeVar) error {
	var o *Object
	s.e.readLocked(func() {
		o = s.e.cat.lookup(rv.Schemaname, rv.Relname)
	})
	if o == nil {
		return nil // reported missing by the statement
	}
	return s.e.checkOwner(s, o.Owner, kindName(o.Kind), o.Name)
}

// superuserOnly are the system relations PostgreSQL 15 lets superusers
// alone read (their ACL grants no one else anything): pg_authid and
// pg_shadow hold the password verifiers, pg_user_mapping options may hold
// passwords, the statistics hold sampled values, the server's files and
// memory are the administrator's; information_schema's sql_parts and
// transforms have no grant (an oversight PostgreSQL 15 ships with). Roles
// PostgreSQL grants some of them to (pg_read_all_stats) do not read them.
var superuserOnly = map[string]bool{"pg_authid": true, "pg_shadow": true, "pg_statistic": true,
	"pg_statistic_ext_data": true, "pg_user_mapping": true, "pg_largeobject": true, "pg_file_settings": true,
	"pg_hba_file_rules": true, "pg_ident_file_mappings": true, "pg_config": true, "pg_shmem_allocations": true,
	"pg_backend_memory_contexts": true, "pg_replication_origin_status": true, "sql_parts": true, "transforms": true,
	"_pg_foreign_table_columns": true, "_pg_foreign_data_wrappers": true, "_pg_foreign_servers": true,
	"_pg_foreign_tables": true, "_pg_user_mappings": true}

// privNeed is a privilege a statement needs on a relation, and the
// columns it reads and writes there, which column privileges may cover
// (colpriv.go).
type privNeed struct {
	id            uint64
	priv          aclMode
	reads, writes colUse
	// sets are the columns an UPDATE (or INSERT's ON CONFLICT DO UPDATE)
	// assigns.
	sets colUse
	// fn, when set, is a function the statement calls with nargs
	// arguments (EXECUTE), typ a column type it declares (USAGE); id and
	// the others are then unused (objacl.go).
	fn    string
	nargs int
	typ   uint32
	// sig, when set, is the overload of fn the planner resolved (its
	// regprocedure text): only that one is checked.
	sig string
}

// checkPrivileges checks a statement's recorded needs against the
// current catalog (relations since dropped are the statement's to
// report).
func (s *Session) checkPrivileges(needs []privNeed) error {
	if len(needs) == 0 {
		return nil
	}
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	return s.checkPrivilegesLocked(s.currentUser(), needs)
}

// checkPrivilegesLocked is checkPrivileges for role under the engine's
// lock.
func (s *Session) checkPrivilegesLocked(role string, needs []privNeed) error {
	for _, n := range needs {
		if n.fn != "" || n.typ != 0 {
			if err := s.e.checkObjectNeed(role, n); err != nil {
				return err
			}
			continue
		}
		if r := sysRelsByID[n.id]; r != nil && superuserOnly[r.name] && !s.e.isMemberOf(role, oidSuperuser) {
			return repr.Errorf(codeInsufficientPrivilege, "permission denied for table %s", r.name)
		}
		o := s.e.cat.byID[n.id]
		if o == nil || isSystemRelation(o.ID) {
			continue
		}
		if sc := s.e.cat.schemas[o.Schema]; sc != nil && !s.e.hasSchemaPriv(role, sc, privUsage) {
			return repr.Errorf(codeInsufficientPrivilege, "permission denied for schema %s", o.Schema)
		}
		if !s.e.hasRelPriv(role, o, n.priv) && !s.e.hasColumnPrivs(role, o, n) {
			kind := kindName(o.Kind)
			if o.Kind == relFunction && o.Function != nil && o.Function.Proc {
				kind = "procedure"
			}
			return repr.Errorf(codeInsufficientPrivilege, "permission denied for %s %s", kind, o.Name)
		}
	}
	return nil
}

// roleDisplay names a role OID for catalogs ("" for none).
func (s *sysSnap) roleDisplay(oid uint32) string {
	return s.e.roleName(ownerOID(oid))
}

// aclDatum is an ACL as aclitem[] text (NULL for nil: the default).
func (s *sysSnap) aclDatum(acl []ACLItem) repr.Datum {
	if acl == nil {
		return repr.Null
	}
	items := make([]repr.Datum, len(acl))
	for i, a := range acl {
		items[i] = repr.NewText(a.format(s.roleDisplay))
	}
	return repr.NewArray(items)
}

// relOwner is pg_class.relowner of ri.
func (s *sysSnap) relOwner(ri *relInfo) uint32 {
	if ri.obj == nil {
		return oidSuperuser
	}
	return ownerOID(ri.obj.Owner)
}

// relACL is pg_class.relacl of ri.
func (s *sysSnap) relACL(ri *relInfo) repr.Datum {
	if ri.obj == nil || ri.kind == 'i' {
		return repr.Null
	}
	return s.aclDatum(ri.obj.ACL)
}

// recheckSubscriptions ends, with their 42501, the subscriptions whose
// roles lost a privilege they read with (after a REVOKE or an owner
// change); the caller holds the engine's lock.
func (e *Engine) recheckSubscriptions() {
	for _, subs := range e.subs {
		for sub := range subs {
			if sub.check == nil {
				continue
			}
			if err := sub.check(); err != nil {
				e.unsubscribe(sub, err)
			}
		}
	}
}
