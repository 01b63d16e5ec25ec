package sql

import (
	"cmp"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// The other relations of pg_catalog: database, roles, access methods,
// collations, settings, the convenience views (pg_tables, pg_views, ...)
// and the catalogs of objects Eddy does not have, empty but typed so that
// clients' queries over them (psql's \d reads triggers, policies,
// publications, inheritance for every table) run.

func init() {
	defSysRel(111, 1262, nsPgCatalog, "pg_database", false,
		"oid oid, datname name, datdba oid, encoding integer, datlocprovider \"char\", datistemplate boolean, datallowconn boolean, datconnlimit integer, datfrozenxid xid, datminmxid xid, dattablespace oid, datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]",
		rowsDatabase)
	defSysRel(112, 2601, nsPgCatalog, "pg_am", false, "oid oid, amname name, amhandler regproc, amtype \"char\"", rowsAm)
	defSysRel(113, 12000, nsPgCatalog, "pg_roles", true,
		"rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, rolcanlogin boolean, rolreplication boolean, rolconnlimit integer, rolpassword text, rolvaliduntil timestamp with time zone, rolbypassrls boolean, rolconfig text[], oid oid",
		rowsRole("pg_roles"))
	defSysRel(114, 1260, nsPgCatalog, "pg_authid", false,
		"oid oid, rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, rolcanlogin boolean, rolreplication boolean, rolbypassrls boolean, rolconnlimit integer, rolpassword text, rolvaliduntil timestamp with time zone",
		rowsRole("pg_authid"))
	defSysRel(115, 12014, nsPgCatalog, "pg_user", true,
		"usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, usebypassrls boolean, passwd text, valuntil timestamp with time zone, useconfig text[]",
		rowsUser)
	defSysRel(517, 12005, nsPgCatalog, "pg_shadow", true,
		"usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, usebypassrls boolean, passwd text, valuntil timestamp with time zone, useconfig text[]",
		func(s *sysSnap) []repr.Row { return loginRoles(s, "pg_shadow") })
	defSysRel(505, 12010, nsPgCatalog, "pg_group", true, "groname name, grosysid oid, grolist oid[]", rowsGroup)
	defSysRel(116, 1261, nsPgCatalog, "pg_auth_members", false, "roleid oid, member oid, grantor oid, admin_option boolean", rowsAuthMembers)
	defSysRel(117, 3456, nsPgCatalog, "pg_collation", false,
		"oid oid, collname name, collnamespace oid, collowner oid, collprovider \"char\", collisdeterministic boolean, collencoding integer, collcollate text, collctype text, colliculocale text, collversion text",
		rowsCollation)
	defSysRel(118, 12104, nsPgCatalog, "pg_settings", true,
		"name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline integer, pending_restart boolean",
		rowsSettings)
	defSysRel(119, 12033, nsPgCatalog, "pg_tables", true,
		"schemaname name, tablename name, tableowner name, tablespace name, hasindexes boolean, hasrules boolean, hastriggers boolean, rowsecurity boolean",
		rowsTables)
	defSysRel(120, 12028, nsPgCatalog, "pg_views", true, "schemaname name, viewname name, viewowner name, definition text", rowsViews)
	defSysRel(121, 12038, nsPgCatalog, "pg_matviews", true,
		"schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes boolean, ispopulated boolean, definition text",
		rowsMatviews)
	defSysRel(122, 12043, nsPgCatalog, "pg_indexes", true,
		"schemaname name, tablename name, indexname name, tablespace name, indexdef text", rowsIndexes)
	defSysRel(123, 2224, nsPgCatalog, "pg_sequence", false,
		"seqrelid oid, seqtypid oid, seqstart bigint, seqincrement bigint, seqmax bigint, seqmin bigint, seqcache bigint, seqcycle boolean",
		rowsSequence)
	defSysRel(124, 12048, nsPgCatalog, "pg_sequences", true,
		"schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value bigint, min_value bigint, max_value bigint, increment_by bigint, cycle boolean, cache_size bigint, last_value bigint",
		rowsSequences)
	defSysRel(125, 1213, nsPgCatalog, "pg_tablespace", false,
		"oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]", rowsTablespace)
	defSysRel(126, 2612, nsPgCatalog, "pg_language", false,
		"oid oid, lanname name, lanowner oid, lanispl boolean, lanpltrusted boolean, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl aclitem[]",
		rowsLanguage)
	defSysRel(127, 2396, nsPgCatalog, "pg_shdescription", false, "objoid oid, classoid oid, description text", noRows)
	defSysRel(146, 3118, nsPgCatalog, "pg_foreign_table", false, "ftrelid oid, ftserver oid, ftoptions text[]", rowsForeignTable)
	defSysRel(147, 1417, nsPgCatalog, "pg_foreign_server", false,
		"oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, srvacl aclitem[], srvoptions text[]",
		rowsForeignServer)
	defSysRel(140, 3501, nsPgCatalog, "pg_enum", false, "oid oid, enumtypid oid, enumsortorder real, enumlabel name", rowsEnum)
	defEmpty()
}

// defEmpty registers the catalogs of objects Eddy does not have.
func defEmpty() {
	for _, d := range []struct {
		id   uint64
		oid  uint32
		name string
		view bool
		cols string
	}{
		{141, 2611, "pg_inherits", false, "inhrelid oid, inhparent oid, inhseqno integer, inhdetachpending boolean"},
		{142, 2620, "pg_trigger", false, "oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype smallint, tgenabled \"char\", tgisinternal boolean, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable boolean, tginitdeferred boolean, tgnargs smallint, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, tgoldtable name, tgnewtable name"},
		{143, 3256, "pg_policy", false, "oid oid, polname name, polrelid oid, polcmd \"char\", polpermissive boolean, polroles oid[], polqual pg_node_tree, polwithcheck pg_node_tree"},
		{144, 2618, "pg_rewrite", false, "oid oid, rulename name, ev_class oid, ev_type \"char\", ev_enabled \"char\", is_instead boolean, ev_qual pg_node_tree, ev_action pg_node_tree"},
		{145, 3079, "pg_extension", false, "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable boolean, extversion text, extconfig oid[], extcondition text[]"},
		{148, 2328, "pg_foreign_data_wrapper", false, "oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, fdwacl aclitem[], fdwoptions text[]"},
		{149, 6104, "pg_publication", false, "oid oid, pubname name, pubowner oid, puballtables boolean, pubinsert boolean, pubupdate boolean, pubdelete boolean, pubtruncate boolean, pubviaroot boolean"},
		{150, 6106, "pg_publication_rel", false, "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector"},
		{151, 6237, "pg_publication_namespace", false, "oid oid, pnpubid oid, pnnspid oid"},
		{152, 3381, "pg_statistic_ext", false, "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget integer, stxkeys int2vector, stxkind \"char\"[], stxexprs pg_node_tree"},
		{153, 3350, "pg_partitioned_table", false, "partrelid oid, partstrat \"char\", partnatts smallint, partdefid oid, partattrs int2vector, partclass oidvector, partcollation oidvector, partexprs pg_node_tree"},
		{154, 3541, "pg_range", false, "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical regproc, rngsubdiff regproc"},
		{155, 2616, "pg_opclass", false, "oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, opcdefault boolean, opckeytype oid"},
		{156, 2608, "pg_depend", false, "classid oid, objid oid, objsubid integer, refclassid oid, refobjid oid, refobjsubid integer, deptype \"char\""},
		{157, 12073, "pg_locks", true, "locktype text, database oid, relation oid, page integer, tuple smallint, virtualxid text, transactionid xid, classid oid, objid oid, objsubid smallint, virtualtransaction text, pid integer, mode text, granted boolean, fastpath boolean, waitstart timestamp with time zone"},
		{158, 3466, "pg_event_trigger", false, "oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled \"char\", evttags text[]"},
		{159, 2607, "pg_conversion", false, "oid oid, conname name, connamespace oid, conowner oid, conforencoding integer, contoencoding integer, conproc regproc, condefault boolean"},
		{161, 3394, "pg_init_privs", false, "objoid oid, classoid oid, objsubid integer, privtype \"char\", initprivs aclitem[]"},
		{162, 3596, "pg_seclabel", false, "objoid oid, classoid oid, objsubid integer, provider text, label text"},
		{163, 6100, "pg_subscription", false, "oid oid, subdbid oid, subskiplsn pg_lsn, subname name, subowner oid, subenabled boolean, subbinary boolean, substream boolean, subtwophasestate \"char\", subdisableonerr boolean, subconninfo text, subslotname name, subsynccommit text, subpublications text[]"},
		{164, 1418, "pg_user_mapping", false, "oid oid, umuser oid, umserver oid, umoptions text[]"},
		{169, 2753, "pg_opfamily", false, "oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid"},
		{168, 2964, "pg_db_role_setting", false, "setdatabase oid, setrole oid, setconfig text[]"},
		{170, 3602, "pg_ts_config", false, "oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid"},
		{171, 3600, "pg_ts_dict", false, "oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, dictinitoption text"},
		{172, 3601, "pg_ts_parser", false, "oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, prsend regproc, prsheadline regproc, prslextype regproc"},
		{173, 3764, "pg_ts_template", false, "oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc"},
		{174, 12023, "pg_rules", true, "schemaname name, tablename name, rulename name, definition text"},
		{175, 12081, "pg_available_extensions", true, "name name, default_version text, installed_version text, comment text"},
		{176, 12085, "pg_available_extension_versions", true, "name name, version text, installed boolean, superuser boolean, trusted boolean, relocatable boolean, schema name, requires name[], comment text"},
		{177, 12327, "pg_user_mappings", true, "umid oid, srvid oid, srvname name, umuser oid, usename name, umoptions text[]"},
		{178, 12099, "pg_seclabels", true, "objoid oid, classoid oid, objsubid integer, objtype text, objnamespace oid, objname text, provider text, label text"},
		{165, 2600, "pg_aggregate", false, "aggfnoid regproc, aggkind \"char\", aggnumdirectargs smallint, aggtransfn regproc, aggfinalfn regproc, aggcombinefn regproc, aggserialfn regproc, aggdeserialfn regproc, aggmtransfn regproc, aggminvtransfn regproc, aggmfinalfn regproc, aggfinalextra boolean, aggmfinalextra boolean, aggfinalmodify \"char\", aggmfinalmodify \"char\", aggsortop oid, aggtranstype oid, aggtransspace integer, aggmtranstype oid, aggmtransspace integer, agginitval text, aggminitval text"},
	} {
		defSysRel(d.id, d.oid, nsPgCatalog, d.name, d.view, d.cols, noRows)
	}
}

func noRows(*sysSnap) []repr.Row { return nil }

// userName is the bootstrap superuser's name.
func (s *sysSnap) userName() string {
	return s.e.roleName(oidSuperuser)
}

// sessionUser is the reading session's session_user.
func (s *sysSnap) sessionUser() string {
	if s.sess != nil {
		return s.sess.User
	}
	return s.userName()
}

// sessionRoleOID is the OID of the reading session's session_user.
func (s *sysSnap) sessionRoleOID() uint32 {
	r, ok := s.e.role(s.sessionUser())
	if !ok {
		return oidSuperuser
	}
	return r.OID
}

// database is the one database's name: the reading session's.
func (s *sysSnap) database() string {
	if s.sess != nil {
		return s.sess.Database
	}
	return "eddy"
}

func rowsDatabase(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_database"]
	return []repr.Row{r.row(map[string]repr.Datum{
		"oid": oidD(oidDatabase), "datname": nameD(s.database()), "datdba": oidD(oidSuperuser), "encoding": intD(6),
		"datlocprovider": charD('c'), "datallowconn": boolD(true), "datconnlimit": intD(-1), "dattablespace": oidD(1663),
		"datcollate": repr.NewText("C"), "datctype": repr.NewText("C"), "datacl": s.dbACLDatum(),
	})}
}

// dbACLDatum is pg_database.datacl.
func (s *sysSnap) dbACLDatum() repr.Datum {
	if s.cat.objACLs == nil {
		return repr.Null
	}
	return s.aclDatum(s.cat.objACLs.DB)
}

func rowsAm(*sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_am"]
	out := []repr.Row{r.row(map[string]repr.Datum{"oid": oidD(amHeap), "amname": nameD("heap"), "amtype": charD('t')})}
	names := make([]string, 0, len(amOIDs))
	for n := range amOIDs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(amOIDs[n]), "amname": nameD(n), "amtype": charD('i')}))
	}
	return out
}

