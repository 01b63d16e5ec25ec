package sql

import (
	"encoding/json"
	"strings"

	"github.com/eddydb/eddy/planner"
	"github.com/eddydb/eddy/repr"
)

// RAISE and ASSERT: notices go to the client as NoticeResponses (INFO,
// NOTICE, WARNING; DEBUG and LOG stay below client_min_messages), errors
// end the statement with their SQLSTATE unless a handler catches them.

// raise runs RAISE level 'format', params [USING option = expr, ...], or
// RAISE alone (re-raise the error being handled).
func (x *plExec) raise(f map[string]json.RawMessage) error {
	r, err := planner.DecodeRaise(f)
	if err != nil {
		return err
	}
	if r.Message == "" && r.CondName == "" && len(r.Options) == 0 {
		if len(x.errs) == 0 {
			return repr.Errorf("0Z002", "RAISE without parameters cannot be used outside an exception handler")
		}
		return x.errs[len(x.errs)-1]
	}
	msg, err := x.format(r.Message, r.Params)
	if err != nil {
		return err
	}
	e := &repr.Error{Code: "P0001", Message: msg}
	if r.Level < 21 {
		e.Code = "00000"
	}
	if r.CondName != "" {
		e.Code = sqlstateOf(r.CondName)
		if r.Message == "" {
			e.Message = r.CondName
		}
	}
	for _, o := range r.Options {
		if err := x.raiseOption(e, o.O.Type, o.O.Expr); err != nil {
			return err
		}
	}
	// PostgreSQL's elog.h levels: INFO 17, NOTICE 18, WARNING 19, ERROR
	// 21; DEBUG and LOG do not reach the client (client_min_messages).
	sev := map[int]string{17: "INFO", 18: "NOTICE", 19: "WARNING"}[r.Level]
	switch {
	case r.Level >= 21:
		return e
	case sev != "":
		x.s.notices = append(x.s.notices, Notice{Severity: sev, Err: e})
	}
	return nil
}

// raiseOption applies RAISE's USING option = expr to e.
func (x *plExec) raiseOption(e *repr.Error, typ int, raw json.RawMessage) error {
	q, err := exprOf(raw)
	if err != nil {
		return err
	}
	v, _, err := x.evalText(q)
	if err != nil {
		return err
	}
	switch typ {
	case 0:
		e.Code = sqlstateOf(v)
	case 1:
		e.Message = v
	case 2:
		e.Detail = v
	case 3:
		e.Hint = v
	default:
		return repr.Unsupported("RAISE ... USING option %d", typ)
	}
	return nil
}

// assert runs ASSERT cond [, message]: P0004 when cond is false or NULL,
// nothing under plpgsql.check_asserts = off.
func (x *plExec) assert(f map[string]json.RawMessage) error {
	if v, _ := x.s.settings.get("plpgsql.check_asserts"); v == "off" {
		return nil // PostgreSQL evaluates neither condition nor message
	}
	ok, err := x.cond(f["cond"])
	if err != nil || ok {
		return err
	}
	msg := "assertion failed"
	if f["message"] != nil {
		q, err := exprOf(f["message"])
		if err != nil {
			return err
		}
		if m, ok, err := x.evalText(q); err != nil {
			return err
		} else if ok {
			msg = m
		}
	}
	return repr.Errorf("P0004", "%s", msg)
}

// sqlstateOf is RAISE's ERRCODE: a five-character SQLSTATE, or a
// condition name (others: P0001).
func sqlstateOf(s string) string {
	if len(s) == 5 && strings.ToUpper(s) == s {
		return s
	}
	if c, ok := plConditions[strings.ToLower(s)]; ok {
		return c
	}
	return "P0001"
}

// plConditions are the condition names of PostgreSQL's errcodes.txt that
// applications raise and catch.
var plConditions = map[string]string{
	"successful_completion": "00000", "warning": "01000", "no_data": "02000",
	"sql_statement_not_yet_complete": "03000", "connection_exception": "08000",
	"feature_not_supported": "0A000", "invalid_transaction_initiation": "0B000",
	"case_not_found": "20000", "cardinality_violation": "21000",
	"data_exception": "22000", "string_data_right_truncation": "22001", "null_value_not_allowed": "22004",
	"numeric_value_out_of_range": "22003", "invalid_datetime_format": "22007", "datetime_field_overflow": "22008",
	"division_by_zero": "22012", "invalid_parameter_value": "22023", "invalid_text_representation": "22P02",
	"invalid_escape_sequence": "22025", "character_not_in_repertoire": "22021",
	"integrity_constraint_violation": "23000", "restrict_violation": "23001", "not_null_violation": "23502",
	"foreign_key_violation": "23503", "unique_violation": "23505", "check_violation": "23514",
	"exclusion_violation": "23P01", "invalid_cursor_state": "24000", "invalid_transaction_state": "25000",
	"read_only_sql_transaction": "25006", "invalid_authorization_specification": "28000",
	"syntax_error_or_access_rule_violation": "42000", "syntax_error": "42601", "insufficient_privilege": "42501",
	"undefined_column": "42703", "undefined_function": "42883", "undefined_table": "42P01",
	"undefined_object": "42704", "duplicate_column": "42701", "duplicate_function": "42723",
	"duplicate_table": "42P07", "duplicate_object": "42710", "duplicate_schema": "42P06",
	"ambiguous_column": "42702", "datatype_mismatch": "42804", "wrong_object_type": "42809",
	"invalid_schema_name": "3F000", "dependent_objects_still_exist": "2BP01",
	"insufficient_resources": "53000", "out_of_memory": "53200", "program_limit_exceeded": "54000",
	"statement_too_complex": "54001", "object_not_in_prerequisite_state": "55000", "lock_not_available": "55P03",
	"operator_intervention": "57000", "query_canceled": "57014", "serialization_failure": "40001",
	"deadlock_detected": "40P01", "transaction_rollback": "40000", "internal_error": "XX000",
	"plpgsql_error": "P0000", "raise_exception": "P0001", "no_data_found": "P0002", "too_many_rows": "P0003",
	"assert_failure": "P0004",
}

// format replaces each % of a RAISE message by the next parameter (%%
// is a %).
func (x *plExec) format(msg string, params []json.RawMessage) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] != '%' {
			b.WriteByte(msg[i])
			continue
		}
		if i+1 < len(msg) && msg[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if next >= len(params) {
			return "", repr.Errorf(repr.CodeSyntax, "too few parameters specified for RAISE")
		}
		q, err := exprOf(params[next])
		if err != nil {
			return "", err
		}
		next++
		v, ok, err := x.evalText(q)
		if err != nil {
			return "", err
		}
		if !ok {
			v = "<NULL>"
		}
		b.WriteString(v)
	}
	if next < len(params) {
		return "", repr.Errorf(repr.CodeSyntax, "too many parameters specified for RAISE")
	}
	return b.String(), nil
}
