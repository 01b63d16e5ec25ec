package sql

import (
	"math"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// Inert settings are PostgreSQL settings that steer work Eddy does not do
// (vacuum, parallel workers, TOAST, statistics, plan caching) or features
// Eddy does not have (row security policies, tablespaces, XML): every
// value Eddy accepts gives the same answers, so they are accepted, kept
// and shown. A value that would change answers (session_replication_role
// = replica switches off foreign keys) is 0A000, never ignored.

// inertBools are the inert Boolean settings with PostgreSQL 15's defaults.
var inertBools = map[string]string{
	"row_security": "on", "escape_string_warning": "on", "transaction_deferrable": "off",
	"default_transaction_deferrable": "off", "track_io_timing": "off", "check_function_bodies": "on",
	"allow_system_table_mods": "off", "allow_in_place_tablespaces": "off", "default_with_oids": "off",
	"array_nulls": "on", "quote_all_identifiers": "off", // only these values (checkInertSetting)
	// PL/pgSQL's: print_strict_params adds a DETAIL to an error;
	// check_asserts = off skips ASSERT (plpgsql_raise.go)
	"plpgsql.print_strict_params": "off", "plpgsql.check_asserts": "on",
}

// inertEnums are the inert settings with a list of values, the default
// first. boolSpellings marks those that also take Boolean spellings for
// "on" and "off" (PostgreSQL's hidden enum entries).
var inertEnums = map[string][]string{
	"constraint_exclusion":      {"partition", "on", "off"},
	"force_parallel_mode":       {"off", "on", "regress"},
	"default_toast_compression": {"pglz", "lz4"},
	"plan_cache_mode":           {"auto", "force_generic_plan", "force_custom_plan"},
	"stats_fetch_consistency":   {"cache", "none", "snapshot"},
	// replica makes PostgreSQL skip foreign-key checks: refused below
	"session_replication_role":    {"origin", "local"},
	"xmloption":                   {"content", "document"},
	"default_table_access_method": {"heap"},
	"default_tablespace":          {"", "pg_default"},
	"compute_query_id":            {"auto", "on", "off", "regress"},
	// PL/pgSQL's: the other conflict rules resolve names differently
	"plpgsql.variable_conflict": {"error"},
}

var boolSpellings = map[string]bool{"constraint_exclusion": true, "force_parallel_mode": true, "compute_query_id": true}

// inertNumbers are the inert numeric settings with PostgreSQL 15's
// defaults, units and ranges.
var inertNumbers = map[string]unitSetting{
	"vacuum_cost_delay":                {def: "0", base: "ms", real: true, min: 0, max: 100},
	"vacuum_cost_limit":                {def: "200", min: 1, max: 10000},
	"maintenance_work_mem":             {def: "64MB", base: "kB", min: 1024, max: math.MaxInt32},
	"hash_mem_multiplier":              {def: "2", real: true, min: 1, max: 1000},
	"max_parallel_maintenance_workers": {def: "2", min: 0, max: 1024},
	"max_parallel_workers":             {def: "8", min: 0, max: 1024},
	"default_statistics_target":        {def: "100", min: 1, max: 10000},
	"temp_buffers":                     {def: "8MB", base: "8kB", min: 100, max: math.MaxInt32 / 2},
	"commit_delay":                     {def: "0", min: 0, max: 100000},
	"commit_siblings":                  {def: "5", min: 0, max: 1000},
	"gin_pending_list_limit":           {def: "4MB", base: "kB", min: 64, max: math.MaxInt32},
	"effective_io_concurrency":         {def: "1", min: 0, max: 1000},
	"maintenance_io_concurrency":       {def: "10", min: 0, max: 1000},
	"logical_decoding_work_mem":        {def: "64MB", base: "kB", min: 64, max: math.MaxInt32},
}

// addInertDefaults adds the inert settings to a settings map.
func addInertDefaults(vals map[string]string) {
	for k, v := range inertBools {
		vals[k] = v
	}
	for k, v := range inertEnums {
		vals[k] = v[0]
	}
	for k, v := range inertNumbers {
		vals[k] = v.def
	}
	vals["plpgsql.extra_warnings"], vals["plpgsql.extra_errors"] = "none", "none"
}

// plpgsqlChecks are the checks plpgsql.extra_warnings and extra_errors
// name.
var plpgsqlChecks = map[string]bool{"shadowed_variables": true, "too_many_rows": true, "strict_multi_assignment": true}

// checkPlpgsqlExtra validates plpgsql.extra_warnings or extra_errors:
// "none", "all" or a list of checks. The checks' warnings are not
// raised (a missing notice changes no answer); their errors would be,
// so extra_errors other than none is 0A000.
func checkPlpgsqlExtra(name, value string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if v != "none" && v != "all" {
		for _, w := range strings.Split(v, ",") {
			if w = strings.TrimSpace(w); !plpgsqlChecks[w] {
				return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value).
					WithDetail("Unrecognized key word: \"%s\".", w)
			}
		}
	}
	if name == "plpgsql.extra_errors" && v != "none" {
		return "", repr.Unsupported("plpgsql.extra_errors %q", value)
	}
	return value, nil
}

