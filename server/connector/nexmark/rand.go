package nexmark

import "math/bits"

// rng is a small, fast pseudo-random generator (wyrand: a 64-bit Weyl
// sequence passed through a 128-bit multiply-fold). Each event gets its own
// rng seeded by eventSeed, so event n's content is a pure function of the
// configured seed and n, and a generator can start at any n in O(1).
type rng struct{ s uint64 }

// eventSeed mixes the configured seed and an event number into the initial
// state of that event's rng (splitmix64's finalizer over a Weyl step, so
// neighbouring events get unrelated streams).
func eventSeed(seed uint64, n int64) rng {
	z := seed ^ 0x2545f4914f6cdd1d
	z += uint64(n) * 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return rng{s: z ^ (z >> 31)}
}

// next returns 64 uniformly distributed bits.
func (r *rng) next() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// intn returns a value in [0, n) for n > 0 (Lemire's multiply-shift; the
// bias is below 2^-32 for the small n used here and, being deterministic,
// harmless). It returns 0 for n <= 0.
func (r *rng) intn(n int64) int64 {
	if n <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// float returns a value in [0, 1) with 53 random bits.
func (r *rng) float() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}
