package planner

import (
	"strings"

	"github.com/eddydb/eddy/expr"
	"github.com/eddydb/eddy/repr"
)

// nowInput plans a literal cast to a date/time type whose text reads the
// current time ('now', 'today', 'tomorrow', 'yesterday'): PostgreSQL reads
// it when it parses the statement; Eddy computes it from the statement's
// now(). 'now' as a timestamptz is now() itself, so that a materialized
// view may use it in a temporal filter as it may use now(); the others
// call expr.NowInput's function over the text and now(), which a view
// refuses (0A000) as it refuses now() elsewhere. ok is false when the
// literal is not such an input.
func (b *builder) nowInput(lit *expr.Lit, c *expr.Cast) (out expr.Expr, ok bool, err error) {
	from := lit.Type().Family
	fn := expr.NowInput(c.To.Family)
	if from != repr.FamText && from != repr.FamUnknown || fn == nil || lit.D.IsNull() || !repr.ReadsNow(lit.D.Text()) {
		return nil, false, nil
	}
	now := &expr.Call{Fn: expr.NowFunc()}
	if b.opts.MaterializedView {
		if c.To == repr.TimestampTZ && strings.EqualFold(strings.TrimSpace(lit.D.Text()), "now") {
			b.noteNow(now)
			return now, true, nil
		}
		return nil, true, repr.Unsupported("date/time input %q in a materialized view (it reads the current time: "+
			"only now() in a temporal filter may)", lit.D.Text())
	}
	text := &expr.Lit{D: repr.NewText(lit.D.Text()), T: repr.Text}
	out = &expr.Call{Fn: fn, Args: []expr.Expr{text, now}}
	if c.To != fn.Ret {
		out = &expr.Cast{Arg: out, To: c.To, Explicit: true}
	}
	return out, true, nil
}