// rowsRole lists the roles as pg_roles or pg_authid. pg_roles hides
// every password; pg_authid shows the verifiers to superusers only
// (PostgreSQL refuses pg_authid to others altogether).
func rowsRole(rel string) func(*sysSnap) []repr.Row {
	return func(s *sysSnap) []repr.Row {
		r := sysRelsByName["pg_catalog."+rel]
		super := s.readerIsSuperuser()
		var out []repr.Row
		for _, role := range s.e.allRoles() {
			vals := roleVals(role)
			switch {
			case rel == "pg_roles":
				vals["rolpassword"] = repr.NewText("********")
			case role.Password != "" && super:
				vals["rolpassword"] = repr.NewText(role.Password)
			}
			out = append(out, r.row(vals))
		}
		return out
	}
}

// roleVals are the pg_authid columns of role except rolpassword.
func roleVals(role Role) map[string]repr.Datum {
	vals := map[string]repr.Datum{"oid": oidD(role.OID), "rolname": nameD(role.Name),
		"rolsuper": boolD(role.Super), "rolinherit": boolD(!role.NoInherit), "rolcreaterole": boolD(role.CreateRole),
		"rolcreatedb": boolD(role.CreateDB), "rolcanlogin": boolD(role.Login), "rolreplication": boolD(role.Replication),
		"rolbypassrls": boolD(role.BypassRLS), "rolconnlimit": intD(role.ConnLimit)}
	if !role.ValidUntil.IsZero() {
		vals["rolvaliduntil"] = repr.NewTimestampTZ(repr.TimeToTimestamp(role.ValidUntil))
	}
	return vals
}

