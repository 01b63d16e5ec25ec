package expr

import (
	"sync/atomic"

	"github.com/eddydb/eddy/repr"
)

// Expr is a typed scalar expression over the columns of an input row.
// Expressions are immutable after construction and safe to share.
type Expr interface {
	// Type is the static result type.
	Type() repr.T
	// Eval computes the value over row. It returns a *repr.Error-style user
	// error (SQLSTATE 22xxx) for data errors such as division by zero.
	Eval(ctx *Ctx, row repr.Row) (repr.Datum, error)
	// String prints the expression in the form golden tests use and parse back:
	// columns as #i, literals as SQL literals with casts, calls as name(args).
	String() string
}

// Ctx carries what evaluation may depend on beyond the row. It is read-only
// during evaluation; the caller fills it (time comes in as data).
type Ctx struct {
	// StmtTimestamp is now() / current_timestamp, in microseconds since 2000-01-01 UTC.
	StmtTimestamp int64
	// StatementStart is statement_timestamp() when not 0 (a session's
	// statement inside a transaction block, where now() is the block's
	// start); else it is StmtTimestamp.
	StatementStart int64
	// FloatDigits is the session's extra_float_digits minus 1
	// (repr.TextStyle): a cast of floats to text prints by it.
	FloatDigits int8
	// IntervalStyle is the session's IntervalStyle: a cast of intervals
	// to text prints by it.
	IntervalStyle repr.IntervalStyle
	// TimeZone is the session's IANA time zone name ("UTC" when empty).
	TimeZone string
	// Session describes the session for version(), current_user and
	// friends; nil outside a session (view maintenance).
	Session *SessionInfo
	// Params are the bound values of a prepared statement's parameters,
	// read by Param expressions ($1 is Params[0]).
	Params []repr.Datum
	// Interrupt, when not nil, is closed once the statement evaluating
	// with this Ctx is cancelled (statement_timeout, a CancelRequest, a
	// client that went away). Long loops poll it at batch granularity:
	// exec's operators every pollEvery rows, set-returning functions
	// through their consumer. nil (view maintenance) is never closed.
	Interrupt <-chan struct{}
	// Memory, when not nil, is the memory account of the statement (or
	// commit) evaluating with this Ctx: work that keeps what it produces
	// (exec's Steps, result buffers) reports its growth there in chunks,
	// and stops when Grow refuses. nil: nothing is accounted.
	Memory Memory

	// args is the argument stack of Call.Eval: each call pushes its
	// evaluated arguments, passes that window to Func.Impl and pops it, so a
	// function call does not allocate its argument slice. It makes a Ctx
	// single-goroutine state (as it already is: one Ctx per statement or
	// dataflow step); expressions themselves stay stateless and shareable.
	args []repr.Datum
}

// SessionInfo is what session-information functions report.
type SessionInfo struct {
	// User is session_user; CurrentUser is current_user (they differ
	// after SET ROLE).
	User, CurrentUser, Database, Version string
	// Setting returns a configuration parameter's value (current_setting).
	Setting func(name string) (string, bool)
	// Sequences serves nextval, currval, setval and lastval (nil: none).
	Sequences Sequences
	// Routines runs the catalog's PL/pgSQL functions (nil: none).
	Routines Routines
	// Catalog serves the catalog functions and reg* casts (nil: none).
	Catalog Catalog
	// Channels returns the channels the session listens on, in LISTEN
	// order (pg_listening_channels; nil: none).
	Channels func() []string
	// Settings returns the rows of pg_settings as the session sees them
	// (pg_show_all_settings; nil: none).
	Settings func() []repr.Row
	// Schema returns the first existing schema of the search path
	// (current_schema; "" is NULL; nil: public).
	Schema func() string
}

// Sequences is the session's access to sequences (sequence_funcs.go).
// Sequence names are given as text, as regclass input: possibly
// schema-qualified, unquoted parts folded to lower case.
type Sequences interface {
	NextVal(name string) (int64, error)
	CurrVal(name string) (int64, error)
	SetVal(name string, v int64, isCalled bool) (int64, error)
	LastVal() (int64, error)
}

// Col references column Idx of the input row.
type Col struct {
	Idx int
	T   repr.T
}

// Lit is a constant.
type Lit struct {
	D repr.Datum
	T repr.T
}

