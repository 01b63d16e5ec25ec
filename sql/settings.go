package sql

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/faults"
	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// ServerVersion is the PostgreSQL version Eddy reports. Clients (psql's
// \d queries, JDBC, SQLAlchemy) branch on it; 15 matches the grammar we
// parse with.
const ServerVersion = "15.0"

// settings are a session's configuration parameters.
type settings struct {
	vals    map[string]string
	changed map[string]string
	// initial are the values after startup, which RESET restores (a
	// startup parameter is the session's default, as in PostgreSQL).
	initial  map[string]string
	loc      *time.Location
	timeZone string
	user     string
	database string
	// stmtTimeout, idleTxTimeout, idleTimeout and lockTimeout are
	// statement_timeout, idle_in_transaction_session_timeout,
	// idle_session_timeout and lock_timeout (0: off), parsed when set
	// (lifecycle.go).
	stmtTimeout, idleTxTimeout, idleTimeout, lockTimeout time.Duration
}

// reportedSettings are sent as ParameterStatus at startup and on change.
var reportedSettings = []string{"server_version", "server_encoding", "client_encoding", "DateStyle",
	"integer_datetimes", "standard_conforming_strings", "TimeZone", "application_name", "IntervalStyle",
	"is_superuser", "session_authorization", "default_transaction_read_only", "in_hot_standby"}

// fixedSettings cannot be changed by SET (PostgreSQL's PGC_INTERNAL and
// the like): 55P02.
var fixedSettings = map[string]bool{"server_version": true, "server_version_num": true, "server_encoding": true,
	"integer_datetimes": true, "is_superuser": true, "max_identifier_length": true, "eddy_version": true,
	"in_hot_standby": true, "session_authorization": true, "lc_collate": true, "lc_ctype": true,
	"role": true} // SET ROLE and SET SESSION AUTHORIZATION have their own statements (roles_ddl.go)

// settingDefaults are every known setting with its default value.
func settingDefaults(version string) map[string]string {
	vals := map[string]string{
		"server_version": ServerVersion, "server_encoding": "UTF8", "client_encoding": "UTF8",
		"datestyle": "ISO, MDY", "integer_datetimes": "on", "standard_conforming_strings": "on",
		"timezone": "UTC", "application_name": "", "intervalstyle": "postgres", "is_superuser": "on",
		"session_authorization": "eddy", "role": "none", "search_path": "\"$user\", public", "extra_float_digits": "1",
		"statement_timeout": "0", "lock_timeout": "0", "idle_in_transaction_session_timeout": "0", "idle_session_timeout": "0",
		"transaction_isolation": "read committed", "default_transaction_isolation": "read committed", "in_hot_standby": "off",
		"max_identifier_length": "63", "server_version_num": "150000", "eddy_version": version,
		"client_min_messages": "notice", "bytea_output": "hex", "timezone_abbreviations": "Default",
		"default_transaction_read_only": "off", "transaction_read_only": "off", "synchronous_commit": "on",
		"work_mem": "4MB", "lc_messages": "C", "lc_monetary": "C", "lc_numeric": "C", "lc_time": "C",
		"subscribe_buffer": "1024", "fetch_timeout": "0", "password_encryption": "scram-sha-256",
	}
	addPlannerDefaults(vals)
	addInertDefaults(vals)
	return vals
}

func newSettings(version string) *settings {
	vals := settingDefaults(version)
	if faults.Enabled() {
		vals[faultSetting] = ""
	}
	return &settings{vals: vals, changed: map[string]string{}, loc: time.UTC,
		timeZone: "UTC", user: "eddy", database: "eddy"}
}

// faultSetting arms a fault-injection point (package faults) for the
// whole server when set: a test-only setting, present only in a server
// started with EDDY_TEST_FAULTS=1.
const faultSetting = "eddy_test_fault"

// showName maps SHOW's argument (lower case) to the setting's name: the
// SQL-standard spellings "time zone" and "transaction isolation level".
func showName(name string) string {
	switch name {
	case "time zone":
		return "timezone"
	case "transaction isolation level":
		return "transaction_isolation"
	}
	return name
}

// canonicalName returns the reported spelling of a setting (e.g. DateStyle).
func canonicalName(lower string) string {
	for _, n := range reportedSettings {
		if strings.ToLower(n) == lower {
			return n
		}
	}
	return lower
}

