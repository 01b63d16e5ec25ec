package repr

// Time is a logical time assigned by the coordinator; it only grows.
type Time = uint64

// Update is a change to a collection: at logical time Time the multiplicity
// of Row changed by Diff (+1 insert, -1 delete; an UPDATE is a -1/+1 pair).
type Update struct {
	Row  Row
	Time Time
	Diff int64
}

// CollectionID names a durable collection: a table or a materialized view.
type CollectionID uint64
