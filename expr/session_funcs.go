package expr

import "github.com/eddydb/eddy/repr"

// Session-information functions. They read Ctx.Session and are volatile:
// never constant-folded, and rejected inside materialized views (their value
// depends on who asks, not on the data).
func init() {
	// They return name, as PostgreSQL's do (version() returns text).
	info := func(name string, get func(*SessionInfo) string) {
		ret := repr.Name
		if name == "version" {
			ret = repr.Text
		}
		f := fn(name, ret, func(c *Ctx, _ []repr.Datum) (repr.Datum, error) {
			if c.Session == nil {
				return repr.Null, repr.Unsupported("%s() outside a session", name)
			}
			return repr.NewText(get(c.Session)), nil
		})
		f.Volatile = true
	}
	info("version", func(s *SessionInfo) string {
		return "PostgreSQL 15.0 (Eddy " + s.Version + ") on x86_64-pc-linux-gnu, compiled by Go"
	})
	info("current_database", func(s *SessionInfo) string { return s.Database })
	info("current_catalog", func(s *SessionInfo) string { return s.Database })
	info("session_user", func(s *SessionInfo) string { return s.User })
	for _, name := range []string{"current_user", "user", "current_role"} {
		info(name, func(s *SessionInfo) string {
			if s.CurrentUser != "" {
				return s.CurrentUser
			}
			return s.User
		})
	}
	f := fn("current_schema", repr.Name, func(c *Ctx, _ []repr.Datum) (repr.Datum, error) {
		switch {
		case c.Session == nil:
			return repr.Null, repr.Unsupported("current_schema() outside a session")
		case c.Session.Schema == nil:
			return repr.NewText("public"), nil
		case c.Session.Schema() == "":
			return repr.Null, nil
		}
		return repr.NewText(c.Session.Schema()), nil
	})
	f.Volatile = true
	f = fn("current_setting", repr.Text, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
		if c.Session != nil && c.Session.Setting != nil {
			if v, ok := c.Session.Setting(a[0].Text()); ok {
				return repr.NewText(v), nil
			}
		}
		return repr.Null, repr.Errorf(repr.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].Text())
	}, repr.Text)
	f.Volatile = true
}

// pg_listening_channels() lists the session's LISTEN channels. Its rows
// depend on the session, so it is never folded.
func init() {
	f := tableFn("pg_listening_channels", col1(repr.Text), func(c *Ctx, _ []repr.Datum, emit func([]repr.Datum) error) error {
		if c.Session == nil || c.Session.Channels == nil {
			return nil
		}
		for _, ch := range c.Session.Channels() {
			if err := emit([]repr.Datum{repr.NewText(ch)}); err != nil {
				return err
			}
		}
		return nil
	})
	f.contextual = true
	settingsFunc()
}

// settingsFunc registers pg_show_all_settings(), the function PostgreSQL
// defines pg_settings over: the same columns and rows.
func settingsFunc() {
	text := repr.Text
	var cols []TableCol
	for _, n := range []string{"name", "setting", "unit", "category", "short_desc", "extra_desc", "context",
		"vartype", "source", "min_val", "max_val", "enumvals", "boot_val", "reset_val", "sourcefile",
		"sourceline", "pending_restart"} {
		t := text
		switch n {
		case "enumvals":
			t = repr.ArrayOf(repr.Text)
		case "sourceline":
			t = repr.Int4
		case "pending_restart":
			t = repr.Bool
		}
		cols = append(cols, TableCol{Name: n, T: t})
	}
	f := tableFn("pg_show_all_settings", cols, func(c *Ctx, _ []repr.Datum, emit func([]repr.Datum) error) error {
		if c.Session == nil || c.Session.Settings == nil {
			return repr.Unsupported("pg_show_all_settings() outside a session")
		}
		for _, r := range c.Session.Settings() {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	})
	f.contextual, f.Present = true, 1
}