// reported returns the ParameterStatus values.
func (s *settings) reported() map[string]string {
	out := map[string]string{}
	for _, n := range reportedSettings {
		out[n] = s.vals[strings.ToLower(n)]
	}
	out["session_authorization"] = s.user
	return out
}

// get returns a setting's value by case-insensitive name.
func (s *settings) get(name string) (string, bool) {
	v, ok := s.vals[strings.ToLower(name)]
	return v, ok
}

// set assigns a setting, validating the few whose values matter.
func (s *settings) set(name, value string) error {
	name = strings.ToLower(name)
	if _, ok := s.vals[name]; !ok {
		if err := s.defineCustom(name); err != nil {
			return err
		}
	}
	if v, ok, err := checkPlannerSetting(name, value); ok {
		if err != nil {
			return err
		}
		value = v
	}
	if v, ok, err := checkInertSetting(name, value); ok {
		if err != nil {
			return err
		}
		value = v
	}
	switch name {
	case "timezone":
		loc, err := loadZone(value)
		if err != nil {
			return err
		}
		if _, num := numericZoneHours(value); num {
			_, secs := time.Unix(0, 0).In(loc).Zone()
			value = posixZoneName(secs) // <+10:30>-10:30, which expr resolves too
		}
		s.loc, s.timeZone = loc, value
	case "client_encoding":
		if v := strings.ToUpper(strings.ReplaceAll(value, "-", "")); v != "UTF8" && v != "UNICODE" {
			return repr.Unsupported("client_encoding %q (only UTF8)", value)
		}
		value = "UTF8"
	case "subscribe_buffer", "fetch_timeout":
		v, err := checkStreamSetting(name, value)
		if err != nil {
			return err
		}
		value = v
	case "statement_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout", "lock_timeout":
		v, d, err := checkTimeoutSetting(name, value)
		if err != nil {
			return err
		}
		value = v
		s.setTimeout(name, d)
	case faultSetting:
		if err := faults.Arm(value); err != nil {
			return repr.Errorf(repr.CodeInvalidParameter, "%v", err)
		}
	case "password_encryption":
		if value != "md5" && value != "scram-sha-256" {
			return repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"password_encryption\": \"%s\"", value)
		}
	case "extra_float_digits":
		v, err := checkExtraFloatDigits(value)
		if err != nil {
			return err
		}
		value = v
	case "lc_time":
		// to_char's TM prefix prints English names: other locales would
		// print the wrong words
		if value != "C" && value != "POSIX" {
			return repr.Unsupported("lc_time %q (only C and POSIX)", value)
		}
	case "datestyle":
		if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(value)), "ISO") {
			return repr.Unsupported("DateStyle %q (only ISO)", value)
		}
		value = "ISO, MDY"
	case "intervalstyle":
		st, ok := repr.ParseIntervalStyle(value)
		if !ok {
			return repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"%s\": \"%s\"", name, value).
				WithHint("Available values: postgres, postgres_verbose, sql_standard, iso_8601.")
		}
		value = st.String()
	case "bytea_output":
		// bytea prints in hex only (repr): escape would answer wrongly
		if !strings.EqualFold(strings.TrimSpace(value), "hex") {
			return repr.Unsupported("bytea_output %q (only hex)", value)
		}
		value = "hex"
	case "default_transaction_isolation", "transaction_isolation":
		if err := checkIsolation(value); err != nil {
			return err
		}
		value = strings.ToLower(value)
	case "default_transaction_read_only", "transaction_read_only":
		b, ok := parseBoolSetting(value)
		if !ok {
			return repr.Errorf(repr.CodeInvalidParameter, "parameter \"%s\" requires a Boolean value", name)
		}
		value = onOff(b)
	}
	old := s.vals[name]
	s.vals[name] = value
	if old != value {
		for _, n := range reportedSettings {
			if strings.ToLower(n) == name {
				s.changed[n] = value
			}
		}
	}
	return nil
}

// setTimeout keeps the parsed duration of a timeout setting.
func (s *settings) setTimeout(name string, d time.Duration) {
	switch name {
	case "statement_timeout":
		s.stmtTimeout = d
	case "idle_in_transaction_session_timeout":
		s.idleTxTimeout = d
	case "idle_session_timeout":
		s.idleTimeout = d
	case "lock_timeout":
		s.lockTimeout = d
	}
}

