package pgwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// BenchmarkPointQueryPgx is a prepared point query through pgx over
// loopback: Bind/Execute/Sync per query, both ends in this process.
func BenchmarkPointQueryPgx(b *testing.B) {
	ts := startServer(b)
	conn := connectPgx(b, ts, false)
	ctx := context.Background()
	var sum int64
	b.ReportAllocs()
	for b.Loop() {
		if err := conn.QueryRow(ctx, "SELECT add($1, $2)", int64(1), int64(2)).Scan(&sum); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPointQueryPgxParallel runs the point query on 8 connections at
// once on 2 cores (the shape of the 25k queries/s target; 4 goroutines per
// GOMAXPROCS, one connection each).
func BenchmarkPointQueryPgxParallel(b *testing.B) {
	ts := startServer(b)
	const parallelism = 4
	var conns []*pgx.Conn
	for range parallelism * runtime.GOMAXPROCS(0) {
		conns = append(conns, connectPgx(b, ts, false))
	}
	var next atomic.Int32
	b.SetParallelism(parallelism)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conn := conns[int(next.Add(1)-1)%len(conns)]
		var sum int64
		for pb.Next() {
			if err := conn.QueryRow(context.Background(), "SELECT add($1, $2)", int64(1), int64(2)).Scan(&sum); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkPointQueryRaw sends a pre-encoded Bind/Execute/Sync and skims the
// answer up to ReadyForQuery, so the client costs almost nothing and the
// numbers (including allocs/op) are dominated by the server.
func BenchmarkPointQueryRaw(b *testing.B) {
	ts := startServer(b)
	c := dialRaw(b, ts.addr)
	if err := c.sendStartup(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "bench"}}); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReader(c.nc)
	skimToReady(b, br)
	var req []byte
	req, _ = (&pgproto3.Parse{Name: "s", Query: "SELECT add($1, $2)"}).Encode(req)
	req, _ = (&pgproto3.Sync{}).Encode(req)
	if _, err := c.nc.Write(req); err != nil {
		b.Fatal(err)
	}
	skimToReady(b, br)
	req = req[:0]
	req, _ = (&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1},
		Parameters:        [][]byte{binary.BigEndian.AppendUint64(nil, 1), binary.BigEndian.AppendUint64(nil, 2)},
		ResultFormatCodes: []int16{1}}).Encode(req)
	req, _ = (&pgproto3.Execute{}).Encode(req)
	req, _ = (&pgproto3.Sync{}).Encode(req)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.nc.Write(req); err != nil {
			b.Fatal(err)
		}
		skimToReady(b, br)
	}
}

// skimToReady reads messages up to ReadyForQuery, failing on ErrorResponse.
func skimToReady(b *testing.B, br *bufio.Reader) {
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			b.Fatal(err)
		}
		n := int(binary.BigEndian.Uint32(hdr[1:])) - 4
		if hdr[0] == 'E' {
			b.Fatal("ErrorResponse")
		}
		if _, err := br.Discard(n); err != nil {
			b.Fatal(err)
		}
		if hdr[0] == 'Z' {
			return
		}
	}
}
