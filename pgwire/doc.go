// Package pgwire is the server side of the PostgreSQL v3 frontend/backend
// protocol: it turns a byte stream from a client (psql, pgx, JDBC, ...) into
// calls on a Session and the Session's answers back into protocol messages.
//
// pgwire knows nothing about SQL, plans or catalogs. It owns the interfaces it
// needs (Handler, Session, Statement, Portal, CopyInPortal, RowWriter) and the
// statement layer (package sql) implements them. What pgwire does own is the
// protocol state machine of one connection:
//
//   - startup: SSLRequest/GSSENCRequest are declined with 'N', the StartupMessage
//     is answered with AuthenticationOk (trust), ParameterStatus,
//     BackendKeyData and ReadyForQuery;
//   - the simple query protocol (Query: prepare the whole string, then bind
//     and run each statement in turn, stopping at the first error);
//   - the extended query protocol (Parse/Bind/Describe/Execute/Close/Sync/
//     Flush) with named and unnamed statements and portals, row limits that
//     suspend a portal, and "discard until Sync" after an error. Named
//     statements are kept by the Session, whose SQL PREPARE, EXECUTE,
//     DEALLOCATE and DISCARD share their namespace; the unnamed one stays
//     here. An empty or comment-only string is the empty statement
//     (EmptyQueryResponse) in both protocols;
//   - NoticeResponse for the notices a statement leaves in the Session,
//     before its CommandComplete; every ErrorResponse is reported to
//     Session.Failed, since PostgreSQL fails an open transaction block on
//     any error;
//   - COPY FROM STDIN in both protocols (CopyInResponse, then CopyData/
//     CopyDone/CopyFail are streamed to CopyInPortal.CopyIn as an io.Reader).
//     The reader pulls messages from the connection on the connection's own
//     goroutine when CopyIn reads, instead of an io.Pipe fed by a second
//     goroutine: the Backend is not safe for concurrent use, and this way a
//     CopyIn that fails early leaves the rest of the stream unread, to be
//     dropped by the main loop exactly as PostgreSQL drops it;
//   - COPY TO STDOUT: CopyOutResponse, then each of CopyOutPortal.CopyOut's
//     writes as one CopyData message, then CopyDone;
//   - asynchronous NotificationResponse (notify.go): queued by any goroutine
//     through the session's Backend.Notify, sent before the next
//     ReadyForQuery with status idle, or at once by a per-connection writer
//     while the client is idle;
//   - query cancellation: a CancelRequest on a new connection carrying a
//     connection's pid and secret cancels the context of the statement that
//     connection is running. A statement context is only replaced once it
//     has been cancelled, and a cancel only reaches a running statement, so
//     each statement sees its own cancellation without the hot path
//     allocating a context per statement;
//   - errors: a *repr.Error becomes an ErrorResponse with its SQLSTATE,
//     message, detail, hint and position; anything else is XX000; a panic
//     while handling a message is recovered into XX000, logged with its
//     stack, and the connection keeps serving.
//
// Output is buffered in the pgproto3.Backend and written at ReadyForQuery,
// Flush, before waiting for COPY data, and whenever a result grows past
// flushThreshold bytes, so a prepared point query costs one write.
//
// Threading: each connection is served by one goroutine that owns its Backend
// and Session; the only cross-goroutine interactions are CancelRequest and
// Backend.Cancel (which cancel a context under the connection's mutex),
// Server.Shutdown and Backend.Terminate (which cancel contexts and set a read
// deadline), and Backend.Notify (which queues under its own mutex and may
// write to an idle connection's socket, see notify.go).
package pgwire