// readerIsSuperuser reports whether the reading session's current user
// is a superuser (false outside a session).
func (s *sysSnap) readerIsSuperuser() bool {
	if s.sess == nil {
		return false
	}
	r, _ := s.e.role(cmp.Or(s.sess.CurrentUser, s.sess.User))
	return r.Super
}

// rowsUser lists the roles that can log in, as pg_user.
func rowsUser(s *sysSnap) []repr.Row {
	return loginRoles(s, "pg_user")
}

// loginRoles lists the roles that can log in as pg_user (password
// hidden) or pg_shadow (the stored verifier, shown to a superuser, as
// only superusers may read pg_shadow in PostgreSQL) present them.
func loginRoles(s *sysSnap, rel string) []repr.Row {
	r := sysRelsByName["pg_catalog."+rel]
	super := s.readerIsSuperuser()
	var out []repr.Row
	for _, role := range s.e.allRoles() {
		if !role.Login {
			continue
		}
		vals := map[string]repr.Datum{"usename": nameD(role.Name), "usesysid": oidD(role.OID),
			"usecreatedb": boolD(role.CreateDB), "usesuper": boolD(role.Super), "userepl": boolD(role.Replication),
			"usebypassrls": boolD(role.BypassRLS), "passwd": repr.NewText("********")}
		if rel == "pg_shadow" {
			vals["passwd"] = repr.Null
			if role.Password != "" && super {
				vals["passwd"] = repr.NewText(role.Password)
			}
		}
		if !role.ValidUntil.IsZero() {
			vals["valuntil"] = repr.NewTimestampTZ(repr.TimeToTimestamp(role.ValidUntil))
		}
		out = append(out, r.row(vals))
	}
	return out
}

