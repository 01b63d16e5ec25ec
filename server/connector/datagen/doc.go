// Package datagen generates rows for demo and test sources from per-column
// rules, in the style of RisingWave's datagen connector:
//
//	CREATE SOURCE s (id INT, v VARCHAR, t TIMESTAMP) WITH (
//	    connector = 'datagen',
//	    fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '1000',
//	    fields.v.kind = 'random', fields.v.length = '8', fields.v.seed = '7',
//	    datagen.rows.per.second = '100');
//
// A column's kind is sequence (start, start+1, ..., end) or random (the
// default: uniform over [min, max] for numbers, alphanumeric strings of a
// given length, booleans, timestamps and dates in [basetime - max_past,
// basetime]). The generator stops when every sequence column is exhausted;
// with no sequence column it is unbounded, and a sequence column exhausted
// before another one yields NULL.
//
// Determinism: row n is a pure function of the configuration and n (each
// random column draws from connector.NewRand of its seed, its position and
// n), so NewAt resumes at any row in O(1) and a restart that resumes at the
// stored offset sees exactly the same rows. Defaults are fixed (basetime is
// 2024-01-01, not now()) for the same reason. datagen.rows.per.second is
// informational: pacing is the runtime's job (in server).
package datagen