// restore sets every setting back to vals (a snapshot of s.vals),
// reporting the reported ones that change. Fixed settings are left
// alone: is_superuser, role and session_authorization follow the
// session's identity, which is restored with them (Session.restoreIdentity).
func (s *settings) restore(vals map[string]string) {
	for k := range s.vals {
		if _, ok := vals[k]; !ok && isCustomName(k) {
			s.vals[k] = "" // created in the block: it stays, empty (PostgreSQL)
		}
	}
	for k, v := range vals {
		if s.vals[k] != v && !fixedSettings[k] {
			_ = s.set(k, v)
		}
	}
}

// resetTxModes makes the transaction modes the session defaults again (a
// transaction ended, or none is open).
func (s *settings) resetTxModes() {
	s.vals["transaction_isolation"] = s.vals["default_transaction_isolation"]
	s.vals["transaction_read_only"] = s.vals["default_transaction_read_only"]
}

// numericZoneHours reads a bare number of hours (SET TIME ZONE -8, 10.5).
func numericZoneHours(s string) (float64, bool) {
	h, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return h, err == nil && !math.IsNaN(h) && !math.IsInf(h, 0)
}

// posixZoneName is PostgreSQL's name of a fixed offset east of UTC:
// <+10:30>-10:30, <-08>+08.
func posixZoneName(secs int) string {
	east, west := '+', '-'
	if secs < 0 {
		east, west, secs = '-', '+', -secs
	}
	hm := fmt.Sprintf("%02d", secs/3600)
	if m := secs % 3600 / 60; m != 0 {
		hm += fmt.Sprintf(":%02d", m)
	}
	return fmt.Sprintf("<%c%s>%c%s", east, hm, west, hm)
}

// loadZone resolves a TimeZone setting, 22023 when it names no zone: a
// bare number of hours east of UTC (named in PostgreSQL's POSIX form,
// 10.5 is <+10:30>-10:30), else expr.SessionZone.
func loadZone(name string) (*time.Location, error) {
	if h, ok := numericZoneHours(name); ok && h >= -15 && h <= 15 {
		secs := int(math.Round(h * 3600))
		name := posixZoneName(secs) // <+10:30>-10:30, abbreviated +10:30
		return time.FixedZone(name[1:strings.IndexByte(name, '>')], secs), nil
	}
	if loc, ok := expr.SessionZone(name); ok {
		return loc, nil
	}
	return nil, repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"TimeZone\": \"%s\"", name)
}