// rowsGroup lists the roles that cannot log in with their members, as
// PostgreSQL's pg_group view of pg_authid does.
func rowsGroup(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_group"]
	roles := s.e.allRoles()
	var out []repr.Row
	for _, g := range roles {
		if g.Login {
			continue
		}
		var members []repr.Datum
		for _, m := range roles {
			for _, ms := range m.MemberOf {
				if ms.Role == g.OID {
					members = append(members, oidD(m.OID))
				}
			}
		}
		out = append(out, r.row(map[string]repr.Datum{"groname": nameD(g.Name), "grosysid": oidD(g.OID),
			"grolist": repr.NewArray(members)}))
	}
	return out
}

// rowsAuthMembers lists the role memberships.
func rowsAuthMembers(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_auth_members"]
	var out []repr.Row
	for _, role := range s.e.allRoles() {
		for _, m := range role.MemberOf {
			out = append(out, r.row(map[string]repr.Datum{"roleid": oidD(m.Role), "member": oidD(role.OID),
				"grantor": oidD(m.Grantor), "admin_option": boolD(m.Admin)}))
		}
	}
	return out
}

func rowsCollation(*sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_collation"]
	var out []repr.Row
	for _, c := range []struct {
		oid  uint32
		name string
		prov byte
	}{{100, "default", 'd'}, {950, "C", 'c'}, {951, "POSIX", 'c'}} {
		vals := map[string]repr.Datum{"oid": oidD(c.oid), "collname": nameD(c.name), "collnamespace": oidD(oidPgCatalog),
			"collowner": oidD(oidSuperuser), "collprovider": charD(c.prov), "collisdeterministic": boolD(true), "collencoding": intD(-1)}
		if c.prov == 'c' {
			vals["collcollate"], vals["collctype"] = repr.NewText(c.name), repr.NewText(c.name)
		}
		out = append(out, r.row(vals))
	}
	return out
}

