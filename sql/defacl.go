package sql

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Default privileges (ALTER DEFAULT PRIVILEGES, PostgreSQL's
// pg_default_acl).
//
// An entry says which privileges the relations (ObjType 'r': tables,
// views, materialized views, sources) or sequences ('S') that Role
// creates get: in every schema (NS 0), whose entry replaces the built-in
// default (the owner holds everything), or in one schema, whose entry
// adds to that. An object created without either entry keeps a nil ACL.
// A global entry equal to the built-in default, or an empty schema entry,
// is removed, as in PostgreSQL. The entries live in the catalog (under
// the engine's lock) and are stored together under one key, written in
// the batch of the statement that changes them.

// DefaultACL is one pg_default_acl entry.
type DefaultACL struct {
	ID      uint64 // its OID is 16384 + ID, like the objects'
	Role    uint32
	NS      uint32 `json:",omitempty"` // the schema's OID, 0 for all schemas
	ObjType byte
	ACL     []ACLItem
}

var metaDefaultACLs = storage.MetaKey("defacl")

func init() {
	defSysRel(160, 826, nsPgCatalog, "pg_default_acl", false,
		"oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype \"char\", defaclacl aclitem[]", rowsDefaultACL)
}

// restoreDefaultACLs loads the stored entries.
func (e *Engine) restoreDefaultACLs() error {
	v, ok, err := e.db.Get(metaDefaultACLs)
	if err != nil || !ok {
		return err
	}
	return json.Unmarshal(v, &e.cat.defACLs)
}

// persistDefaultACLs writes the entries to b.
func (e *Engine) persistDefaultACLs(entries []*DefaultACL, b *storage.Batch) error {
	v, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	b.Set(metaDefaultACLs, v)
	return nil
}

// commitDefaultACLs stores entries as the catalog's in one batch.
func (e *Engine) commitDefaultACLs(entries []*DefaultACL, b *storage.Batch) error {
	if err := e.persistDefaultACLs(entries, b); err != nil {
		return err
	}
	if err := e.commitDDL(b); err != nil {
		return err
	}
	e.cat.defACLs = entries
	e.cat.version++
	return nil
}

// defaultACL finds the entry for (role, ns, objType), or nil.
func (c *Catalog) defaultACL(role, ns uint32, objType byte) *DefaultACL {
	for _, d := range c.defACLs {
		if d.Role == role && d.NS == ns && d.ObjType == objType {
			return d
		}
	}
	return nil
}

// defaclObjType is the pg_default_acl object type of a relation kind.
func defaclObjType(o *Object) byte {
	if o.Kind == relSequence {
		return 'S'
	}
	return 'r'
}

// applyDefaultACL gives a new object the ACL its owner's default
// privileges make (PostgreSQL's get_user_default_acl): the global entry
// (else the built-in default) merged with the schema's, sorted; nil when
// neither exists or the result is the built-in default.
func (e *Engine) applyDefaultACL(o *Object) {
	if o.ACL != nil || o.Kind == relIndex {
		return
	}
	owner, typ, ns := ownerOID(o.Owner), defaclObjType(o), e.cat.namespaceOID(o.Schema)
	glob, local := e.cat.defaultACL(owner, 0, typ), e.cat.defaultACL(owner, ns, typ)
	if glob == nil && local == nil {
		return
	}
	builtin := effectiveACL(nil, o.Owner, relAllPrivs(o), false)
	acl := builtin
	if glob != nil {
		acl = glob.ACL
	}
	acl = slices.Clone(acl)
	if local != nil {
		for _, a := range local.ACL {
			acl = applyACL(acl, a.Grantee, a.Grantor, a.Privs, true, false)
			acl = applyACL(acl, a.Grantee, a.Grantor, a.Grantable, true, true)
		}
	}
	sortACL(acl)
	if slices.Equal(acl, builtin) {
		return
	}
	o.ACL = acl
}

// defaclBuiltin is the built-in default ACL of the objects of type typ
// that role creates (acldefault): the owner holds everything; PUBLIC
// also executes functions and uses types.
func defaclBuiltin(role uint32, typ byte) []ACLItem {
	switch typ {
	case 'f':
		return []ACLItem{{Grantor: role, Privs: privExecute}, {Grantee: role, Grantor: role, Privs: privExecute}}
	case 'T':
		return []ACLItem{{Grantor: role, Privs: privUsage}, {Grantee: role, Grantor: role, Privs: privUsage}}
	case 'S':
		return []ACLItem{{Grantee: role, Grantor: role, Privs: allSeqPrivs}}
	}
	return []ACLItem{{Grantee: role, Grantor: role, Privs: allTablePrivs}}
}

// sortACL orders an ACL as PostgreSQL's aclitemsort: by grantee, then
// grantor.
func sortACL(acl []ACLItem) {
	sort.SliceStable(acl, func(i, j int) bool {
		if acl[i].Grantee != acl[j].Grantee {
			return acl[i].Grantee < acl[j].Grantee
		}
		return acl[i].Grantor < acl[j].Grantor
	})
}

// execAlterDefaultPrivileges executes ALTER DEFAULT PRIVILEGES [FOR ROLE
// roles] [IN SCHEMA schemas] GRANT|REVOKE privileges ON TABLES|SEQUENCES
// TO|FROM grantees [WITH GRANT OPTION].
func (p *Portal) execAlterDefaultPrivileges(st *pg.AlterDefaultPrivilegesStmt) error {
	p.tag = "ALTER DEFAULT PRIVILEGES"
	e := p.st.s.e
	gs := st.Action
	typ, all, err := defaclKind(gs.Objtype)
	if err != nil {
		return err
	}
	privs, err := grantPrivs(gs.Privileges, all, gs.Objtype)
	if err != nil {
		return defaclPrivErr(err)
	}
	grantees, err := p.grantees(gs.Grantees)
	if err != nil {
		return err
	}
	roles, schemaNames, err := p.defaclOptions(st.Options)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	nss := []uint32{0}
	if schemaNames != nil {
		nss = nss[:0]
		for _, n := range schemaNames {
			if e.cat.schemas[n] == nil {
				return repr.Errorf(codeInvalidSchemaName, "schema \"%s\" does not exist", n)
			}
			nss = append(nss, e.cat.namespaceOID(n))
		}
	}
	b := e.db.NewBatch()
	defer b.Close()
	entries := slices.Clone(e.cat.defACLs)
	for _, role := range roles {
		for _, ns := range nss {
			entries = e.changeDefaultACL(entries, b, role, ns, typ, all, privs, grantees, gs)
		}
	}
	return e.commitDefaultACLs(entries, b)
}

// defaclKind is the object type letter and privileges of ON TABLES,
// SEQUENCES, FUNCTIONS or TYPES (others are 0A000).
func defaclKind(kind pg.ObjectType) (byte, aclMode, error) {
	switch kind {
	case pg.ObjectType_OBJECT_TABLE:
		return 'r', allTablePrivs, nil
	case pg.ObjectType_OBJECT_SEQUENCE:
		return 'S', allSeqPrivs, nil
	case pg.ObjectType_OBJECT_FUNCTION:
		return 'f', privExecute, nil
	case pg.ObjectType_OBJECT_TYPE:
		return 'T', privUsage, nil
	}
	return 0, 0, repr.Unsupported("ALTER DEFAULT PRIVILEGES ON %sS", strings.TrimPrefix(kind.String(), "OBJECT_"))
}

// defaclPrivErr words GRANT's invalid-privilege error as ALTER DEFAULT
// PRIVILEGES does ("for relation").
func defaclPrivErr(err error) error {
	if re, ok := err.(*repr.Error); ok && re.Code == codeInvalidPrivType {
		return repr.Errorf(codeInvalidPrivType, "%s", strings.Replace(re.Message, "for table", "for relation", 1))
	}
	return err
}

// defaclOptions reads FOR ROLE (default: the current user; the caller
// must be a member of each, 42501) and IN SCHEMA (nil: none).
func (p *Portal) defaclOptions(opts []*pg.Node) (roles []uint32, schemas []string, err error) {
	s := p.st.s
	for _, n := range opts {
		d := n.GetDefElem()
		for _, item := range d.Arg.GetList().GetItems() {
			if d.Defname == "schemas" {
				schemas = append(schemas, item.GetString_().GetSval())
				continue
			}
			name := p.roleSpecName(item.GetRoleSpec())
			r, ok := s.e.role(name)
			if !ok {
				return nil, nil, repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", name)
			}
			if !s.e.isMemberOf(s.currentUser(), r.OID) {
				return nil, nil, repr.Errorf(codeInsufficientPrivilege, "must be member of role \"%s\"", name)
			}
			roles = append(roles, r.OID)
		}
	}
	if roles == nil {
		r, _ := s.e.role(s.currentUser())
		roles = []uint32{r.OID}
	}
	return roles, schemas, nil
}

// changeDefaultACL applies one grant or revoke to the entry of (role, ns,
// typ) in entries, creating it (from the built-in default for a global
// one, else empty) or removing it when it returns to that; new entries
// take an ID from b.
func (e *Engine) changeDefaultACL(entries []*DefaultACL, b *storage.Batch, role, ns uint32, typ byte, all, privs aclMode, grantees []uint32, gs *pg.GrantStmt) []*DefaultACL {
	var builtin []ACLItem
	if ns == 0 {
		builtin = defaclBuiltin(role, typ)
	}
	i := slices.IndexFunc(entries, func(d *DefaultACL) bool { return d.Role == role && d.NS == ns && d.ObjType == typ })
	acl := slices.Clone(builtin)
	if i >= 0 {
		acl = slices.Clone(entries[i].ACL)
	}
	for _, g := range grantees {
		acl = applyACL(acl, g, role, privs, gs.IsGrant, gs.GrantOption)
	}
	sortACL(acl)
	switch {
	case len(acl) == 0 && ns != 0 || ns == 0 && slices.Equal(acl, builtin):
		if i >= 0 {
			entries = slices.Delete(slices.Clone(entries), i, i+1)
		}
	case i >= 0:
		d := *entries[i]
		d.ACL = acl
		entries = slices.Clone(entries)
		entries[i] = &d
	default:
		entries = append(entries, &DefaultACL{ID: e.allocID(b), Role: role, NS: ns, ObjType: typ, ACL: acl})
	}
	return entries
}

// defaclDesc is PostgreSQL's description of a default ACL entry
// ("default privileges on new relations belonging to role r in schema s").
func (c *Catalog) defaclDesc(d *DefaultACL, roleName func(uint32) string) string {
	what := map[byte]string{'r': "relations", 'S': "sequences", 'f': "functions", 'T': "types"}[d.ObjType]
	out := fmt.Sprintf("default privileges on new %s belonging to role %s", what, roleName(d.Role))
	if d.NS != 0 {
		out += " in schema " + c.namespaceName(d.NS)
	}
	return out
}

// dropSchemaDefaultACLs removes the entries of schema oid ns into b,
// returning the remaining entries.
func (e *Engine) dropSchemaDefaultACLs(ns uint32, b *storage.Batch) ([]*DefaultACL, error) {
	entries := slices.DeleteFunc(slices.Clone(e.cat.defACLs), func(d *DefaultACL) bool { return d.NS == ns })
	if len(entries) == len(e.cat.defACLs) {
		return e.cat.defACLs, nil
	}
	return entries, e.persistDefaultACLs(entries, b)
}

// rowsDefaultACL lists pg_default_acl.
func rowsDefaultACL(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_default_acl"]
	var out []repr.Row
	for _, d := range s.cat.defACLs {
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(relOID(d.ID)), "defaclrole": oidD(d.Role),
			"defaclnamespace": oidD(d.NS), "defaclobjtype": charD(d.ObjType), "defaclacl": s.aclDatum(d.ACL)}))
	}
	return out
}

// dropDefaultACLsOf removes the roles' default privileges and their
// grants in others' (DROP OWNED), in one batch.
func (e *Engine) dropDefaultACLsOf(roles map[uint32]bool) error {
	var entries []*DefaultACL
	changed := false
	for _, d := range e.cat.defACLs {
		if roles[d.Role] {
			changed = true
			continue
		}
		acl, ch := withoutRoles(d.ACL, roles)
		if !ch {
			entries = append(entries, d)
			continue
		}
		changed = true
		builtin := defaclBuiltin(d.Role, d.ObjType)
		if d.NS == 0 && !slices.Equal(acl, builtin) || d.NS != 0 && len(acl) > 0 {
			c := *d
			c.ACL = acl
			entries = append(entries, &c)
		}
	}
	if !changed {
		return nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	return e.commitDefaultACLs(entries, b)
}