// execSet executes SET [LOCAL], RESET, RESET ALL, SET TRANSACTION and SET
// SESSION CHARACTERISTICS.
func (s *Session) execSet(st *pg.VariableSetStmt) error {
	name := strings.ToLower(st.Name)
	if name == "time zone" {
		name = "timezone"
	}
	switch st.Kind {
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		v, ok := s.settings.initial[name]
		if !ok && isCustomName(name) {
			v, ok = "", checkCustomName(name) == nil
		}
		if !ok {
			return repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return s.setting(name, v, st.IsLocal)
	case pg.VariableSetKind_VAR_RESET_ALL:
		s.resetAll()
		return nil
	case pg.VariableSetKind_VAR_SET_MULTI:
		if name == "transaction" || name == "session characteristics" {
			return s.setTransaction(name, st.Args)
		}
	case pg.VariableSetKind_VAR_SET_VALUE:
		return s.setting(name, argsText(st.Args), st.IsLocal)
	}
	return repr.Unsupported("SET %s", st.Name)
}

// resetAll is RESET ALL: every changeable setting returns to its value
// after startup (not the role: PostgreSQL's role has GUC_NO_RESET_ALL).
func (s *Session) resetAll() {
	for k, v := range s.settings.initial {
		if !fixedSettings[k] && !strings.HasPrefix(k, "transaction_") && s.settings.vals[k] != v {
			_ = s.setting(k, v, false)
		}
	}
}

// setting assigns a setting for the session (local: until the end of the
// open block). Inside a block a session-level SET is undone if the block
// (or a savepoint around it) rolls back; SET LOCAL outside a block only
// warns, as in PostgreSQL. transaction_isolation and
// transaction_read_only are the open block's modes (SET TRANSACTION).
func (s *Session) setting(name, value string, local bool) error {
	name = strings.ToLower(name)
	if fixedSettings[name] {
		if _, ok := s.settings.vals[name]; ok {
			return repr.Errorf("55P02", "parameter \"%s\" cannot be changed", name)
		}
	}
	if local && s.tx == txIdle {
		s.notify(errOnlyInBlock.New("SET LOCAL"))
		return nil
	}
	if name == "transaction_isolation" || name == "transaction_read_only" {
		return s.setTxSetting(name, value)
	}
	if err := s.settings.set(name, value); err != nil {
		return err
	}
	if s.tx != txIdle && !local {
		s.blk.sessionSets[name] = s.settings.vals[name]
	}
	if s.tx == txIdle && strings.HasPrefix(name, "default_transaction_") {
		s.settings.resetTxModes()
	}
	return nil
}

// setTxSetting is SET transaction_isolation / transaction_read_only: the
// open block's mode, nothing outside a block (each statement is then its
// own transaction).
func (s *Session) setTxSetting(name, value string) error {
	var m txModes
	if name == "transaction_isolation" {
		if err := checkIsolation(value); err != nil {
			return err
		}
		m.isolation = value
	} else {
		b, ok := parseBoolSetting(value)
		if !ok {
			return repr.Errorf(repr.CodeInvalidParameter, "parameter \"%s\" requires a Boolean value", name)
		}
		m.readOnly = &b
	}
	if s.tx == txIdle {
		return nil
	}
	return s.setTxModesInBlock(m)
}

// argsText renders SET arguments as the setting's text value.
func argsText(args []*pg.Node) string {
	var parts []string
	for _, a := range args {
		c := a.GetAConst()
		switch {
		case c == nil:
			parts = append(parts, "")
		case c.GetSval() != nil:
			parts = append(parts, c.GetSval().Sval)
		case c.GetIval() != nil:
			parts = append(parts, fmt.Sprint(c.GetIval().Ival))
		case c.GetFval() != nil:
			parts = append(parts, c.GetFval().Fval)
		case c.GetBoolval() != nil:
			parts = append(parts, map[bool]string{true: "on", false: "off"}[c.GetBoolval().Boolval])
		}
	}
	return strings.Join(parts, ", ")
}

// execShow executes SHOW name / SHOW ALL.
func (p *Portal) execShow(st *pg.VariableShowStmt) error {
	s := p.st.s.settings
	name := strings.ToLower(st.Name)
	p.tag = "SHOW"
	if name == "all" {
		names := make([]string, 0, len(s.vals))
		for n := range s.vals {
			if isCustomName(n) && !strings.HasPrefix(n, "plpgsql.") {
				continue // PostgreSQL's SHOW ALL leaves placeholders out
			}
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p.rows = append(p.rows, textRow(canonicalName(n), s.vals[n], ""))
		}
		return nil
	}
	name = showName(name)
	v, ok := s.vals[name]
	if !ok {
		return repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	p.rows = append(p.rows, textRow(v))
	return nil
}

// parseBoolSetting reads a Boolean setting's value as PostgreSQL does
// (on, off, true, false, yes, no, 1, 0, case-insensitively).
func parseBoolSetting(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1", "t", "y":
		return true, true
	case "off", "false", "no", "0", "f", "n":
		return false, true
	}
	return false, false
}

// showColumnName is the column name of SHOW name: the setting's name,
// with SHOW's multi-word spellings mapped to it, spelt as the setting is
// (TimeZone, DateStyle), as PostgreSQL does.
func showColumnName(name string) string {
	return canonicalName(showName(strings.ToLower(name)))
}

// checkExtraFloatDigits validates extra_float_digits (an integer from -15
// to 3, as PostgreSQL's) and returns its canonical text.
func checkExtraFloatDigits(value string) (string, error) {
	v, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil {
		return "", repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"extra_float_digits\": \"%s\"", value)
	}
	if v < -15 || v > 3 {
		return "", repr.Errorf(repr.CodeInvalidParameter, "%d is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)", v)
	}
	return strconv.Itoa(v), nil
}

// textStyle is how the session prints values: its time zone,
// extra_float_digits and IntervalStyle.
func (s *settings) textStyle() repr.TextStyle {
	st := repr.TextStyle{Loc: s.loc}
	if v, err := strconv.Atoi(s.vals["extra_float_digits"]); err == nil {
		st.FloatDigits = int8(v - 1)
	}
	st.Interval, _ = repr.ParseIntervalStyle(s.vals["intervalstyle"])
	return st
}