// rowsSettings lists the session's settings.
// settingRows is pg_show_all_settings(): pg_settings' rows for s.
func (s *Session) settingRows() []repr.Row {
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	return rowsSettings(&sysSnap{e: s.e, cat: s.e.cat, sess: s.info})
}

func rowsSettings(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_settings"]
	defaults := settingDefaults("")
	names := make([]string, 0, len(defaults)+1)
	for n := range defaults {
		names = append(names, n)
	}
	names = append(names, "max_index_keys")
	sort.Strings(names)
	var out []repr.Row
	for _, n := range names {
		v := defaults[n]
		if s.sess != nil && s.sess.Setting != nil {
			if cur, ok := s.sess.Setting(n); ok {
				v = cur
			}
		}
		if n == "max_index_keys" {
			v = "32"
		}
		out = append(out, r.row(map[string]repr.Datum{"name": repr.NewText(canonicalSettingName(n)),
			"setting": repr.NewText(v), "category": repr.NewText("Eddy"), "context": repr.NewText("user"),
			"vartype": repr.NewText("string"), "source": repr.NewText("default"), "boot_val": repr.NewText(defaults[n]),
			"reset_val": repr.NewText(defaults[n]), "pending_restart": boolD(false)}))
	}
	return out
}

// canonicalSettingName spells a setting as PostgreSQL's pg_settings does
// (DateStyle, TimeZone, IntervalStyle).
func canonicalSettingName(n string) string {
	if c := canonicalName(n); c != n {
		return c
	}
	return n
}

// userRels calls f for each catalog object of one of kinds.
func (s *sysSnap) userRels(kinds string, f func(ri *relInfo)) {
	for _, ri := range s.relations() {
		if ri.obj != nil && strings.IndexByte(kinds, ri.kind) >= 0 && !isSystemRelation(ri.obj.ID) {
			f(ri)
		}
	}
}

func rowsTables(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_tables"]
	var out []repr.Row
	s.userRels("r", func(ri *relInfo) {
		out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(s.cat.namespaceName(ri.ns)), "tablename": nameD(ri.name),
			"tableowner": nameD(s.roleDisplay(ri.obj.Owner)), "tablespace": repr.Null, "hasindexes": boolD(len(ri.indexes) > 0)}))
	})
	return out
}

// viewDefinition is pg_get_viewdef's text of a view object.
func viewDefinition(cat *Catalog, o *Object) repr.Datum {
	if o.SQL == "" {
		return repr.Null
	}
	return repr.NewText(deparseView(cat, o, false))
}

func rowsViews(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_views"]
	var out []repr.Row
	s.userRels("v", func(ri *relInfo) {
		out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(s.cat.namespaceName(ri.ns)), "viewname": nameD(ri.name),
			"viewowner": nameD(s.roleDisplay(ri.obj.Owner)), "definition": viewDefinition(s.cat, ri.obj)}))
	})
	return out
}

