package clients

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
)

// queryProxy is a logging TCP proxy between client programs and a server:
// it forwards bytes both ways unchanged and decodes the frontend stream
// just enough to log the SQL of every Query and Parse message, with the
// text parameters of the first Bind of each parsed statement.
type queryProxy struct {
	ln     net.Listener
	target string
	client string // the client whose messages are being logged

	mu  sync.Mutex
	log []loggedQuery
	wg  sync.WaitGroup
}

// loggedQuery is one SQL text a client sent.
type loggedQuery struct {
	client string
	sql    string
	params []*string // nil: sent as a simple Query; NULL parameters are nil
	binary bool      // a parameter was sent in binary format
	bound  bool      // the first Bind's parameters were recorded
}

// startProxy listens on a free loopback port and forwards to target.
func startProxy(t *testing.T, target string) *queryProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &queryProxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// port is the proxy's listening port.
func (p *queryProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// setClient names the client whose connections follow.
func (p *queryProxy) setClient(name string) {
	p.mu.Lock()
	p.client = name
	p.mu.Unlock()
}

// queries returns everything logged so far.
func (p *queryProxy) queries() []loggedQuery {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]loggedQuery(nil), p.log...)
}

func (p *queryProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serve(c)
		}()
	}
}

// serve forwards one connection, logging the frontend's messages.
func (p *queryProxy) serve(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	go func() {
		io.Copy(c, s)
		c.Close()
	}()
	p.mu.Lock()
	client := p.client
	p.mu.Unlock()
	p.frontend(io.TeeReader(c, s), client)
}

// frontend decodes the client's stream: untyped startup-phase messages
// (SSLRequest, GSSENCRequest, then StartupMessage), then typed messages.
func (p *queryProxy) frontend(r io.Reader, client string) {
	for {
		body, err := readMsg(r, 4)
		if err != nil {
			return
		}
		if len(body) >= 4 {
			code := binary.BigEndian.Uint32(body)
			if code == 80877103 || code == 80877104 { // SSL, GSSENC request
				continue
			}
		}
		break
	}
	stmts := map[string]int{} // statement name -> index in the log
	for {
		var typ [1]byte
		if _, err := io.ReadFull(r, typ[:]); err != nil {
			return
		}
		body, err := readMsg(r, 4)
		if err != nil {
			return
		}
		p.message(typ[0], body, client, stmts)
	}
}

// message logs a Query or Parse and the first Bind of a parsed statement.
func (p *queryProxy) message(typ byte, body []byte, client string, stmts map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch typ {
	case 'Q':
		sql, _ := cstring(body)
		p.log = append(p.log, loggedQuery{client: client, sql: sql})
	case 'P':
		name, rest := cstring(body)
		sql, _ := cstring(rest)
		stmts[name] = len(p.log)
		p.log = append(p.log, loggedQuery{client: client, sql: sql, params: []*string{}})
	case 'B':
		_, rest := cstring(body)
		stmt, rest := cstring(rest)
		i, ok := stmts[stmt]
		if !ok || p.log[i].bound {
			return
		}
		p.log[i].params, p.log[i].binary = bindParams(rest)
		p.log[i].bound = true
	}
}

// readMsg reads a length-prefixed message body (the length counts itself).
func readMsg(r io.Reader, lenSize int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:lenSize]); err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint32(n[:])) - lenSize
	if size < 0 || size > 1<<26 {
		return nil, io.ErrUnexpectedEOF
	}
	body := make([]byte, size)
	_, err := io.ReadFull(r, body)
	return body, err
}

// cstring splits a NUL-terminated string off b.
func cstring(b []byte) (string, []byte) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), b[i+1:]
		}
	}
	return string(b), nil
}

// bindParams decodes a Bind's parameter formats and values (after the
// portal and statement names); binary reports a binary-format parameter.
func bindParams(b []byte) (params []*string, binaryFmt bool) {
	u16 := func() int {
		if len(b) < 2 {
			return 0
		}
		v := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		return v
	}
	nf := u16()
	formats := make([]int, nf)
	for i := range formats {
		formats[i] = u16()
	}
	np := u16()
	params = []*string{}
	for i := 0; i < np && len(b) >= 4; i++ {
		n := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		f := 0
		if nf == 1 {
			f = formats[0]
		} else if i < nf {
			f = formats[i]
		}
		if f == 1 {
			binaryFmt = true
		}
		if n < 0 || n > len(b) {
			params = append(params, nil)
			continue
		}
		v := string(b[:n])
		b = b[n:]
		params = append(params, &v)
	}
	return params, binaryFmt
}
