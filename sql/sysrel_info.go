package sql

import (
	"github.com/eddydb/eddy/repr"
)

// information_schema: the SQL standard's views of the catalog, with
// PostgreSQL 15's columns (its domains presented as their base types:
// sql_identifier as name, cardinal_number as integer, character_data and
// yes_or_no as varchar).

func init() {
	defSysRel(300, 13382, nsInfoSchema, "schemata", true,
		"catalog_name information_schema.sql_identifier, schema_name information_schema.sql_identifier, schema_owner information_schema.sql_identifier, default_character_set_catalog information_schema.sql_identifier, default_character_set_schema information_schema.sql_identifier, default_character_set_name information_schema.sql_identifier, sql_path information_schema.character_data",
		rowsSchemata)
	defSysRel(301, 13425, nsInfoSchema, "tables", true,
		"table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, table_type information_schema.character_data, self_referencing_column_name information_schema.sql_identifier, reference_generation information_schema.character_data, user_defined_type_catalog information_schema.sql_identifier, user_defined_type_schema information_schema.sql_identifier, user_defined_type_name information_schema.sql_identifier, is_insertable_into information_schema.yes_or_no, is_typed information_schema.yes_or_no, commit_action information_schema.character_data",
		rowsInfoTables)
	defSysRel(302, 13295, nsInfoSchema, "columns", true,
		"table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, column_name information_schema.sql_identifier, ordinal_position information_schema.cardinal_number, column_default information_schema.character_data, is_nullable information_schema.yes_or_no, data_type information_schema.character_data, character_maximum_length information_schema.cardinal_number, character_octet_length information_schema.cardinal_number, numeric_precision information_schema.cardinal_number, numeric_precision_radix information_schema.cardinal_number, numeric_scale information_schema.cardinal_number, datetime_precision information_schema.cardinal_number, interval_type information_schema.character_data, interval_precision information_schema.cardinal_number, character_set_catalog information_schema.sql_identifier, character_set_schema information_schema.sql_identifier, character_set_name information_schema.sql_identifier, collation_catalog information_schema.sql_identifier, collation_schema information_schema.sql_identifier, collation_name information_schema.sql_identifier, domain_catalog information_schema.sql_identifier, domain_schema information_schema.sql_identifier, domain_name information_schema.sql_identifier, udt_catalog information_schema.sql_identifier, udt_schema information_schema.sql_identifier, udt_name information_schema.sql_identifier, scope_catalog information_schema.sql_identifier, scope_schema information_schema.sql_identifier, scope_name information_schema.sql_identifier, maximum_cardinality information_schema.cardinal_number, dtd_identifier information_schema.sql_identifier, is_self_referencing information_schema.yes_or_no, is_identity information_schema.yes_or_no, identity_generation information_schema.character_data, identity_start information_schema.character_data, identity_increment information_schema.character_data, identity_maximum information_schema.character_data, identity_minimum information_schema.character_data, identity_cycle information_schema.yes_or_no, is_generated information_schema.character_data, generation_expression information_schema.character_data, is_updatable information_schema.yes_or_no",
		rowsInfoColumns)
	defSysRel(303, 13483, nsInfoSchema, "views", true,
		"table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, view_definition information_schema.character_data, check_option information_schema.character_data, is_updatable information_schema.yes_or_no, is_insertable_into information_schema.yes_or_no, is_trigger_updatable information_schema.yes_or_no, is_trigger_deletable information_schema.yes_or_no, is_trigger_insertable_into information_schema.yes_or_no",
		rowsInfoViews)
	defSysRel(304, 13411, nsInfoSchema, "table_constraints", true,
		"constraint_catalog information_schema.sql_identifier, constraint_schema information_schema.sql_identifier, constraint_name information_schema.sql_identifier, table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, constraint_type information_schema.character_data, is_deferrable information_schema.yes_or_no, initially_deferred information_schema.yes_or_no, enforced information_schema.yes_or_no, nulls_distinct information_schema.yes_or_no",
		rowsInfoTableConstraints)
	defSysRel(305, 13329, nsInfoSchema, "key_column_usage", true,
		"constraint_catalog information_schema.sql_identifier, constraint_schema information_schema.sql_identifier, constraint_name information_schema.sql_identifier, table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, column_name information_schema.sql_identifier, ordinal_position information_schema.cardinal_number, position_in_unique_constraint information_schema.cardinal_number",
		rowsInfoKeyColumnUsage)
	defSysRel(306, 13339, nsInfoSchema, "referential_constraints", true,
		"constraint_catalog information_schema.sql_identifier, constraint_schema information_schema.sql_identifier, constraint_name information_schema.sql_identifier, unique_constraint_catalog information_schema.sql_identifier, unique_constraint_schema information_schema.sql_identifier, unique_constraint_name information_schema.sql_identifier, match_option information_schema.character_data, update_rule information_schema.character_data, delete_rule information_schema.character_data",
		rowsInfoReferentialConstraints)
	defSysRel(307, 13377, nsInfoSchema, "routines", true,
		"specific_catalog information_schema.sql_identifier, specific_schema information_schema.sql_identifier, specific_name information_schema.sql_identifier, routine_catalog information_schema.sql_identifier, routine_schema information_schema.sql_identifier, routine_name information_schema.sql_identifier, routine_type information_schema.character_data, module_catalog information_schema.sql_identifier, module_schema information_schema.sql_identifier, module_name information_schema.sql_identifier, udt_catalog information_schema.sql_identifier, udt_schema information_schema.sql_identifier, udt_name information_schema.sql_identifier, data_type information_schema.character_data, character_maximum_length information_schema.cardinal_number, character_octet_length information_schema.cardinal_number, character_set_catalog information_schema.sql_identifier, character_set_schema information_schema.sql_identifier, character_set_name information_schema.sql_identifier, collation_catalog information_schema.sql_identifier, collation_schema information_schema.sql_identifier, collation_name information_schema.sql_identifier, numeric_precision information_schema.cardinal_number, numeric_precision_radix information_schema.cardinal_number, numeric_scale information_schema.cardinal_number, datetime_precision information_schema.cardinal_number, interval_type information_schema.character_data, interval_precision information_schema.cardinal_number, type_udt_catalog information_schema.sql_identifier, type_udt_schema information_schema.sql_identifier, type_udt_name information_schema.sql_identifier, scope_catalog information_schema.sql_identifier, scope_schema information_schema.sql_identifier, scope_name information_schema.sql_identifier, maximum_cardinality information_schema.cardinal_number, dtd_identifier information_schema.sql_identifier, routine_body information_schema.character_data, routine_definition information_schema.character_data, external_name information_schema.character_data, external_language information_schema.character_data, parameter_style information_schema.character_data, is_deterministic information_schema.yes_or_no, sql_data_access information_schema.character_data, is_null_call information_schema.yes_or_no, sql_path information_schema.character_data, schema_level_routine information_schema.yes_or_no, max_dynamic_result_sets information_schema.cardinal_number, is_user_defined_cast information_schema.yes_or_no, is_implicitly_invocable information_schema.yes_or_no, security_type information_schema.character_data, to_sql_specific_catalog information_schema.sql_identifier, to_sql_specific_schema information_schema.sql_identifier, to_sql_specific_name information_schema.sql_identifier, as_locator information_schema.yes_or_no, created information_schema.time_stamp, last_altered information_schema.time_stamp, new_savepoint_level information_schema.yes_or_no, is_udt_dependent information_schema.yes_or_no, result_cast_from_data_type information_schema.character_data, result_cast_as_locator information_schema.yes_or_no, result_cast_char_max_length information_schema.cardinal_number, result_cast_char_octet_length information_schema.cardinal_number, result_cast_char_set_catalog information_schema.sql_identifier, result_cast_char_set_schema information_schema.sql_identifier, result_cast_char_set_name information_schema.sql_identifier, result_cast_collation_catalog information_schema.sql_identifier, result_cast_collation_schema information_schema.sql_identifier, result_cast_collation_name information_schema.sql_identifier, result_cast_numeric_precision information_schema.cardinal_number, result_cast_numeric_precision_radix information_schema.cardinal_number, result_cast_numeric_scale information_schema.cardinal_number, result_cast_datetime_precision information_schema.cardinal_number, result_cast_interval_type information_schema.character_data, result_cast_interval_precision information_schema.cardinal_number, result_cast_type_udt_catalog information_schema.sql_identifier, result_cast_type_udt_schema information_schema.sql_identifier, result_cast_type_udt_name information_schema.sql_identifier, result_cast_scope_catalog information_schema.sql_identifier, result_cast_scope_schema information_schema.sql_identifier, result_cast_scope_name information_schema.sql_identifier, result_cast_maximum_cardinality information_schema.cardinal_number, result_cast_dtd_identifier information_schema.sql_identifier",
		rowsInfoRoutines)
	defSysRel(308, 13334, nsInfoSchema, "parameters", true,
		"specific_catalog information_schema.sql_identifier, specific_schema information_schema.sql_identifier, specific_name information_schema.sql_identifier, ordinal_position information_schema.cardinal_number, parameter_mode information_schema.character_data, is_result information_schema.yes_or_no, as_locator information_schema.yes_or_no, parameter_name information_schema.sql_identifier, data_type information_schema.character_data, character_maximum_length information_schema.cardinal_number, character_octet_length information_schema.cardinal_number, character_set_catalog information_schema.sql_identifier, character_set_schema information_schema.sql_identifier, character_set_name information_schema.sql_identifier, collation_catalog information_schema.sql_identifier, collation_schema information_schema.sql_identifier, collation_name information_schema.sql_identifier, numeric_precision information_schema.cardinal_number, numeric_precision_radix information_schema.cardinal_number, numeric_scale information_schema.cardinal_number, datetime_precision information_schema.cardinal_number, interval_type information_schema.character_data, interval_precision information_schema.cardinal_number, udt_catalog information_schema.sql_identifier, udt_schema information_schema.sql_identifier, udt_name information_schema.sql_identifier, scope_catalog information_schema.sql_identifier, scope_schema information_schema.sql_identifier, scope_name information_schema.sql_identifier, maximum_cardinality information_schema.cardinal_number, dtd_identifier information_schema.sql_identifier, parameter_default information_schema.character_data",
		rowsInfoParameters)
	defSysRel(309, 13386, nsInfoSchema, "sequences", true,
		"sequence_catalog information_schema.sql_identifier, sequence_schema information_schema.sql_identifier, sequence_name information_schema.sql_identifier, data_type information_schema.character_data, numeric_precision information_schema.cardinal_number, numeric_precision_radix information_schema.cardinal_number, numeric_scale information_schema.cardinal_number, start_value information_schema.character_data, minimum_value information_schema.character_data, maximum_value information_schema.character_data, increment information_schema.character_data, cycle_option information_schema.yes_or_no",
		rowsInfoSequences)
	defSysRel(310, 13250, nsInfoSchema, "character_sets", true,
		"character_set_catalog information_schema.sql_identifier, character_set_schema information_schema.sql_identifier, character_set_name information_schema.sql_identifier, character_repertoire information_schema.sql_identifier, form_of_use information_schema.sql_identifier, default_collate_catalog information_schema.sql_identifier, default_collate_schema information_schema.sql_identifier, default_collate_name information_schema.sql_identifier",
		rowsInfoCharacterSets)
}