func rowsMatviews(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_matviews"]
	var out []repr.Row
	s.userRels("m", func(ri *relInfo) {
		out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(s.cat.namespaceName(ri.ns)), "matviewname": nameD(ri.name),
			"matviewowner": nameD(s.roleDisplay(ri.obj.Owner)), "tablespace": repr.Null, "hasindexes": boolD(len(ri.indexes) > 0),
			"ispopulated": boolD(true), "definition": viewDefinition(s.cat, ri.obj)}))
	})
	return out
}

func rowsIndexes(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_indexes"]
	var out []repr.Row
	for _, ri := range s.relations() {
		if ri.index == nil || s.rel(ri.index.table) == nil || s.rel(ri.index.table).obj == nil {
			continue
		}
		t := s.rel(ri.index.table)
		def, _ := getIndexdef(sessionCatalog{}, s, []repr.Datum{oidD(ri.oid)})
		out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(s.cat.namespaceName(t.ns)), "tablename": nameD(t.name),
			"indexname": nameD(ri.name), "tablespace": repr.Null, "indexdef": def}))
	}
	return out
}

// sequenceType is the type of a sequence's values.
func sequenceType(d *SequenceDef) repr.T {
	t, err := repr.TypeByName(d.Type, nil)
	if err != nil {
		return repr.Int8
	}
	return t
}

func rowsSequence(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_sequence"]
	var out []repr.Row
	s.userRels("S", func(ri *relInfo) {
		d := ri.obj.Sequence
		out = append(out, r.row(map[string]repr.Datum{"seqrelid": oidD(ri.oid), "seqtypid": oidD(sequenceType(d).OID()),
			"seqstart": repr.NewInt(d.Start), "seqincrement": repr.NewInt(d.Increment), "seqmax": repr.NewInt(d.Max),
			"seqmin": repr.NewInt(d.Min), "seqcache": repr.NewInt(1), "seqcycle": boolD(d.Cycle)}))
	})
	return out
}

func rowsSequences(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_sequences"]
	var out []repr.Row
	s.userRels("S", func(ri *relInfo) {
		d := ri.obj.Sequence
		out = append(out, r.row(map[string]repr.Datum{"schemaname": nameD(s.cat.namespaceName(ri.ns)), "sequencename": nameD(ri.name),
			"sequenceowner": nameD(s.roleDisplay(ri.obj.Owner)), "data_type": oidD(sequenceType(d).OID()), "start_value": repr.NewInt(d.Start),
			"min_value": repr.NewInt(d.Min), "max_value": repr.NewInt(d.Max), "increment_by": repr.NewInt(d.Increment),
			"cycle": boolD(d.Cycle), "cache_size": repr.NewInt(1), "last_value": s.lastValue(ri.obj)}))
	})
	return out
}

func rowsTablespace(*sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_tablespace"]
	return []repr.Row{
		r.row(map[string]repr.Datum{"oid": oidD(1663), "spcname": nameD("pg_default"), "spcowner": oidD(oidSuperuser)}),
		r.row(map[string]repr.Datum{"oid": oidD(1664), "spcname": nameD("pg_global"), "spcowner": oidD(oidSuperuser)}),
	}
}

func rowsLanguage(*sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_language"]
	var out []repr.Row
	for _, l := range []struct {
		oid  uint32
		name string
	}{{12, "internal"}, {13, "c"}, {14, "sql"}, {oidPlpgsql, "plpgsql"}} {
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(l.oid), "lanname": nameD(l.name), "lanowner": oidD(oidSuperuser),
			"lanpltrusted": boolD(l.oid == 14 || l.oid == oidPlpgsql), "lanispl": boolD(l.oid == oidPlpgsql)}))
	}
	return out
}

// Sources are foreign tables (relkind 'f') whose server is their
// connector and whose options are their WITH options, so psql's \d shows
// "Server: kafka" and "FDW options: (topic 'x', ...)".

// serverOID is the OID of the foreign server standing for a connector.
func serverOID(connector string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(connector))
	return 14000 + h.Sum32()%1000
}

// sources calls f for each source (not connector-fed tables).
func (s *sysSnap) sources(f func(ri *relInfo, def *SourceDef)) {
	s.userRels("f", func(ri *relInfo) {
		if ri.obj.Source != nil {
			f(ri, ri.obj.Source)
		}
	})
}

