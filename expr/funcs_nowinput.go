package expr

import "github.com/eddydb/eddy/repr"

// Date/time input that reads the current time ('now', 'today', 'tomorrow',
// 'yesterday'; see repr.ParseDateTimeAt). A literal of them is not folded:
// the planner builds a call of NowInput's function for the type over the
// literal and now(), so the value is the statement's, as now() is, and a
// materialized view refuses it as it refuses now(). A cast of such text at
// run time reads Ctx.StmtTimestamp in a session; without one (a view's
// step or backfill) it fails with 0A000 rather than freeze a value.

// nowInputFuncs are the functions eddy_<type>_input_at(text, now), one per
// result type; registered by name so printed plans parse back.
var nowInputFuncs = map[repr.Family]*Func{}

func init() {
	names := []string{"date", "time", "timestamp", "timestamptz"}
	for i, t := range []repr.T{repr.Date, repr.TimeT, repr.Timestamp, repr.TimestampTZ} {
		f := fn("eddy_"+names[i]+"_input_at", t, func(c *Ctx, a []repr.Datum) (repr.Datum, error) {
			return repr.ParseDateTimeAt(a[0].Text(), t, c.Location(), a[1].Micros())
		}, repr.Text, repr.TimestampTZ)
		f.Volatile = true
		nowInputFuncs[t.Family] = f
	}
}

// NowInput returns the function reading date/time input of family fam at a
// given now() (nil when fam has none): the planner's form of a literal
// such as timestamp 'today'.
func NowInput(fam repr.Family) *Func { return nowInputFuncs[fam] }

// NowFunc is now(), whose value is Ctx.StmtTimestamp.
func NowFunc() *Func { return functions["now"][0] }

// castReadingNow casts text d to a date/time type to at the statement's
// time when d reads the current time; ok is false when it does not (the
// caller's error stands).
func castReadingNow(ctx *Ctx, d repr.Datum, from, to repr.T) (out repr.Datum, ok bool, err error) {
	if from.Family != repr.FamText && from.Family != repr.FamUnknown || nowInputFuncs[to.Family] == nil ||
		!repr.ReadsNow(d.Text()) {
		return repr.Null, false, nil
	}
	if ctx == nil || ctx.Session == nil {
		return repr.Null, true, repr.Unsupported("date/time input %q in a materialized view (it reads the current time)", d.Text())
	}
	base := repr.T{Family: to.Family}
	v, err := repr.ParseDateTimeAt(d.Text(), base, ctx.Location(), ctx.StmtTimestamp)
	if err != nil {
		return repr.Null, true, err
	}
	out, err = castDatum(v, base, to, ctx.Location(), true)
	return out, true, err
}