func yesNo(b bool) repr.Datum {
	if b {
		return repr.NewText("YES")
	}
	return repr.NewText("NO")
}

func rowsSchemata(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.schemata"]
	var out []repr.Row
	for _, n := range s.cat.schemaList() {
		if !s.schemaShown(n) {
			continue
		}
		out = append(out, r.row(map[string]repr.Datum{"catalog_name": nameD(s.database()), "schema_name": nameD(n.Name),
			"schema_owner": nameD(s.roleDisplay(n.Owner))}))
	}
	return out
}

// infoTableType is information_schema.tables' table_type of a relkind
// ("" for kinds it does not list).
func infoTableType(ri *relInfo) string {
	switch ri.kind {
	case 'r':
		return "BASE TABLE"
	case 'v':
		return "VIEW"
	case 'f':
		return "FOREIGN"
	}
	return ""
}

func rowsInfoTables(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.tables"]
	var out []repr.Row
	for _, ri := range s.relations() {
		typ := infoTableType(ri)
		if typ == "" || !s.relShown(ri, shownTablePrivs, shownColumnPrivs) {
			continue
		}
		out = append(out, r.row(map[string]repr.Datum{"table_catalog": nameD(s.database()), "table_schema": nameD(s.cat.namespaceName(ri.ns)),
			"table_name": nameD(ri.name), "table_type": repr.NewText(typ), "is_insertable_into": yesNo(ri.kind == 'r' && ri.obj != nil),
			"is_typed": yesNo(false)}))
	}
	return out
}