func rowsForeignTable(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_foreign_table"]
	var out []repr.Row
	s.sources(func(ri *relInfo, def *SourceDef) {
		keys := make([]string, 0, len(def.Options))
		for k := range def.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		opts := make([]repr.Datum, len(keys))
		for i, k := range keys {
			opts[i] = repr.NewText(k + "=" + def.Options[k])
		}
		out = append(out, r.row(map[string]repr.Datum{"ftrelid": oidD(ri.oid), "ftserver": oidD(serverOID(def.Connector)),
			"ftoptions": repr.NewArray(opts)}))
	})
	return out
}

func rowsForeignServer(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_foreign_server"]
	seen := map[string]bool{}
	var out []repr.Row
	s.sources(func(_ *relInfo, def *SourceDef) {
		if seen[def.Connector] {
			return
		}
		seen[def.Connector] = true
		out = append(out, r.row(map[string]repr.Datum{"oid": oidD(serverOID(def.Connector)), "srvname": nameD(def.Connector),
			"srvowner": oidD(oidSuperuser)}))
	})
	return out
}

func init() {
	defSysRel(128, 12222, nsPgCatalog, "pg_stat_activity", true,
		"datid oid, datname name, pid integer, leader_pid integer, usesysid oid, usename name, application_name text, client_addr inet, client_hostname text, client_port integer, backend_start timestamp with time zone, xact_start timestamp with time zone, query_start timestamp with time zone, state_change timestamp with time zone, wait_event_type text, wait_event text, state text, backend_xid xid, backend_xmin xid, query_id bigint, query text, backend_type text",
		rowsStatActivity)
}

// rowsStatActivity lists every session with a connection, or just the
// reading one when there are none (an engine without a wire layer).
func rowsStatActivity(s *sysSnap) []repr.Row {
	r := sysRelsByName["pg_catalog.pg_stat_activity"]
	sessions := s.e.backends.list()
	if len(sessions) == 0 {
		return []repr.Row{selfActivity(s)}
	}
	out := make([]repr.Row, 0, len(sessions))
	for _, sess := range sessions {
		vals := sess.activityRow()
		vals["datid"], vals["usesysid"] = oidD(oidDatabase), oidD(oidSuperuser)
		if r, ok := s.e.role(sess.settings.user); ok {
			vals["usesysid"] = oidD(r.OID)
		}
		vals["backend_type"] = repr.NewText("client backend")
		for _, c := range []string{"leader_pid", "client_hostname", "wait_event_type", "wait_event", "backend_xid", "backend_xmin", "query_id"} {
			vals[c] = repr.Null
		}
		if sess.lockWait.Load() { // waiting in the txGate, as for a relation lock
			vals["wait_event_type"], vals["wait_event"] = repr.NewText("Lock"), repr.NewText("relation")
		}
		out = append(out, r.row(vals))
	}
	return out
}

// selfActivity is the reading session's row when it has no connection.
func selfActivity(s *sysSnap) repr.Row {
	r := sysRelsByName["pg_catalog.pg_stat_activity"]
	app := ""
	if s.sess != nil && s.sess.Setting != nil {
		app, _ = s.sess.Setting("application_name")
	}
	return r.row(map[string]repr.Datum{"datid": oidD(oidDatabase), "datname": nameD(s.database()),
		"usesysid": oidD(s.sessionRoleOID()), "usename": nameD(s.sessionUser()), "application_name": repr.NewText(app),
		"backend_start": repr.NewTimestampTZ(repr.TimeToTimestamp(processStart)), "state": repr.NewText("active"),
		"backend_type": repr.NewText("client backend"), "leader_pid": repr.Null, "client_port": repr.Null,
		"backend_xid": repr.Null, "backend_xmin": repr.Null, "query_id": repr.Null})
}

// lastValue is pg_sequences.last_value: the last value nextval handed
// out, NULL before the first.
func (s *sysSnap) lastValue(o *Object) repr.Datum {
	s.e.seqMu.Lock()
	defer s.e.seqMu.Unlock()
	if st := s.e.seqs[qualified(o.Schema, o.Name)]; st != nil && st.called {
		return repr.NewInt(st.last)
	}
	return repr.Null
}
