//go:build unix

package pgwire

import (
	"bytes"
	"errors"
	"net"
	"syscall"
)

// terminateMsg is a Terminate message: a client that sent it and nothing
// else has said goodbye even if its socket is not closed yet.
var terminateMsg = []byte{'X', 0, 0, 0, 4}

// peekClosed reports whether the client of nc has closed or reset its end
// (or sent nothing but Terminate), looking at the socket without reading
// from it: MSG_PEEK leaves any bytes for the connection's own reader.
// Other errors, and sockets it cannot look at, count as alive.
func peekClosed(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var buf [6]byte // one more than a Terminate message
	var n int
	var rerr error
	if err := rc.Control(func(fd uintptr) {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	}); err != nil {
		return false
	}
	switch {
	case rerr != nil:
		return errors.Is(rerr, syscall.ECONNRESET) || errors.Is(rerr, syscall.EPIPE)
	case n == 0:
		return true
	}
	return bytes.Equal(buf[:n], terminateMsg)
}
