package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddydb/eddy/repr"
)

// finalVariance computes var_samp, var_pop, stddev_samp and stddev_pop from
// the exact sums n, Σx and Σx² as PostgreSQL does: the numerator
// n·Σx² − (Σx)² over n·(n−1) (sample) or n² (population), NULL without
// inputs (sample: with fewer than two), NaN when a NaN or an infinity is
// live. Numeric results (integer and numeric inputs) follow
// numeric_stddev_internal: an exact numerator, a division at
// select_div_scale's scale (at least the inputs' display scale doubled),
// the square root at that scale, and 0 when the numerator is not positive.
// Float results divide the exact numerator and round once to double
// precision (PostgreSQL's Youngs-Cramer sums agree wherever they are
// exact, as with integral or binary-fraction data).
func finalVariance(c *AggCall, ac *Acc, _ AggValues) (repr.Datum, error) {
	sample := c.Kind == AggVarSamp || c.Kind == AggStddevSamp
	root := c.Kind == AggStddevSamp || c.Kind == AggStddevPop
	if ac.N <= 0 || sample && ac.N <= 1 {
		return repr.Null, nil
	}
	float := c.T.Family == repr.FamFloat
	if ac.nan > 0 || ac.pinf > 0 || ac.ninf > 0 {
		if float {
			return repr.NewFloat(math.NaN()), nil
		}
		return repr.NewNumeric(&apd.Decimal{Form: apd.NaN}), nil
	}
	n := apd.New(ac.N, 0)
	sum, sq := decOrZero(ac.dec), decOrZero(ac.sq)
	var num, t apd.Decimal
	_, _ = decCtx.Mul(&num, n, sq)
	_, _ = decCtx.Mul(&t, sum, sum)
	_, _ = decCtx.Sub(&num, &num, &t)
	den := new(apd.Decimal)
	if sample {
		_, _ = decCtx.Mul(den, n, apd.New(ac.N-1, 0))
	} else {
		_, _ = decCtx.Mul(den, n, n)
	}
	if float {
		return repr.NewFloat(floatMoment(&num, den, root)), nil
	}
	if num.Sign() <= 0 {
		return repr.NewNumeric(apd.New(0, 0)), nil
	}
	v, rscale := numericDivScale(&num, 2*c.Scale, den)
	if root {
		v = numericSqrt(v, rscale)
	}
	return repr.NewNumeric(v), nil
}

func decOrZero(d *apd.Decimal) *apd.Decimal {
	if d == nil {
		return apd.New(0, 0)
	}
	return d
}

// floatMoment returns num/den (or its square root) in double precision.
func floatMoment(num, den *apd.Decimal, root bool) float64 {
	if num.Sign() <= 0 {
		return 0
	}
	var q apd.Decimal
	ctx := apd.BaseContext.WithPrecision(40)
	_, _ = ctx.Quo(&q, num, den)
	f, err := q.Float64()
	if err != nil {
		f = math.Inf(1)
	}
	if root {
		return math.Sqrt(f)
	}
	return f
}

// numericSqrt is the square root of v rounded half away from zero to
// rscale digits after the point (PostgreSQL's sqrt_var).
func numericSqrt(v *apd.Decimal, rscale int32) *apd.Decimal {
	return sqrtScaled(v, rscale)
}
