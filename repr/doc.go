// Package repr is Eddy's data model, imported by every layer and importing
// no other Eddy package (in the spirit of Materialize's mz_repr): SQL
// types, datums, rows and their encodings (PostgreSQL text and binary wire
// formats, input parsing, casts, total ordering, and an order-preserving
// key encoding used by storage); the update model (Time, Update,
// CollectionID: at logical time Time the multiplicity of a row of a
// collection changed by a diff); and the user-facing error (Error: a
// SQLSTATE code with message, detail, hint and a 1-based cursor position,
// as PostgreSQL reports them; every layer creates these errors, pgwire
// turns them into ErrorResponse, and tests assert on the code).
package repr
