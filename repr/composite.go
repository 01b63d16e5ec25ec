package repr

// Named composite types (CREATE TYPE name AS (f1 t1, ...)). The catalog
// owns a composite type's name and fields; repr knows it only by its
// pg_type OID (T.Composite), so a composite T stays a comparable value
// and its values are the records of record.go, whose fields describe
// themselves. The type's array type (_name) has the next OID, which the
// catalog reserves with the type.

// CompositeOf returns the named composite type with pg_type OID oid.
func CompositeOf(oid uint32) T { return T{Family: FamRecord, Composite: oid} }

// CompositeArrayOID returns the OID of the array type of the composite
// type with OID oid.
func CompositeArrayOID(oid uint32) uint32 { return oid + 1 }

// IsComposite reports whether t is a named composite type.
func (t T) IsComposite() bool { return t.Family == FamRecord && t.Composite != 0 }
