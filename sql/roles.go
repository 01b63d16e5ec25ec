package sql

import (
	"encoding/json"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// Role is a role as stored: PostgreSQL's pg_authid row plus the role's
// memberships (pg_auth_members rows whose member it is).
type Role struct {
	OID        uint32
	Name       string
	Super      bool `json:",omitempty"`
	NoInherit  bool `json:",omitempty"` // NOINHERIT; inheriting is the default
	CreateRole bool `json:",omitempty"`
	CreateDB   bool `json:",omitempty"`
	Login      bool `json:",omitempty"`
	// Replication and BypassRLS are kept for the catalogs; Eddy has no
	// replication connections and no row-level security.
	Replication bool `json:",omitempty"`
	BypassRLS   bool `json:",omitempty"`
	// ConnLimit is CONNECTION LIMIT; -1 is no limit.
	ConnLimit int
	// Password is the verifier (password.go); "" is no password.
	Password string `json:",omitempty"`
	// ValidUntil ends the password's validity; zero is forever.
	ValidUntil time.Time `json:",omitzero"`
	// MemberOf are the roles this role is a member of.
	MemberOf []Membership `json:",omitempty"`
	// predefined roles exist in every data directory and are not stored.
	predefined bool
}

// Membership is one pg_auth_members row seen from its member.
type Membership struct {
	Role    uint32
	Grantor uint32
	Admin   bool `json:",omitempty"`
}

// Predefined roles. pg_create_connector is Eddy's: its members may create
// sources, sinks and connector-fed tables (making the server open network
// connections), as PostgreSQL's pg_read_server_files lets its members make
// the server read files. Names starting with pg_ are reserved.
const (
	oidCreateConnector  uint32 = 8999
	roleCreateConnector        = "pg_create_connector"
	// firstRoleOID is the first OID given to a created role.
	firstRoleOID uint32 = 16384
)

// roleSet holds the roles. Its own lock guards it (logins read it without
// waiting for commits); the set is stored whole under one metadata key,
// since roles are few and change rarely.
type roleSet struct {
	mu      sync.RWMutex
	byName  map[string]*Role
	nextOID uint32
	// committed, while a block with DDL is open, are the roles before
	// it, which authentication reads (ddltxn.go): a role the block
	// creates or changes logs in only once it commits.
	committed map[string]*Role
}

// storedRoles is the stored form of the role set.
type storedRoles struct {
	NextOID uint32
	Roles   []*Role
}

var metaRoles = storage.MetaKey("roles")

// predefinedRoles returns the roles every data directory has besides the
// bootstrap superuser.
func predefinedRoles() []*Role {
	return []*Role{
		{OID: oidDatabaseOwner, Name: "pg_database_owner", ConnLimit: -1, predefined: true},
		{OID: oidCreateConnector, Name: roleCreateConnector, ConnLimit: -1, predefined: true},
	}
}

// loadRoles reads the stored roles (none in a new data directory).
func (e *Engine) loadRoles() error {
	rs := &e.roles
	rs.byName, rs.nextOID = map[string]*Role{}, firstRoleOID
	for _, r := range predefinedRoles() {
		rs.byName[r.Name] = r
	}
	v, ok, err := e.db.Get(metaRoles)
	if err != nil || !ok {
		return err
	}
	var st storedRoles
	if err := json.Unmarshal(v, &st); err != nil {
		return err
	}
	rs.nextOID = max(st.NextOID, firstRoleOID)
	for _, r := range st.Roles {
		rs.byName[r.Name] = r
	}
	return nil
}

// saveRoles durably stores the role set; the caller holds roles.mu.
func (e *Engine) saveRoles() error {
	st := storedRoles{NextOID: e.roles.nextOID}
	for _, r := range e.roles.byName {
		if !r.predefined {
			st.Roles = append(st.Roles, r)
		}
	}
	sort.Slice(st.Roles, func(i, j int) bool { return st.Roles[i].OID < st.Roles[j].OID })
	v, err := json.Marshal(st)
	if err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	b.Set(metaRoles, v)
	return e.commitDDL(b)
}

// changeRoles applies fn to a copy of the role set and stores the result;
// the roles are unchanged if fn or the write fails.
func (e *Engine) changeRoles(fn func(roles map[string]*Role) error) error {
	rs := &e.roles
	rs.mu.Lock()
	defer rs.mu.Unlock()
	work := make(map[string]*Role, len(rs.byName))
	for n, r := range rs.byName {
		c := *r
		c.MemberOf = slices.Clone(r.MemberOf)
		work[n] = &c
	}
	old, oldNext := rs.byName, rs.nextOID
	if err := fn(work); err != nil {
		rs.nextOID = oldNext
		return err
	}
	rs.byName = work
	if err := e.saveRoles(); err != nil {
		rs.byName, rs.nextOID = old, oldNext
		return err
	}
	return nil
}

// BootstrapRole makes sure the bootstrap superuser exists: a data
// directory without one gets it (OID 10, as PostgreSQL's initdb user), and
// a non-empty password replaces its password (the operator's way back in).
func (e *Engine) BootstrapRole(name, password string) error {
	if e.roleName(oidSuperuser) != "" && password == "" {
		return nil
	}
	return e.changeRoles(func(roles map[string]*Role) error {
		r := roleByOID(roles, oidSuperuser)
		if r == nil {
			r = &Role{OID: oidSuperuser, Name: name, Super: true, CreateRole: true, CreateDB: true, Login: true,
				Replication: true, BypassRLS: true, ConnLimit: -1}
			roles[name] = r
		}
		if password == "" {
			return nil
		}
		v, err := encryptPassword(r.Name, password, "scram-sha-256")
		r.Password = v
		return err
	})
}

// BootstrapUser is the bootstrap superuser's name.
func (e *Engine) BootstrapUser() string { return e.roleName(oidSuperuser) }

// roleByOID finds a role by OID in roles (nil if none).
func roleByOID(roles map[string]*Role, oid uint32) *Role {
	for _, r := range roles {
		if r.OID == oid {
			return r
		}
	}
	return nil
}

// role returns a copy of the named role.
func (e *Engine) role(name string) (Role, bool) {
	e.roles.mu.RLock()
	defer e.roles.mu.RUnlock()
	r, ok := e.roles.byName[name]
	if !ok {
		return Role{}, false
	}
	return *r, true
}

// roleName returns the name of the role with oid ("" if none).
func (e *Engine) roleName(oid uint32) string {
	e.roles.mu.RLock()
	defer e.roles.mu.RUnlock()
	if r := roleByOID(e.roles.byName, oid); r != nil {
		return r.Name
	}
	return ""
}

// allRoles returns copies of every role in OID order.
func (e *Engine) allRoles() []Role {
	e.roles.mu.RLock()
	defer e.roles.mu.RUnlock()
	out := make([]Role, 0, len(e.roles.byName))
	for _, r := range e.roles.byName {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// RoleAuth is what authentication needs to know about a role.
type RoleAuth struct {
	Name       string
	Super      bool
	Login      bool
	ConnLimit  int
	Password   string
	ValidUntil time.Time
}

// LookupRole returns the named role's authentication data.
func (e *Engine) LookupRole(name string) (RoleAuth, bool) {
	e.roles.mu.RLock()
	roles := e.roles.byName
	if e.roles.committed != nil {
		roles = e.roles.committed
	}
	r, ok := roles[name]
	e.roles.mu.RUnlock()
	if !ok {
		return RoleAuth{}, false
	}
	return RoleAuth{Name: r.Name, Super: r.Super, Login: r.Login, ConnLimit: r.ConnLimit,
		Password: r.Password, ValidUntil: r.ValidUntil}, true
}

// HasLoginPassword reports whether some role can log in with a password.
func (e *Engine) HasLoginPassword() bool {
	for _, r := range e.allRoles() {
		if r.Login && r.Password != "" {
			return true
		}
	}
	return false
}

// isSuperuser reports whether role (by name) is a superuser.
func (e *Engine) isSuperuser(role string) bool {
	e.roles.mu.RLock()
	defer e.roles.mu.RUnlock()
	r := e.roles.byName[role]
	return r != nil && r.Super
}

// isMemberOf reports whether role (by name) has the privileges of target:
// it is target, a superuser, or a member of it through a chain of
// memberships of roles that inherit (PostgreSQL's has_privs_of_role).
func (e *Engine) isMemberOf(role string, target uint32) bool {
	e.roles.mu.RLock()
	defer e.roles.mu.RUnlock()
	r := e.roles.byName[role]
	if r == nil {
		return false
	}
	if r.Super || r.OID == target {
		return true
	}
	return reaches(e.roles.byName, r, target, true)
}

// reaches reports whether target is reachable from r through memberships
// (only through roles that inherit when inherit is set).
func reaches(roles map[string]*Role, r *Role, target uint32, inherit bool) bool {
	seen := map[uint32]bool{r.OID: true}
	queue := []*Role{r}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if inherit && cur.NoInherit {
			continue
		}
		for _, m := range cur.MemberOf {
			if m.Role == target {
				return true
			}
			if !seen[m.Role] {
				seen[m.Role] = true
				if next := roleByOID(roles, m.Role); next != nil {
					queue = append(queue, next)
				}
			}
		}
	}
	return false
}

// Databases lists the databases a client may connect to: PostgreSQL's
// postgres, and eddy, the data directory's. Both name the same data.
var Databases = []string{"eddy", "postgres"}

// DatabaseExists reports whether a client may connect to database name;
// unknown ones fail with 3D000 as in PostgreSQL.
func DatabaseExists(name string) error {
	if slices.Contains(Databases, name) {
		return nil
	}
	return repr.Errorf("3D000", "database \"%s\" does not exist", name)
}
