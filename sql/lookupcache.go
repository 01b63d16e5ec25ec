package sql

import (
	"sync"

	"github.com/eddydb/eddy/repr"
	"github.com/eddydb/eddy/storage"
)

// lookupCache remembers, for the view steps of one commit (propagate),
// the entries each shared-arrangement lookup of a table found, so that
// the views that look up the same key of the same table descend its
// B-tree once: in a TPC-H refresh ten views look up each new lineitem's
// order by o_orderkey, five its supplier, six its part, each in its own
// delta join (whose per-Step memo dedups only within the view). Tables do
// not change while views step (a commit applies its writes to them
// before propagate), so an entry found once stays right for the commit;
// a view's contents do change (each view's output is applied before the
// next view steps), so lookups of a view are never cached. Entries are
// the tables' own (storage.Entry: no copy); the cache lives for one
// propagate and holds one slice header per entry found. Lookups come from
// shard runners concurrently: mu guards the map, not the scans.
type lookupCache struct {
	mu sync.Mutex
	// byIndex maps an arrangement id (a table or one of its indexes) to
	// the entries found by each lookup key.
	byIndex map[uint64]map[string][]storage.Entry
	// hits counts the lookups served from the cache.
	hits int64
}

// newLookupCache returns an empty cache.
func newLookupCache() *lookupCache {
	return &lookupCache{byIndex: map[uint64]map[string][]storage.Entry{}}
}

// get returns the entries remembered for key of arrangement index.
func (c *lookupCache) get(index uint64, key []byte) ([]storage.Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, ok := c.byIndex[index][string(key)]
	if ok {
		c.hits++
	}
	return es, ok
}

// put remembers es as the entries of key of arrangement index.
func (c *lookupCache) put(index uint64, key []byte, es []storage.Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.byIndex[index]
	if m == nil {
		m = map[string][]storage.Entry{}
		c.byIndex[index] = m
	}
	m[string(key)] = es
}

// replay calls fn with each entry's row decoded by d and its count, as
// the scan that found them did, until fn returns false.
func replay(es []storage.Entry, d *repr.ColDecoder, fn func(repr.Row, int64) bool) {
	for _, x := range es {
		if !fn(x.DecodeCols(d), x.Count()) {
			return
		}
	}
}

// cachedLookup serves a lookup of key in table coll, by its own key order
// (ix 0) or by its index ix, from the cache, or scans and remembers it.
// It reports false when the collection's entries cannot be kept (spilled):
// the caller scans as without a cache.
func (c *lookupCache) cachedLookup(index uint64, coll *storage.Collection, ix uint64, key []byte,
	d *repr.ColDecoder, fn func(repr.Row, int64) bool) (bool, error) {
	if es, ok := c.get(index, key); ok {
		replay(es, d, fn)
		return true, nil
	}
	var es []storage.Entry
	var ok bool
	var err error
	if ix == 0 {
		es, ok = coll.PrefixEntries(key, nil)
	} else {
		es, ok, err = coll.IndexEntries(ix, key, storage.KeyPrefixEnd(key), nil)
	}
	if !ok || err != nil {
		return false, err
	}
	c.put(index, key, es)
	replay(es, d, fn)
	return true, nil
}