// Call applies a resolved built-in function or operator to arguments whose
// types already match Fn's signature exactly (the planner inserts casts).
type Call struct {
	Fn   *Func
	Args []Expr
}

// Cast converts Arg to type To with PostgreSQL's cast semantics
// (e.g. text -> integer parses and fails with 22P02; numeric(p,s) rounds).
//
// Explicit selects CAST/:: semantics (varchar(n) truncates silently);
// otherwise the cast has assignment/implicit semantics (22001 on overflow),
// which is what the planner's inserted coercions need. Explicit casts print
// as CAST(x AS t), implicit ones as x::t.
type Cast struct {
	Arg      Expr
	To       repr.T
	Explicit bool
}

// And is the three-valued conjunction of Args (len >= 2). When every arm
// compares one term with a constant by <> (`x NOT IN (...)`), evaluation
// hashes the constants once (see members).
type And struct {
	Args []Expr
	set  atomic.Pointer[memberSet] // nil until the first Eval
}

// Or is the three-valued disjunction of Args (len >= 2). When every arm
// compares one term with a constant (the planner's form of `x IN (...)`),
// evaluation hashes the constants once (see members).
type Or struct {
	Args []Expr
	set  atomic.Pointer[memberSet] // nil until the first Eval
}

// Not is three-valued negation.
type Not struct{ Arg Expr }

// IsNull is `Arg IS NULL` (or IS NOT NULL when Negate); never NULL itself.
type IsNull struct {
	Arg    Expr
	Negate bool
}

// When is one WHEN cond THEN result arm of a Case.
type When struct{ Cond, Then Expr }

// Case is the searched CASE; Else is nil for ELSE NULL. Arms are evaluated
// lazily in order (so CASE guards a division by zero, as in PostgreSQL).
type Case struct {
	Whens []When
	Else  Expr
	T     repr.T
}

// Coalesce returns its first non-NULL argument, evaluating lazily.
type Coalesce struct {
	Args []Expr
	T    repr.T
}

// Func is one resolved overload of a built-in function or operator.
type Func struct {
	// Name is the SQL name: "+", "=", "lower", "date_trunc", ...
	Name string
	// Args are the parameter types; Ret the result type.
	Args []repr.T
	Ret  repr.T
	// Strict functions return NULL when any argument is NULL without calling Impl.
	Strict bool
	// Volatile functions (now(), random()) may not be constant-folded; the
	// planner rejects them inside materialized views with 0A000.
	Volatile bool
	// Monotone functions are non-decreasing in their time argument (the
	// first argument of a date/time type: ts + interval, ts - interval,
	// tumble_start(ts, size), date_trunc(unit, ts)) when the other
	// arguments are constant. The runtime may map a watermark on the
	// argument through such a function to a watermark on its result.
	Monotone bool
	// Impl computes the result from already-evaluated arguments.
	Impl func(ctx *Ctx, args []repr.Datum) (repr.Datum, error)

	// zoned marks functions whose result depends on Ctx.TimeZone; Fold
	// leaves them to run time.
	zoned bool
	// catalog marks functions evaluated by the session's Catalog
	// (catalog_funcs.go).
	catalog bool
	// poly instantiates a polymorphic overload for concrete argument types
	// (nil if the overload is monomorphic).
	poly func(args []repr.T) *Func
	// polyAt marks, in an instance of a polymorphic overload, the argument
	// positions whose declared type was polymorphic: as in PostgreSQL's
	// func_select_candidate they never count as exact or preferred matches.
	polyAt uint64
	// bind specializes the overload for a call's arguments once they are
	// folded (to_char compiles a literal template); it returns nil when it
	// has nothing to specialize. The result computes the same function.
	bind func(args []Expr) *Func
	// table is the set-returning function this signature stands for
	// during resolution (ResolveTableFunc); nil for scalar functions.
	table *TableFunc
	// fast says how Specialize may evaluate a call of this overload
	// without Impl (specialize.go), with fastSign (shifts) or fastOp
	// (comparisons).
	fast     fastKind
	fastSign int8
	fastOp   cmpOp
}

// Polymorphic reports whether f is a polymorphic overload, whose Args and
// Ret are then resolved per call rather than declared.
func (f *Func) Polymorphic() bool { return f.poly != nil }