// infoDataType is information_schema's data_type of t: the SQL name
// without modifiers, ARRAY for arrays (infoColumnRow makes a composite
// or enum type USER-DEFINED).
func infoDataType(t repr.T) string {
	if t.Family == repr.FamArray {
		return "ARRAY"
	}
	b := t
	b.Length, b.Precision, b.Scale = 0, 0, 0
	return b.Name()
}

func rowsInfoColumns(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.columns"]
	var out []repr.Row
	for _, ri := range s.relations() {
		if ri.index != nil || !containsByte("rvf", ri.kind) {
			continue
		}
		for i, c := range ri.cols {
			if !s.columnShown(ri, i) {
				continue
			}
			out = append(out, r.row(infoColumnRow(s, ri, i, c)))
		}
	}
	return out
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// infoColumnRow is one information_schema.columns row.
func infoColumnRow(s *sysSnap, ri *relInfo, i int, c ColumnDef) map[string]repr.Datum {
	t := c.Type
	row := map[string]repr.Datum{
		"table_catalog": nameD(s.database()), "table_schema": nameD(s.cat.namespaceName(ri.ns)), "table_name": nameD(ri.name),
		"column_name": nameD(c.Name), "ordinal_position": intD(i + 1), "column_default": textD(c.Default),
		"is_nullable": yesNo(!(c.NotNull || inPrimaryKey(ri, i))), "data_type": repr.NewText(infoDataType(t)),
		"udt_catalog": nameD(s.database()), "udt_schema": nameD(nsPgCatalog), "udt_name": nameD(t.TypName()),
		"dtd_identifier": nameD(itoa(i + 1)), "is_self_referencing": yesNo(false), "is_identity": yesNo(c.Identity != 0),
		"identity_cycle": yesNo(false), "is_generated": repr.NewText("NEVER"), "is_updatable": yesNo(ri.kind == 'r'),
		"character_maximum_length": repr.Null, "character_octet_length": repr.Null, "numeric_precision": repr.Null,
		"numeric_precision_radix": repr.Null, "numeric_scale": repr.Null, "datetime_precision": repr.Null,
		"interval_precision": repr.Null, "maximum_cardinality": repr.Null,
	}
	if o := s.cat.userTypeByOID(userTypeOID(t)); o != nil && t.Family != repr.FamArray {
		row["data_type"], row["udt_schema"], row["udt_name"] = repr.NewText("USER-DEFINED"), nameD(o.Schema), nameD(o.Name)
	} else if o != nil {
		row["udt_schema"], row["udt_name"] = nameD(o.Schema), nameD("_"+o.Name)
	}
	switch {
	case t.Family == repr.FamText && t.Length > 0:
		row["character_maximum_length"], row["character_octet_length"] = intD(int(t.Length)), intD(int(t.Length)*4)
	case t.Family == repr.FamText && t.Kind != repr.KindName && t.Kind != repr.KindQChar:
		row["character_octet_length"] = intD(1073741824)
	case t.Family == repr.FamBit && t.Length > 0:
		row["character_maximum_length"] = intD(int(t.Length)) // _pg_char_max_length
	case t.Family == repr.FamInt && t.OIDKind == repr.NotOID:
		row["numeric_precision"], row["numeric_precision_radix"], row["numeric_scale"] = intD(int(t.Width)-1), intD(2), intD(0)
	case t.Family == repr.FamFloat:
		row["numeric_precision"], row["numeric_precision_radix"] = intD(map[int32]int{32: 24, 64: 53}[t.Width]), intD(2)
	case t.Family == repr.FamNumeric:
		row["numeric_precision_radix"] = intD(10)
		if t.Precision > 0 {
			row["numeric_precision"], row["numeric_scale"] = intD(int(t.Precision)), intD(int(t.Scale))
		}
	case t.Family == repr.FamDate:
		row["datetime_precision"] = intD(0)
	case t.Family == repr.FamTime || t.Family == repr.FamTimestamp || t.Family == repr.FamTimestampTZ || t.Family == repr.FamInterval:
		row["datetime_precision"] = intD(6)
	}
	if c.Identity != 0 {
		row["identity_generation"] = repr.NewText(map[byte]string{'a': "ALWAYS", 'd': "BY DEFAULT"}[c.Identity])
	}
	return row
}

func rowsInfoViews(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.views"]
	var out []repr.Row
	s.userRels("v", func(ri *relInfo) {
		if !s.relShown(ri, shownTablePrivs, shownColumnPrivs) {
			return
		}
		def := repr.Null
		if s.ownsRel(ri) {
			def = viewDefinition(s.cat, ri.obj)
		}
		out = append(out, r.row(map[string]repr.Datum{"table_catalog": nameD(s.database()), "table_schema": nameD(s.cat.namespaceName(ri.ns)),
			"table_name": nameD(ri.name), "view_definition": def, "check_option": repr.NewText("NONE"),
			"is_updatable": yesNo(false), "is_insertable_into": yesNo(false), "is_trigger_updatable": yesNo(false),
			"is_trigger_deletable": yesNo(false), "is_trigger_insertable_into": yesNo(false)}))
	})
	return out
}

// tableConstraints calls f with each constraint of each table (k as in
// constraintOID), the primary key as a "primary" constraint.
func (s *sysSnap) tableConstraints(f func(ri *relInfo, k int, c Constraint)) {
	s.userRels("r", func(ri *relInfo) {
		o := ri.obj
		if len(o.PrimaryKey) > 0 {
			f(ri, 0, Constraint{Name: o.pkeyName(), Kind: "primary", Cols: o.PrimaryKey})
		}
		for i, c := range o.Constraints {
			f(ri, i+1, c)
		}
	})
}

func rowsInfoTableConstraints(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.table_constraints"]
	var out []repr.Row
	s.tableConstraints(func(ri *relInfo, _ int, c Constraint) {
		if !s.relShown(ri, shownConstraintPrivs, shownConstraintCols) {
			return
		}
		typ := map[string]string{"primary": "PRIMARY KEY", "unique": "UNIQUE", "check": "CHECK", "foreign": "FOREIGN KEY"}[c.Kind]
		ns := nameD(s.cat.namespaceName(ri.ns))
		row := map[string]repr.Datum{"constraint_catalog": nameD(s.database()), "constraint_schema": ns,
			"constraint_name": nameD(c.Name), "table_catalog": nameD(s.database()), "table_schema": ns, "table_name": nameD(ri.name),
			"constraint_type": repr.NewText(typ), "is_deferrable": yesNo(c.Deferred), "initially_deferred": yesNo(c.Deferred),
			"enforced": yesNo(true), "nulls_distinct": repr.Null}
		if c.Kind == "primary" || c.Kind == "unique" {
			row["nulls_distinct"] = yesNo(true)
		}
		out = append(out, r.row(row))
	})
	s.notNullConstraints(func(ri *relInfo, _ ColumnDef, name string) {
		if !s.relShown(ri, shownConstraintPrivs, shownConstraintCols) {
			return
		}
		ns := nameD(s.cat.namespaceName(ri.ns))
		out = append(out, r.row(map[string]repr.Datum{"constraint_catalog": nameD(s.database()), "constraint_schema": ns,
			"constraint_name": nameD(name), "table_catalog": nameD(s.database()), "table_schema": ns, "table_name": nameD(ri.name),
			"constraint_type": repr.NewText("CHECK"), "is_deferrable": yesNo(false), "initially_deferred": yesNo(false),
			"enforced": yesNo(true), "nulls_distinct": repr.Null}))
	})
	return out
}

func rowsInfoKeyColumnUsage(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.key_column_usage"]
	var out []repr.Row
	s.tableConstraints(func(ri *relInfo, _ int, c Constraint) {
		if c.Kind == "check" {
			return
		}
		ns := nameD(s.cat.namespaceName(ri.ns))
		for i, col := range c.Cols {
			if !s.columnShown(ri, col) {
				continue
			}
			row := map[string]repr.Datum{"constraint_catalog": nameD(s.database()), "constraint_schema": ns,
				"constraint_name": nameD(c.Name), "table_catalog": nameD(s.database()), "table_schema": ns,
				"table_name": nameD(ri.name), "column_name": nameD(ri.obj.Columns[col].Name), "ordinal_position": intD(i + 1),
				"position_in_unique_constraint": repr.Null}
			if c.Kind == "foreign" {
				row["position_in_unique_constraint"] = intD(i + 1)
			}
			out = append(out, r.row(row))
		}
	})
	return out
}

func rowsInfoReferentialConstraints(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.referential_constraints"]
	rules := map[byte]string{0: "NO ACTION", 'a': "NO ACTION", 'r': "RESTRICT", 'c': "CASCADE", 'n': "SET NULL", 'd': "SET DEFAULT"}
	var out []repr.Row
	s.tableConstraints(func(ri *relInfo, _ int, c Constraint) {
		ref := s.cat.byID[c.RefTable]
		if c.Kind != "foreign" || ref == nil || !s.relShown(ri, shownConstraintPrivs, shownConstraintCols) {
			return
		}
		uname := repr.Null
		if sameCols(ref.PrimaryKey, c.RefCols) {
			uname = nameD(ref.pkeyName())
		}
		for _, u := range ref.Constraints {
			if u.Kind == "unique" && sameCols(u.Cols, c.RefCols) {
				uname = nameD(u.Name)
			}
		}
		ns := nameD(s.cat.namespaceName(ri.ns))
		out = append(out, r.row(map[string]repr.Datum{"constraint_catalog": nameD(s.database()), "constraint_schema": ns,
			"constraint_name": nameD(c.Name), "unique_constraint_catalog": nameD(s.database()), "unique_constraint_schema": ns,
			"unique_constraint_name": uname, "match_option": repr.NewText("NONE"), "update_rule": repr.NewText(rules[c.OnUpdate]),
			"delete_rule": repr.NewText(rules[c.OnDelete])}))
	})
	return out
}

// sameCols reports whether a and b list the same columns in order.
func sameCols(a, b []int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func rowsInfoSequences(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.sequences"]
	var out []repr.Row
	s.userRels("S", func(ri *relInfo) {
		if !s.relShown(ri, shownSequencePrivs, 0) {
			return
		}
		d := ri.obj.Sequence
		t := sequenceType(d)
		out = append(out, r.row(map[string]repr.Datum{"sequence_catalog": nameD(s.database()), "sequence_schema": nameD(s.cat.namespaceName(ri.ns)),
			"sequence_name": nameD(ri.name), "data_type": repr.NewText(t.Name()), "numeric_precision": intD(int(t.Width)),
			"numeric_precision_radix": intD(2), "numeric_scale": intD(0), "start_value": repr.NewText(itoa64(d.Start)),
			"minimum_value": repr.NewText(itoa64(d.Min)), "maximum_value": repr.NewText(itoa64(d.Max)),
			"increment": repr.NewText(itoa64(d.Increment)), "cycle_option": yesNo(d.Cycle)}))
	})
	return out
}

func itoa64(i int64) string { return repr.FormatText(repr.NewInt(i), repr.Int8, nil) }

func rowsInfoCharacterSets(s *sysSnap) []repr.Row {
	r := sysRelsByName["information_schema.character_sets"]
	return []repr.Row{r.row(map[string]repr.Datum{"character_set_catalog": repr.Null, "character_set_schema": repr.Null,
		"character_set_name": nameD("UTF8"), "character_repertoire": nameD("UCS"), "form_of_use": nameD("UTF8"),
		"default_collate_catalog": nameD(s.database()), "default_collate_schema": nameD(nsPgCatalog), "default_collate_name": nameD("C")})}
}
