// Package planner turns parsed SQL (pg_query ASTs) into the optimizer's
// relational IR: it resolves names against scopes and the Catalog, types
// expressions (PostgreSQL's operator and function resolution via
// expr, with unknown-typed literals and parameters typed from
// context), plans aggregation, set operations and views, and decorrelates
// subqueries into joins and reductions (Neumann and Kemper, "Unnesting
// Arbitrary Queries", BTW 2015, in the form Materialize uses: the distinct
// outer values a subquery references are computed, the subquery is planned
// once joined to them, and its per-value results are joined back).
//
// Window functions (OVER, winfunc.go) are computed after HAVING by a chain
// of ir.Window operators, one per distinct window, over a Map of their
// arguments and partition and order expressions; a row_number() bounded by
// the enclosing query's WHERE becomes a TopK instead (rownumber.go).
//
// Window table functions in FROM (window.go): TUMBLE, HOP and CUMULATE
// become Maps and Unions; SESSION becomes ir.SessionWindow, whose sessions
// are formed per group of the enclosing GROUP BY (session.go).
//
// Set-returning functions (generate_series, jsonb_each, unnest, ...) in
// FROM are ir.FlatMaps over the FROM items before them, implicitly LATERAL
// (tablefunc.go); in the select list they run after grouping and windows,
// in lockstep, one FlatMap per nesting level (srf.go).
//
// The planner is deterministic and does no I/O: the statement layer
// implements Catalog. Constructs it cannot plan correctly fail with 0A000
// naming the construct, never with a wrong answer.
package planner
