package sql

import (
	"cmp"
	"math"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// Role statements: CREATE/ALTER/DROP ROLE (and USER, GROUP), GRANT and
// REVOKE of role membership, ALTER ROLE ... RENAME TO, SET/RESET ROLE.
// They take effect at once and durably, whatever the transaction block
// (PostgreSQL makes them transactional; Eddy's DDL is not).

// errCodeReserved is reserved_name, for pg_ role names.
const errCodeReserved = "42939"

// roleCaller is the role a role statement runs as, with its attributes.
func (p *Portal) roleCaller() Role {
	r, _ := p.st.s.e.role(p.st.s.currentUser())
	return r
}

// execCreateRole runs CREATE ROLE|USER|GROUP.
func (p *Portal) execCreateRole(st *pg.CreateRoleStmt) error {
	p.tag = "CREATE ROLE"
	caller := p.roleCaller()
	if !caller.Super && !caller.CreateRole {
		return repr.Errorf("42501", "permission denied to create role")
	}
	if strings.HasPrefix(st.Role, "pg_") {
		return reservedRole(st.Role)
	}
	r := &Role{Name: st.Role, NoInherit: false, ConnLimit: -1, Login: st.StmtType == pg.RoleStmtType_ROLESTMT_USER}
	opts, err := p.roleOptions(st.Role, st.Options)
	if err != nil {
		return err
	}
	if err := opts.check(caller, r); err != nil {
		return err
	}
	return p.st.s.e.changeRoles(func(roles map[string]*Role) error {
		if roles[r.Name] != nil {
			return repr.Errorf(repr.CodeDuplicateObject, "role \"%s\" already exists", r.Name)
		}
		r.OID = p.st.s.e.roles.nextOID
		p.st.s.e.roles.nextOID++
		roles[r.Name] = r
		opts.apply(r)
		return opts.applyMembers(roles, r, caller.OID)
	})
}

// reservedRole is PostgreSQL's error for a pg_ role name.
func reservedRole(name string) error {
	e := repr.Errorf(errCodeReserved, "role name \"%s\" is reserved", name)
	e.Detail = "Role names starting with \"pg_\" are reserved."
	return e
}

// roleOpts are the parsed options of CREATE/ALTER ROLE; nil fields are
// not mentioned.
type roleOpts struct {
	super, createRole, createDB, login, inherit *bool
	replication, bypassRLS                      *bool
	connLimit                                   *int
	password                                    *string // "" is PASSWORD NULL
	validUntil                                  *time.Time
	inRoles, members, admins                    []string
}

// roleOptions parses DefElem options; the password is encrypted with the
// session's password_encryption.
func (p *Portal) roleOptions(name string, opts []*pg.Node) (*roleOpts, error) {
	o := &roleOpts{}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if err := p.roleOption(o, name, d); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// roleOption parses one option into o.
func (p *Portal) roleOption(o *roleOpts, name string, d *pg.DefElem) error {
	b := func() *bool { v := d.Arg.GetBoolean().GetBoolval(); return &v }
	switch d.Defname {
	case "superuser":
		o.super = b()
	case "createrole":
		o.createRole = b()
	case "createdb":
		o.createDB = b()
	case "canlogin":
		o.login = b()
	case "inherit":
		o.inherit = b()
	case "isreplication":
		o.replication = b()
	case "bypassrls":
		o.bypassRLS = b()
	case "connectionlimit":
		v := int(d.Arg.GetInteger().GetIval())
		if v < -1 {
			return repr.Errorf(repr.CodeInvalidParameter, "invalid connection limit: %d", v)
		}
		o.connLimit = &v
	case "password":
		return p.passwordOption(o, name, d)
	case "validUntil":
		return validUntilOption(o, d.Arg.GetString_().GetSval())
	case "addroleto":
		o.inRoles = roleSpecNames(d.Arg.GetList().GetItems())
	case "rolemembers":
		o.members = roleSpecNames(d.Arg.GetList().GetItems())
	case "adminmembers":
		o.admins = roleSpecNames(d.Arg.GetList().GetItems())
	default:
		return repr.Unsupported("role option %s", strings.ToUpper(d.Defname))
	}
	return nil
}

// passwordOption encrypts PASSWORD 'x' (or records PASSWORD NULL).
func (p *Portal) passwordOption(o *roleOpts, name string, d *pg.DefElem) error {
	v := ""
	if s := d.Arg.GetString_(); s != nil {
		method, _ := p.st.s.settings.get("password_encryption")
		enc, err := encryptPassword(name, s.Sval, method)
		if err != nil {
			return repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"password_encryption\": \"%s\"", method)
		}
		v = enc
	}
	o.password = &v
	return nil
}

// validUntilOption parses VALID UNTIL; 'infinity' is forever.
func validUntilOption(o *roleOpts, s string) error {
	t := time.Time{}
	if !strings.EqualFold(strings.TrimSpace(s), "infinity") {
		d, err := repr.ParseText(s, repr.TimestampTZ, time.UTC)
		if err != nil {
			return err
		}
		if us := d.Int(); us != math.MaxInt64 {
			t = repr.TimestampToTime(us)
		}
	}
	o.validUntil = &t
	return nil
}

// roleSpecNames returns the names of RoleSpec nodes.
func roleSpecNames(items []*pg.Node) []string {
	var out []string
	for _, it := range items {
		if rs := it.GetRoleSpec(); rs != nil {
			out = append(out, rs.Rolename)
		}
	}
	return out
}

// check enforces who may set what: only superusers create or alter
// superusers or give SUPERUSER.
func (o *roleOpts) check(caller Role, target *Role) error {
	if caller.Super {
		return nil
	}
	if target.Super || isSet(o.super) || isSet(o.replication) || isSet(o.bypassRLS) {
		return repr.Errorf("42501", "must be superuser to create or alter superusers")
	}
	return nil
}

// isSet reports whether an option is given and true.
func isSet(b *bool) bool { return b != nil && *b }

// apply sets the attributes o mentions on r.
func (o *roleOpts) apply(r *Role) {
	set := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	set(&r.Super, o.super)
	set(&r.CreateRole, o.createRole)
	set(&r.CreateDB, o.createDB)
	set(&r.Login, o.login)
	set(&r.Replication, o.replication)
	set(&r.BypassRLS, o.bypassRLS)
	if o.inherit != nil {
		r.NoInherit = !*o.inherit
	}
	if o.connLimit != nil {
		r.ConnLimit = *o.connLimit
	}
	if o.password != nil {
		r.Password = *o.password
	}
	if o.validUntil != nil {
		r.ValidUntil = *o.validUntil
	}
}

// applyMembers adds the memberships of IN ROLE, ROLE and ADMIN.
func (o *roleOpts) applyMembers(roles map[string]*Role, r *Role, grantor uint32) error {
	for _, n := range o.inRoles {
		if err := grantRole(roles, n, r.Name, grantor, false); err != nil {
			return err
		}
	}
	for _, list := range []struct {
		names []string
		admin bool
	}{{o.members, false}, {o.admins, true}} {
		for _, n := range list.names {
			if err := grantRole(roles, r.Name, n, grantor, list.admin); err != nil {
				return err
			}
		}
	}
	return nil
}

// execAlterRole runs ALTER ROLE name [WITH] options.
func (p *Portal) execAlterRole(st *pg.AlterRoleStmt) error {
	p.tag = "ALTER ROLE"
	name := p.roleSpecName(st.Role)
	caller := p.roleCaller()
	opts, err := p.roleOptions(name, st.Options)
	if err != nil {
		return err
	}
	if len(opts.inRoles)+len(opts.members)+len(opts.admins) > 0 {
		return repr.Unsupported("ALTER ROLE with role memberships (use GRANT)")
	}
	return p.st.s.e.changeRoles(func(roles map[string]*Role) error {
		r := roles[name]
		if r == nil {
			return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", name)
		}
		if err := alterAllowed(caller, r, opts); err != nil {
			return err
		}
		if err := opts.check(caller, r); err != nil {
			return err
		}
		opts.apply(r)
		return nil
	})
}

// alterAllowed: superusers alter anyone, CREATEROLE roles alter
// non-superusers, and a role may change its own password.
func alterAllowed(caller Role, r *Role, o *roleOpts) error {
	switch {
	case caller.Super:
		return nil
	case r.predefined:
		return reservedRole(r.Name)
	case caller.CreateRole && !r.Super:
		return nil
	case caller.OID == r.OID && onlyPassword(o):
		return nil
	}
	return repr.Errorf("42501", "permission denied to alter role \"%s\"", r.Name)
}

// onlyPassword reports whether o changes nothing but the password.
func onlyPassword(o *roleOpts) bool {
	c := *o
	c.password = nil
	return c.super == nil && c.createRole == nil && c.createDB == nil && c.login == nil &&
		c.replication == nil && c.bypassRLS == nil &&
		c.inherit == nil && c.connLimit == nil && c.validUntil == nil
}

// roleSpecName resolves a RoleSpec (a name, CURRENT_USER, SESSION_USER).
func (p *Portal) roleSpecName(rs *pg.RoleSpec) string {
	switch rs.GetRoletype() {
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return p.st.s.currentUser()
	case pg.RoleSpecType_ROLESPEC_SESSION_USER:
		return p.st.s.settings.user
	}
	return rs.GetRolename()
}

// execDropRole runs DROP ROLE [IF EXISTS] names; memberships in and of the
// dropped roles go with them.
func (p *Portal) execDropRole(st *pg.DropRoleStmt) error {
	p.tag = "DROP ROLE"
	caller := p.roleCaller()
	if !caller.Super && !caller.CreateRole {
		return repr.Errorf("42501", "permission denied to drop role")
	}
	s := p.st.s
	// The catalog cannot change while the roles are checked and dropped
	// (the engine's lock comes before the roles').
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	inUse := map[string]error{}
	for _, n := range st.Roles {
		name := p.roleSpecName(n.GetRoleSpec())
		inUse[name] = s.checkRoleUnused(s.e.cat, name)
	}
	return s.e.changeRoles(func(roles map[string]*Role) error {
		for _, n := range st.Roles {
			if err := p.dropRole(roles, caller, p.roleSpecName(n.GetRoleSpec()), st.MissingOk, inUse); err != nil {
				return err
			}
		}
		return nil
	})
}

// dropRole removes one role from roles; inUse holds the dependency
// error of each role named (checkRoleUnused).
func (p *Portal) dropRole(roles map[string]*Role, caller Role, name string, missingOK bool, inUse map[string]error) error {
	r := roles[name]
	switch {
	case r == nil && missingOK:
		return nil
	case r == nil:
		return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", name)
	case name == p.st.s.currentUser():
		return repr.Errorf(repr.CodeObjectInUse, "current user cannot be dropped")
	case name == p.st.s.settings.user:
		return repr.Errorf(repr.CodeObjectInUse, "session user cannot be dropped")
	case r.predefined || r.OID == oidSuperuser:
		return repr.Errorf(repr.CodeDependentObjects, "cannot drop role %s because it is required by the database system", name)
	case r.Super && !caller.Super:
		return repr.Errorf("42501", "must be superuser to drop superusers")
	case inUse[name] != nil:
		return inUse[name]
	}
	delete(roles, name)
	for _, o := range roles {
		o.MemberOf = removeMembership(o.MemberOf, r.OID)
	}
	return nil
}

// removeMembership drops the membership in role oid from ms.
func removeMembership(ms []Membership, oid uint32) []Membership {
	out := ms[:0]
	for _, m := range ms {
		if m.Role != oid {
			out = append(out, m)
		}
	}
	return out
}

// execRenameRole runs ALTER ROLE old RENAME TO new. An md5 password is
// salted with the role name, so it is cleared, as in PostgreSQL.
func (p *Portal) execRenameRole(rs *pg.RenameStmt) error {
	p.tag = "ALTER ROLE"
	caller := p.roleCaller()
	if strings.HasPrefix(rs.Newname, "pg_") {
		return reservedRole(rs.Newname)
	}
	return p.st.s.e.changeRoles(func(roles map[string]*Role) error {
		r := roles[rs.Subname]
		switch {
		case r == nil:
			return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", rs.Subname)
		case roles[rs.Newname] != nil:
			return repr.Errorf(repr.CodeDuplicateObject, "role \"%s\" already exists", rs.Newname)
		case rs.Subname == p.st.s.settings.user:
			return repr.Unsupported("renaming the session user")
		case rs.Subname == p.st.s.currentUser():
			return repr.Unsupported("renaming the current user")
		case !caller.Super && (r.Super || !caller.CreateRole):
			return repr.Errorf("42501", "permission denied to rename role")
		case r.predefined:
			return reservedRole(r.Name)
		}
		delete(roles, r.Name)
		r.Name = rs.Newname
		if strings.HasPrefix(r.Password, "md5") {
			r.Password = ""
		}
		roles[r.Name] = r
		return nil
	})
}

// execGrantRole runs GRANT role TO role / REVOKE role FROM role.
func (p *Portal) execGrantRole(st *pg.GrantRoleStmt) error {
	p.tag = map[bool]string{true: "GRANT ROLE", false: "REVOKE ROLE"}[st.IsGrant]
	caller := p.roleCaller()
	admin := false
	for _, o := range st.Opt {
		if d := o.GetDefElem(); d != nil && d.Defname == "admin" {
			admin = d.Arg.GetBoolean().GetBoolval() || d.Arg == nil
		} else if d != nil {
			return repr.Unsupported("GRANT role WITH %s OPTION", strings.ToUpper(d.Defname))
		}
	}
	return p.st.s.e.changeRoles(func(roles map[string]*Role) error {
		for _, g := range st.GrantedRoles {
			granted := g.GetAccessPriv().GetPrivName()
			if err := mayGrant(roles, caller, granted); err != nil {
				return err
			}
			for _, m := range st.GranteeRoles {
				member := p.roleSpecName(m.GetRoleSpec())
				var err error
				if st.IsGrant {
					err = grantRole(roles, granted, member, caller.OID, admin)
				} else {
					err = revokeRole(roles, granted, member, admin)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// mayGrant checks that caller may grant or revoke membership in granted:
// a superuser, a CREATEROLE role for non-superuser roles, or a member
// with ADMIN OPTION.
func mayGrant(roles map[string]*Role, caller Role, granted string) error {
	r := roles[granted]
	if r == nil {
		return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", granted)
	}
	if caller.Super || (caller.CreateRole && !r.Super) {
		return nil
	}
	for _, m := range caller.MemberOf {
		if m.Role == r.OID && m.Admin {
			return nil
		}
	}
	return repr.Errorf("42501", "must have admin option on role \"%s\"", granted)
}

// grantRole makes member a member of granted, refusing cycles.
func grantRole(roles map[string]*Role, granted, member string, grantor uint32, admin bool) error {
	g, m := roles[granted], roles[member]
	switch {
	case g == nil:
		return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", granted)
	case m == nil:
		return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", member)
	case g.OID == m.OID || reaches(roles, g, m.OID, false):
		return repr.Errorf("0LP01", "role \"%s\" is a member of role \"%s\"", granted, member)
	}
	for i, ms := range m.MemberOf {
		if ms.Role == g.OID {
			m.MemberOf[i].Admin = ms.Admin || admin
			return nil
		}
	}
	m.MemberOf = append(m.MemberOf, Membership{Role: g.OID, Grantor: grantor, Admin: admin})
	return nil
}

// revokeRole ends member's membership in granted (or only its admin
// option with REVOKE ADMIN OPTION FOR); revoking what was not granted
// does nothing.
func revokeRole(roles map[string]*Role, granted, member string, adminOnly bool) error {
	g, m := roles[granted], roles[member]
	if m == nil {
		return repr.Errorf(repr.CodeUndefinedObject, "role \"%s\" does not exist", member)
	}
	if adminOnly {
		for i := range m.MemberOf {
			if m.MemberOf[i].Role == g.OID {
				m.MemberOf[i].Admin = false
			}
		}
		return nil
	}
	m.MemberOf = removeMembership(m.MemberOf, g.OID)
	return nil
}

// setRole runs SET ROLE name / SET ROLE NONE / RESET ROLE: the session
// user must be a superuser or a member of the role.
func (s *Session) setRole(name string) error {
	if name == "" || strings.EqualFold(name, "none") {
		s.role = ""
		s.identityChanged()
		return nil
	}
	r, ok := s.e.role(name)
	if !ok {
		return repr.Errorf(repr.CodeInvalidParameter, "role \"%s\" does not exist", name)
	}
	if !s.e.isMemberOf(s.settings.user, r.OID) && !s.memberIgnoringInherit(r.OID) {
		return repr.Errorf("42501", "permission denied to set role \"%s\"", name)
	}
	s.role = name
	s.identityChanged()
	return nil
}

// identity is who a session acts as: its session user (SET SESSION
// AUTHORIZATION) and its SET ROLE role ("" for NONE). Both are settings in
// PostgreSQL, so a rollback undoes them (txn.go saves one per block and
// savepoint).
type identity struct{ user, role string }

// who returns the session's identity.
func (s *Session) who() identity { return identity{user: s.settings.user, role: s.role} }

// restoreIdentity makes id the session's identity again, with
// session_authorization, is_superuser and current_user in step with it.
func (s *Session) restoreIdentity(id identity) {
	if s.who() == id {
		return
	}
	if s.settings.user != id.user {
		s.settings.user = id.user
		s.settings.changed["session_authorization"] = id.user
		if s.info != nil {
			s.info.User = id.user
		}
	}
	s.role = id.role
	s.identityChanged()
}

// setSessionAuthorization runs SET SESSION AUTHORIZATION name (name ""
// for DEFAULT or RESET: the user who logged in). As in PostgreSQL, the
// user who logged in must be a superuser unless name is that user, and
// the SET ROLE role becomes NONE.
func (s *Session) setSessionAuthorization(name string) error {
	if name == "" || strings.EqualFold(name, "default") {
		name = s.authUser
	}
	if _, ok := s.e.role(name); !ok {
		return repr.Errorf(repr.CodeInvalidParameter, "role \"%s\" does not exist", name)
	}
	if auth, _ := s.e.role(s.authUser); name != s.authUser && !auth.Super {
		return repr.Errorf("42501", "permission denied to set session authorization \"%s\"", name)
	}
	s.restoreIdentity(identity{user: name})
	return nil
}

// memberIgnoringInherit reports whether the session user is a member of
// oid through any chain (SET ROLE does not need INHERIT).
func (s *Session) memberIgnoringInherit(oid uint32) bool {
	s.e.roles.mu.RLock()
	defer s.e.roles.mu.RUnlock()
	r := s.e.roles.byName[s.settings.user]
	return r != nil && reaches(s.e.roles.byName, r, oid, false)
}

// currentUser is current_user: the SET ROLE role, else the session user.
func (s *Session) currentUser() string {
	if s.role != "" {
		return s.role
	}
	return s.settings.user
}

// identityChanged updates what current_user, is_superuser and the
// session_authorization and role settings report.
func (s *Session) identityChanged() {
	if s.info != nil {
		s.info.CurrentUser = s.currentUser()
	}
	s.settings.vals["session_authorization"] = s.settings.user
	s.settings.vals["role"] = cmp.Or(s.role, "none")
	r, _ := s.e.role(s.currentUser())
	v := map[bool]string{true: "on", false: "off"}[r.Super]
	if s.settings.vals["is_superuser"] != v {
		s.settings.vals["is_superuser"] = v
		s.settings.changed["is_superuser"] = v
	}
}

// IsSuperuser reports whether the session's current user is a superuser.
func (s *Session) IsSuperuser() bool {
	r, _ := s.e.role(s.currentUser())
	return r.Super
}

// MayCreateConnector checks that the current user may create a source,
// sink or connector-fed table: a superuser or a member of
// pg_create_connector.
func (s *Session) MayCreateConnector() error {
	if s.e.isMemberOf(s.currentUser(), oidCreateConnector) {
		return nil
	}
	e := repr.Errorf("42501", "permission denied to create a connector")
	e.Hint = "Only superusers and members of " + roleCreateConnector + " may create sources and sinks."
	return e
}
