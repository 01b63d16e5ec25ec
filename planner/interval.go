package planner

import (
	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL's interval field masks (datetime.h), as the first type
// modifier of INTERVAL '...' <fields> carries them.
const (
	imMonth     = expr.IntervalMonth
	imDay       = expr.IntervalDay
	imHour      = expr.IntervalHour
	imMinute    = expr.IntervalMinute
	imSecond    = expr.IntervalSecond
	imFullRange = expr.IntervalFullRange
)

// qualifiedInterval plans INTERVAL 'lit' <fields> (and 'lit'::interval
// hour etc.) as PostgreSQL does: a bare number counts units of the last
// field (INTERVAL '1' HOUR is one hour, not one second), and fields below
// the last are truncated away (INTERVAL '1 day 2 hours' DAY is 1 day).
// A computed value of type interval is truncated at run time
// (computedInterval); other computed values (text) are refused.
func (c *ectx) qualifiedInterval(tc *pg_query.TypeCast) (expr.Expr, error) {
	b := c.b
	mask := tc.TypeName.Typmods[0].GetAConst().GetIval().GetIval()
	k := tc.Arg.GetAConst()
	if k == nil || k.GetSval() == nil {
		return c.computedInterval(tc, mask)
	}
	return b.constantInterval(tc, k, mask)
}

// computedInterval plans x::interval <fields> for a computed interval x:
// eddy_interval_fields truncates it as PostgreSQL's interval_scale does.
// A text value would need interval input under the qualifier (a bare
// number counts the last field's units), and a seconds precision
// rounding: both are refused.
func (c *ectx) computedInterval(tc *pg_query.TypeCast, mask int32) (expr.Expr, error) {
	refuse := repr.Unsupported("interval field qualifiers on values other than string constants or intervals").WithPosition(tc.Location + 1)
	if len(tc.TypeName.Typmods) > 1 {
		return nil, refuse
	}
	e, err := c.expr(tc.Arg)
	if err != nil {
		return nil, err
	}
	if e.Type().Family != repr.FamInterval {
		return nil, refuse
	}
	return expr.Fold(&expr.Call{Fn: expr.IntervalFields, Args: []expr.Expr{e, &expr.Lit{D: repr.NewInt(int64(mask)), T: repr.Int4}}}), nil
}

// constantInterval plans INTERVAL 'lit' <fields> for a string constant.
func (b *builder) constantInterval(tc *pg_query.TypeCast, c *pg_query.A_Const, mask int32) (expr.Expr, error) {
	text := c.GetSval().Sval
	unit, minSec := expr.QualifierUnit(mask), mask == imMinute|imSecond
	d, err := repr.ParseIntervalIn(text, unit, minSec)
	if err == nil {
		// IntervalStyle sql_standard reads some text differently: then the
		// session's style decides at run time.
		std, errStd := repr.ParseIntervalStyled(text, unit, minSec, repr.IntervalSQLStandard)
		if errStd != nil || std.Interval() != d.Interval() {
			if b.opts.IntervalTexts != nil {
				return b.styleFreeQualified(text, c, mask)
			}
			if err := b.styledIntervalInView(text); err != nil {
				return nil, withPos(err, c.Location)
			}
			return &expr.Call{Fn: expr.IntervalIn, Args: []expr.Expr{&expr.Lit{D: repr.NewText(text), T: repr.Text}, &expr.Lit{D: repr.NewInt(int64(mask)), T: repr.Int4}}}, nil
		}
	}
	if err != nil {
		return nil, withPos(err, c.Location)
	}
	return &expr.Lit{D: repr.NewInterval(expr.TruncateInterval(d.Interval(), mask)), T: repr.IntervalT}, nil
}

// styledIntervalInView refuses, in a materialized view, interval input
// whose meaning IntervalStyle sql_standard changes ('-1 2:03:04'): the
// view's dataflow does not run in the creating session's style, and
// PostgreSQL would read the text once, in that style.
func (b *builder) styledIntervalInView(text string) error {
	if !b.opts.MaterializedView {
		return nil
	}
	return repr.Unsupported("interval input %q in a materialized view (IntervalStyle sql_standard reads its signs differently: "+
		"write a sign on every field)", text)
}

// styleFreeQualified reads INTERVAL 'text' <fields>, whose meaning
// IntervalStyle sql_standard changes, in Options.IntervalStyle and records
// a text that reads the same in every style (Options.IntervalTexts).
func (b *builder) styleFreeQualified(text string, c *pg_query.A_Const, mask int32) (expr.Expr, error) {
	d, err := repr.ParseIntervalStyled(text, expr.QualifierUnit(mask), mask == imMinute|imSecond, b.opts.IntervalStyle)
	if err != nil {
		return nil, withPos(err, c.Location)
	}
	iv := repr.NewInterval(expr.TruncateInterval(d.Interval(), mask))
	b.opts.IntervalTexts[c] = repr.FormatTextStyle(iv, repr.IntervalT, repr.TextStyle{})
	return &expr.Lit{D: iv, T: repr.IntervalT}, nil
}

// styleFreeCast folds the cast c of the string constant a to interval,
// whose meaning IntervalStyle sql_standard changes, reading it in
// Options.IntervalStyle, and records a text that reads the same in every
// style (Options.IntervalTexts).
func (b *builder) styleFreeCast(c *expr.Cast, a *pg_query.A_Const) (expr.Expr, error) {
	d, err := c.Eval(&expr.Ctx{TimeZone: b.opts.TimeZone, IntervalStyle: b.opts.IntervalStyle}, nil)
	if err != nil {
		return nil, err
	}
	b.opts.IntervalTexts[a] = repr.FormatTextStyle(d, repr.IntervalT, repr.TextStyle{})
	return &expr.Lit{D: d, T: c.To}, nil
}
