package sql

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/eddydb/eddy/repr"
)

// LISTEN, UNLISTEN and NOTIFY, as in PostgreSQL: a notification is
// delivered to every session listening on its channel (the sender too)
// when the sending transaction commits, never if it rolls back; within
// one transaction a notification equal to an earlier one (same channel
// and payload) is folded into it. LISTEN and UNLISTEN inside a block take
// effect at COMMIT. The wire layer decides when a delivered notification
// reaches the client (at once when idle, else before its next
// ReadyForQuery).

const (
	// maxChannelLen is NAMEDATALEN-1: longer channel names are refused.
	maxChannelLen = 63
	// maxPayloadLen is PostgreSQL's NOTIFY_PAYLOAD_MAX_LENGTH: a payload
	// must be shorter.
	maxPayloadLen = 8000
)

// pendingNotes are an open block's notifications and LISTEN/UNLISTEN
// actions, in order.
type pendingNotes struct {
	notifies []Notification
	listens  []listenAction
}

// listenAction is one LISTEN (listen true) or UNLISTEN; all means
// UNLISTEN *.
type listenAction struct {
	channel     string
	listen, all bool
}

// mark is a savepoint's position in the pending notes.
type notesMark struct{ notifies, listens int }

func (n *pendingNotes) mark() notesMark { return notesMark{len(n.notifies), len(n.listens)} }

// rollbackTo drops what was queued after m.
func (n *pendingNotes) rollbackTo(m notesMark) {
	n.notifies, n.listens = n.notifies[:m.notifies], n.listens[:m.listens]
}

// execListen runs LISTEN, UNLISTEN or NOTIFY.
func (p *Portal) execListen(n *pg.Node) error {
	s := p.st.s
	switch {
	case n.GetListenStmt() != nil:
		p.tag = "LISTEN"
		s.listenAction(listenAction{channel: n.GetListenStmt().Conditionname, listen: true})
	case n.GetUnlistenStmt() != nil:
		p.tag = "UNLISTEN"
		ch := n.GetUnlistenStmt().Conditionname
		s.listenAction(listenAction{channel: ch, all: ch == ""})
	default:
		p.tag = "NOTIFY"
		ns := n.GetNotifyStmt()
		return s.queueNotify(ns.Conditionname, repr.NewText(ns.Payload))
	}
	return nil
}

// listenAction applies a LISTEN or UNLISTEN now, or at COMMIT in a block.
func (s *Session) listenAction(a listenAction) {
	if s.tx != txIdle {
		s.notes.listens = append(s.notes.listens, a)
		return
	}
	s.applyListen(a)
}

// applyListen changes the set of channels the session listens on.
func (s *Session) applyListen(a listenAction) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	switch {
	case a.all:
		s.listening = nil
	case a.listen && !slices.Contains(s.listening, a.channel):
		s.listening = append(s.listening, a.channel)
	case !a.listen:
		s.listening = slices.DeleteFunc(s.listening, func(c string) bool { return c == a.channel })
	}
}

// listensOn reports whether s listens on channel. Any goroutine.
func (s *Session) listensOn(channel string) bool {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return slices.Contains(s.listening, channel)
}

// channels returns the channels s listens on (pg_listening_channels).
func (s *Session) channels() []string {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return slices.Clone(s.listening)
}

// queueNotify validates a NOTIFY (or pg_notify) and delivers it now, or
// at COMMIT in a block, folding a duplicate of one already queued.
// channel and payload may be NULL, as pg_notify's arguments.
func (s *Session) queueNotify(channel string, payload repr.Datum) error {
	switch {
	case channel == "":
		return repr.Errorf(repr.CodeInvalidParameter, "channel name cannot be empty")
	case len(channel) > maxChannelLen:
		return repr.Errorf(repr.CodeInvalidParameter, "channel name too long")
	}
	text := ""
	if !payload.IsNull() {
		text = payload.Text()
	}
	if len(text) >= maxPayloadLen {
		return repr.Errorf(repr.CodeInvalidParameter, "payload string too long")
	}
	n := Notification{PID: s.backend.PID, Channel: channel, Payload: text}
	if s.tx == txIdle {
		s.e.deliver([]Notification{n})
		return nil
	}
	if !slices.Contains(s.notes.notifies, n) {
		s.notes.notifies = append(s.notes.notifies, n)
	}
	return nil
}

// commitNotes applies a committed block's LISTEN/UNLISTENs and delivers
// its notifications.
func (s *Session) commitNotes() {
	notes := s.notes
	s.notes = pendingNotes{}
	for _, a := range notes.listens {
		s.applyListen(a)
	}
	s.e.deliver(notes.notifies)
}

// deliver hands each notification to every session listening on its
// channel, in order.
func (e *Engine) deliver(ns []Notification) {
	if len(ns) == 0 {
		return
	}
	sessions := e.backends.list()
	for _, n := range ns {
		for _, s := range sessions {
			if s.backend.Notify != nil && s.listensOn(n.Channel) {
				s.backend.Notify(n)
			}
		}
	}
}
