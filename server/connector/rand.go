package connector

import "math/bits"

// Rand is a small, fast pseudo-random generator (wyrand: a 64-bit Weyl
// sequence passed through a 128-bit multiply-fold). Generators give each
// row its own Rand seeded by NewRand(seed, n), so row n's content is a pure
// function of the seed and n and a generator resumes at any n in O(1).
// The zero value is usable; a Rand is a value, copying it forks the stream.
type Rand struct{ s uint64 }

// NewRand returns the stream of row (or event) n under seed: splitmix64's
// finalizer over a Weyl step, so neighbouring rows get unrelated streams.
func NewRand(seed uint64, n int64) Rand {
	z := seed ^ 0x2545f4914f6cdd1d
	z += uint64(n) * 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return Rand{s: z ^ (z >> 31)}
}

// Uint64 returns 64 uniformly distributed bits.
func (r *Rand) Uint64() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Uint64n returns a value in [0, n) for n > 0, 0 for n == 0 (Lemire's
// multiply-shift without rejection: the bias is below n/2^64, negligible
// for data generation, and the result stays deterministic).
func (r *Rand) Uint64n(n uint64) uint64 {
	hi, _ := bits.Mul64(r.Uint64(), n)
	return hi
}

// Int64n returns a value in [0, n) for n > 0, 0 for n <= 0.
func (r *Rand) Int64n(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return int64(r.Uint64n(uint64(n)))
}

// Float64 returns a value in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 {
	return float64(r.Uint64()>>11) * (1.0 / (1 << 53))
}
