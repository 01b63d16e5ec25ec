// Package types defines Eddy's SQL types, datums, rows and their encodings:
// PostgreSQL text and binary wire formats, input parsing, casts, total
// ordering, and an order-preserving key encoding used by storage. It is a
// leaf package: anyone may import it, it imports nothing of Eddy's.
package types
