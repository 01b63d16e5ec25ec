package sql

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/eddydb/eddy/repr"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// ServerVersion is the PostgreSQL version Eddy reports. Clients (psql's
// \d queries, JDBC, SQLAlchemy) branch on it; 15 matches the grammar we
// parse with.
const ServerVersion = "15.0"

// settings are a session's configuration parameters.
type settings struct {
	vals     map[string]string
	changed  map[string]string
	loc      *time.Location
	timeZone string
	user     string
	database string
}

// reportedSettings are sent as ParameterStatus at startup and on change.
var reportedSettings = []string{"server_version", "server_encoding", "client_encoding", "DateStyle",
	"integer_datetimes", "standard_conforming_strings", "TimeZone", "application_name", "IntervalStyle",
	"is_superuser", "session_authorization"}

// settingDefaults are every known setting with its default value.
func settingDefaults(version string) map[string]string {
	return map[string]string{
		"server_version": ServerVersion, "server_encoding": "UTF8", "client_encoding": "UTF8",
		"datestyle": "ISO, MDY", "integer_datetimes": "on", "standard_conforming_strings": "on",
		"timezone": "UTC", "application_name": "", "intervalstyle": "postgres", "is_superuser": "on",
		"session_authorization": "eddy", "search_path": "\"$user\", public", "extra_float_digits": "1",
		"statement_timeout": "0", "lock_timeout": "0", "idle_in_transaction_session_timeout": "0",
		"transaction_isolation": "serializable", "default_transaction_isolation": "serializable",
		"max_identifier_length": "63", "server_version_num": "150000", "eddy_version": version,
		"client_min_messages": "notice", "bytea_output": "hex", "timezone_abbreviations": "Default",
		"default_transaction_read_only": "off", "transaction_read_only": "off", "synchronous_commit": "on",
		"work_mem": "4MB", "lc_messages": "C", "lc_monetary": "C", "lc_numeric": "C", "lc_time": "C",
		"subscribe_buffer": "1024", "fetch_timeout": "0",
	}
}

func newSettings(version string) *settings {
	return &settings{vals: settingDefaults(version), changed: map[string]string{}, loc: time.UTC,
		timeZone: "UTC", user: "eddy", database: "eddy"}
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
		return repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	switch name {
	case "timezone":
		loc, err := loadZone(value)
		if err != nil {
			return err
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
	case "datestyle":
		if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(value)), "ISO") {
			return repr.Unsupported("DateStyle %q (only ISO)", value)
		}
		value = "ISO, MDY"
	}
	s.vals[name] = value
	for _, n := range reportedSettings {
		if strings.ToLower(n) == name {
			s.changed[n] = value
		}
	}
	return nil
}

// loadZone resolves a time zone name or a numeric UTC offset.
func loadZone(name string) (*time.Location, error) {
	switch strings.ToUpper(name) {
	case "UTC", "GMT", "Z", "ZULU", "LOCAL", "DEFAULT":
		return time.UTC, nil
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc, nil
	}
	var h int
	if _, err := fmt.Sscanf(name, "%d", &h); err == nil && h >= -15 && h <= 15 {
		// PostgreSQL treats a bare number as hours east of UTC.
		return time.FixedZone(name, h*3600), nil
	}
	return nil, repr.Errorf(repr.CodeInvalidParameter, "invalid value for parameter \"TimeZone\": \"%s\"", name)
}

// apply executes a SET / RESET statement.
func (s *settings) apply(st *pg.VariableSetStmt) error {
	name := strings.ToLower(st.Name)
	switch st.Kind {
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		return s.set(name, settingDefaults(s.vals["eddy_version"])[name])
	case pg.VariableSetKind_VAR_RESET_ALL:
		for k, v := range settingDefaults(s.vals["eddy_version"]) {
			_ = s.set(k, v)
		}
		return nil
	case pg.VariableSetKind_VAR_SET_MULTI:
		if name == "transaction" || name == "session characteristics" {
			return nil // isolation is always serializable
		}
		return repr.Unsupported("SET %s", st.Name)
	case pg.VariableSetKind_VAR_SET_VALUE:
		if name == "timezone" || name == "time zone" {
			name = "timezone"
		}
		return s.set(name, argsText(st.Args))
	}
	return repr.Unsupported("SET %s", st.Name)
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
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p.rows = append(p.rows, textRow(canonicalName(n), s.vals[n], ""))
		}
		return nil
	}
	if name == "time zone" {
		name = "timezone"
	}
	v, ok := s.vals[name]
	if !ok {
		return repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	p.rows = append(p.rows, textRow(v))
	return nil
}
