package expr

import (
	"crypto/rand"

	"github.com/eddydb/eddy/repr"
)

// gen_random_uuid() returns a version 4 (random) UUID. It is volatile:
// never folded, evaluated once per row in INSERT values and defaults, and
// refused inside materialized views like random().
func init() {
	f := fn("gen_random_uuid", repr.UUID, func(*Ctx, []repr.Datum) (repr.Datum, error) {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return repr.Null, err
		}
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
		return repr.NewUUID(b), nil
	})
	f.Volatile = true
}
