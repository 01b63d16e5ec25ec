// Package jsonpath is the SQL/JSON path language of PostgreSQL 15: the
// parser of jsonpath text into a tree of items, the printer of that tree
// in PostgreSQL's normal form (the text a jsonpath value holds and
// prints), and the evaluator of a path over a jsonb document in lax or
// strict mode, with PostgreSQL's SQLSTATEs and its silent mode.
//
// It is a ground package below expr and imports only repr: expr's
// jsonb_path_* functions and the @? and @@ operators call it, and it
// installs its parser as repr's jsonpath input function. Evaluation is
// deterministic; the few things that depend on the session (the time
// zone of the _tz variants) come in through Options.
package jsonpath
