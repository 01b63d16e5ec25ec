package sql

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// Storage parameters (WITH (...) of CREATE TABLE, CREATE VIEW and CREATE
// INDEX) tune PostgreSQL's storage and never an answer, so Eddy accepts
// and ignores the ones PostgreSQL knows, after PostgreSQL's validation
// (reloptions.c): an unknown name or a value out of its bounds is 22023,
// WITH (oids) 0A000.

// relOption is one storage parameter: its kind ('b' boolean, 'i'
// integer, 'r' real, 's' string) and, for numbers, its bounds.
type relOption struct {
	kind   byte
	lo, hi float64
}

// tableOptions are the heap's parameters (toast.* take the autovacuum
// ones).
var tableOptions = map[string]relOption{
	"fillfactor": {'i', 10, 100}, "toast_tuple_target": {'i', 128, 8160},
	"parallel_workers": {'i', 0, 1024}, "autovacuum_enabled": {kind: 'b'},
	"vacuum_index_cleanup": {kind: 's'}, "vacuum_truncate": {kind: 'b'},
	"user_catalog_table": {kind: 'b'}, "log_autovacuum_min_duration": {'i', -1, 2147483647},
	"autovacuum_vacuum_threshold": {'i', 0, 2147483647}, "autovacuum_vacuum_insert_threshold": {'i', -1, 2147483647},
	"autovacuum_analyze_threshold": {'i', 0, 2147483647}, "autovacuum_vacuum_cost_limit": {'i', 1, 10000},
	"autovacuum_freeze_min_age": {'i', 0, 1000000000}, "autovacuum_freeze_max_age": {'i', 100000, 2000000000},
	"autovacuum_freeze_table_age": {'i', 0, 2000000000}, "autovacuum_multixact_freeze_min_age": {'i', 0, 1000000000},
	"autovacuum_multixact_freeze_max_age": {'i', 10000, 2000000000}, "autovacuum_multixact_freeze_table_age": {'i', 0, 2000000000},
	"autovacuum_vacuum_cost_delay": {'r', 0, 100}, "autovacuum_vacuum_scale_factor": {'r', 0, 100},
	"autovacuum_vacuum_insert_scale_factor": {'r', 0, 100}, "autovacuum_analyze_scale_factor": {'r', 0, 100},
}

// viewOptions are a view's parameters.
var viewOptions = map[string]relOption{"security_barrier": {kind: 'b'}, "security_invoker": {kind: 'b'}, "check_option": {kind: 's'}}

// checkTableOptions validates CREATE TABLE's WITH (...).
func checkTableOptions(opts []*pg.Node) error {
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defnamespace == "" && d.Defname == "oids" {
			if v, err := optionBool(d); err != nil || v {
				return repr.Unsupported("tables declared WITH OIDS")
			}
			continue
		}
		if d.Defnamespace != "" && d.Defnamespace != "toast" {
			return repr.Errorf(repr.CodeInvalidParameter, "unrecognized parameter namespace \"%s\"", d.Defnamespace)
		}
		spec, ok := tableOptions[d.Defname]
		if d.Defnamespace == "toast" && !strings.HasPrefix(d.Defname, "autovacuum_") && d.Defname != "log_autovacuum_min_duration" && d.Defname != "vacuum_truncate" && d.Defname != "vacuum_index_cleanup" {
			ok = false
		}
		if err := checkOption(d, spec, ok); err != nil {
			return err
		}
	}
	return nil
}

// checkViewOptions validates CREATE VIEW's WITH (...).
func checkViewOptions(opts []*pg.Node) error {
	for _, n := range opts {
		if d := n.GetDefElem(); d != nil {
			spec, ok := viewOptions[d.Defname]
			if err := checkOption(d, spec, ok && d.Defnamespace == ""); err != nil {
				return err
			}
			if d.Defname == "check_option" {
				if v := optionText(d); v != "local" && v != "cascaded" {
					return repr.Errorf(repr.CodeInvalidParameter, "invalid value for enum option \"check_option\": %s", v).
						WithDetail("Valid values are \"local\" and \"cascaded\".")
				}
			}
		}
	}
	return nil
}

// checkOption validates one parameter against spec (known: the name is
// one).
func checkOption(d *pg.DefElem, spec relOption, known bool) error {
	if !known {
		return repr.Errorf(repr.CodeInvalidParameter, "unrecognized parameter \"%s\"", d.Defname)
	}
	switch spec.kind {
	case 'b':
		if _, err := optionBool(d); err != nil {
			return err
		}
	case 'i', 'r':
		v := optionText(d)
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || spec.kind == 'i' && x != float64(int64(x)) {
			word := map[byte]string{'i': "integer", 'r': "floating point"}[spec.kind]
			return repr.Errorf(repr.CodeInvalidParameter, "invalid value for %s option \"%s\": %s", word, d.Defname, v)
		}
		if x < spec.lo || x > spec.hi {
			return repr.Errorf(repr.CodeInvalidParameter, "value %s out of bounds for option \"%s\"", v, d.Defname).
				WithDetail("Valid values are between \"%s\" and \"%s\".", formatBound(spec.lo, spec.kind), formatBound(spec.hi, spec.kind))
		}
	}
	return nil
}

// formatBound prints a bound as PostgreSQL's DETAIL does.
func formatBound(v float64, kind byte) string {
	if kind == 'i' {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// optionText is a parameter's value as text ("true" when absent, as
// PostgreSQL reads WITH (name)).
func optionText(d *pg.DefElem) string {
	switch {
	case d.Arg == nil:
		return "true"
	case d.Arg.GetInteger() != nil:
		return strconv.Itoa(int(d.Arg.GetInteger().Ival))
	case d.Arg.GetFloat() != nil:
		return d.Arg.GetFloat().Fval
	case d.Arg.GetBoolean() != nil:
		return strconv.FormatBool(d.Arg.GetBoolean().Boolval)
	case d.Arg.GetString_() != nil:
		return d.Arg.GetString_().Sval
	case d.Arg.GetTypeName() != nil:
		return strings.Join(stringList(d.Arg.GetTypeName().Names), ".")
	}
	return ""
}

// optionBool reads a boolean parameter as PostgreSQL's parse_bool does.
func optionBool(d *pg.DefElem) (bool, error) {
	v := strings.ToLower(optionText(d))
	switch v {
	case "true", "on", "yes", "1", "t", "y":
		return true, nil
	case "false", "off", "no", "0", "f", "n":
		return false, nil
	}
	return false, repr.Errorf(repr.CodeInvalidParameter, "invalid value for boolean option \"%s\": %s", d.Defname, optionText(d))
}
