package sql

import "maps"

// The system catalogs of a snapshot.
//
// A REPEATABLE READ or SERIALIZABLE block's queries of pg_class and the
// other system relations show the catalog as of its snapshot, as
// PostgreSQL reads its catalogs through the transaction's snapshot: a
// table another session created since is not listed, one dropped since
// still is. Pinning a snapshot takes a frozen copy of the catalog's maps
// (Catalog.frozen), shared by every pin until the catalog's version
// moves, so blocks pay the copy only after DDL. Name resolution (and
// casts to regclass) stays live, as for the data (isolation.go), and so
// do roles, sequences, settings and the engine's statistics. A block that
// runs DDL reads the live catalog from then on.

// frozen returns a copy of c's objects, schemas and default privileges
// that c's later changes do not reach (objects are replaced, never
// changed in place).
func (c *Catalog) frozen() *Catalog {
	return &Catalog{byID: maps.Clone(c.byID), byName: maps.Clone(c.byName), schemas: maps.Clone(c.schemas),
		defACLs: c.defACLs, version: c.version, size: c.size}
}

// frozenCatalogLocked returns a frozen copy of the current catalog,
// reusing the last one while the catalog's version is unchanged. The
// caller holds e.mu (shared) and e.snaps.mu.
func (e *Engine) frozenCatalogLocked() *Catalog {
	if e.snaps.cat == nil || e.snaps.cat.version != e.cat.version {
		e.snaps.cat = e.cat.frozen()
	}
	return e.snaps.cat
}

// catalogOf returns the catalog the transaction ws's system catalogs
// show: its snapshot's, or the live one. The caller holds e.mu shared.
func (e *Engine) catalogOf(ws *writeSet) *Catalog {
	if sn := snapshotOf(ws); sn != nil {
		sn.mu.Lock()
		defer sn.mu.Unlock()
		if sn.cat != nil {
			return sn.cat
		}
	}
	return e.cat
}