// checkInertSetting validates an inert setting's new value and returns
// its shown form; ok is false when name is not one.
func checkInertSetting(name, value string) (string, bool, error) {
	if _, isBool := inertBools[name]; isBool {
		b, valid := parseBoolSetting(value)
		if !valid {
			return "", true, repr.Errorf(repr.CodeInvalidParameter, "parameter \"%s\" requires a Boolean value", name)
		}
		if b && name == "default_with_oids" {
			return "", true, repr.Unsupported("tables declared WITH OIDS")
		}
		// These two change answers: array input reads an unquoted NULL as
		// the string "NULL", quote_ident and the deparsers quote every name.
		if !b && name == "array_nulls" || b && name == "quote_all_identifiers" {
			return "", true, repr.Unsupported("%s = %s", name, onOff(b))
		}
		return onOff(b), true, nil
	}
	if u, isNum := inertNumbers[name]; isNum {
		v, err := u.check(name, value)
		return v, true, err
	}
	if name == "plpgsql.extra_warnings" || name == "plpgsql.extra_errors" {
		v, err := checkPlpgsqlExtra(name, value)
		return v, true, err
	}
	vals, isEnum := inertEnums[name]
	if !isEnum {
		return "", false, nil
	}
	v, err := checkInertEnum(name, value, vals)
	return v, true, err
}

// checkInertEnum matches value against an enum setting's values
// (case-insensitively, as PostgreSQL).
func checkInertEnum(name, value string, vals []string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if boolSpellings[name] {
		if b, ok := parseBoolSetting(v); ok {
			v = onOff(b)
		}
	}
	for _, ok := range vals {
		if v == ok {
			return v, nil
		}
	}
	switch {
	case name == "session_replication_role" && v == "replica":
		return "", repr.Unsupported("session_replication_role replica")
	case name == "plpgsql.variable_conflict" && (v == "use_variable" || v == "use_column"):
		return "", repr.Unsupported("plpgsql.variable_conflict %s", v)
	case name == "default_tablespace":
		// Eddy has no tablespaces but pg_default
		return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value).
			WithDetail("Tablespace \"%s\" does not exist.", value)
	case name == "default_table_access_method":
		return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value).
			WithDetail("Table access method \"%s\" does not exist.", value)
	}
	return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value).
		WithHint("Available values: %s.", strings.Join(vals, ", "))
}

// Custom settings ("placeholders" in PostgreSQL) are names of two or more
// identifiers separated by dots (custom.my_guc): SET creates one, SHOW and
// current_setting read it, RESET makes it empty. Applications keep
// per-session values in them (row security policies read
// current_setting('app.tenant')). The prefixes of loaded extensions are
// reserved: Eddy's PL/pgSQL is always loaded.

// reservedPrefixes are the custom-setting prefixes PostgreSQL reserves.
var reservedPrefixes = map[string]bool{"plpgsql": true}

// isCustomName reports whether name (lower case) has the form of a
// custom setting.
func isCustomName(name string) bool {
	return strings.Contains(name, ".")
}

// checkCustomName validates a custom setting's name (42602 as in
// PostgreSQL).
func checkCustomName(name string) error {
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if !simpleIdent(p) {
			return repr.Errorf("42602", "invalid configuration parameter name \"%s\"", name).
				WithDetail("Custom parameter names must be two or more simple identifiers separated by dots.")
		}
	}
	if reservedPrefixes[parts[0]] {
		return repr.Errorf("42602", "invalid configuration parameter name \"%s\"", name).
			WithDetail("\"%s\" is a reserved prefix.", parts[0])
	}
	return nil
}

// simpleIdent reports whether s is a simple identifier: a letter,
// underscore or non-ASCII byte, then those, digits or $.
func simpleIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '$')) {
			return false
		}
	}
	return true
}

// defineCustom creates a custom setting by name (empty, its value after
// RESET) or returns the 42602/42704 error for a name that cannot be one.
func (s *settings) defineCustom(name string) error {
	if !isCustomName(name) {
		return repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if err := checkCustomName(name); err != nil {
		return err
	}
	s.vals[name] = ""
	if s.initial != nil {
		s.initial[name] = ""
	}
	return nil
}
