// Package server is Eddy's composition root: it opens the engine on the
// data directory, listens for PostgreSQL wire connections, adapts the
// statement layer's sessions to the wire layer's interfaces, and runs the
// lifecycle (ready line, graceful shutdown).
package server
