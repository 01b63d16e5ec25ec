// Package nexmark generates the Nexmark benchmark's event stream: an online
// auction's person, auction and bid events, following the generator facts
// shared by Beam, Flink, RisingWave and Feldera (see
// /work/shared/nexmark/README.md). Event ids are consecutive from 0 and the
// event type is a function of the id (1:3:46 person:auction:bid per block of
// 50). Three sources (nexmark.table.type = person, auction, bid) built from
// one configuration see the same sequence and keep only their own type, so
// ids agree across them.
//
// Determinism: event n's content is a pure function of (seed, n). Each event
// draws from its own PRNG (connector.NewRand(seed, n)), and the only state
// the reference generators carry (the last person and auction ids) is itself
// a function of n. NewAt therefore resumes at any event number in O(1) and
// yields exactly the events New would after as many calls to Next.
//
// Performance: a bid (92% of events) allocates nothing. Its strings come
// from precomputed tables: channel names and URLs are a function of the
// channel number (as in the reference generators' channel cache), and the
// extra padding is a substring of a fixed random text. Persons allocate
// their email and credit-card strings.
//
// The package is a deterministic core: no clock, goroutines or I/O. Event
// time comes from the configured base time and rate, never from the wall
// clock; pacing emission is the runtime's job (in server).
package nexmark
