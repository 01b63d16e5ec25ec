package ir

import (
	"fmt"
	"time"

	"github.com/eddydb/eddy/repr"
)

// SessionWindow appends to each input row the bounds window_start and
// window_end (two columns of the type of TimeCol, a timestamp) of the
// session window it belongs to: within each group of the Key columns, rows
// whose times lie closer than Gap microseconds to each other, transitively,
// form one session [first time, last time + Gap). Rows with a NULL time are
// dropped. It is the SESSION window table function with the non-window
// GROUP BY columns of the enclosing query as Key (planner/session.go).
//
// Not linear: one row's arrival or retraction can move every row of the
// sessions it merges or splits to new bounds (retracted with the old ones,
// inserted with the new). Rules may move a deterministic filter over Key
// columns only below it (it keeps or drops whole groups, and sessions are
// per group); filters over other columns, window_start or window_end would
// change which rows form sessions and stay above. State: per group, every
// live row ordered by time; with a watermark on TimeCol, only the rows of
// sessions whose window_end is above the watermark (dataflow.SessionWindow).
type SessionWindow struct {
	Input   Rel
	Key     []int
	TimeCol int
	Gap     int64
}

// ColTypes implements Rel: the input's columns, window_start, window_end.
func (s *SessionWindow) ColTypes() []repr.T {
	in := s.Input.ColTypes()
	t := in[s.TimeCol]
	return append(in[:len(in):len(in)], t, t)
}

// Children implements Rel.
func (s *SessionWindow) Children() []Rel { return []Rel{s.Input} }

// WithChildren implements Rel.
func (s *SessionWindow) WithChildren(in []Rel) Rel { c := *s; c.Input = in[0]; return &c }

// String implements Rel.
func (s *SessionWindow) String() string { return Format(s) }

func (s *SessionWindow) header() string {
	return fmt.Sprintf("SessionWindow key=[%s] time=#%d gap=%s", colList(s.Key), s.TimeCol,
		time.Duration(s.Gap)*time.Microsecond)
}
