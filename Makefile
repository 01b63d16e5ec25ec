# Eddy's developer entry points. `make test` is what CI runs.

GO       ?= go
# TIMEOUT bounds each package's tests; ./tests, the longest, takes 7-9
# minutes on a 2-core machine beside the others.
TIMEOUT  ?= 14m
FUZZTIME ?= 15s
# FUZZSHORT lists the decoders `make test` fuzzes briefly (package:target),
# each for FUZZSHORTTIME: the wire's message and startup decoders, the row
# and key codecs, the input-log reader and the plan parser a restart runs.
FUZZSHORT ?= ./pgwire:FuzzFrontendMessage ./pgwire:FuzzStartup ./repr:FuzzDecodeRow \
	./repr:FuzzDecodeRowKey ./sql:FuzzDecodeLogRecord ./exec/dataflow:FuzzParse
FUZZSHORTTIME ?= 3s
# ORACLE_STEPS sets how long `make oracle` runs the randomized oracle test.
ORACLE_STEPS ?= 3000

.PHONY: build test testrace lint slt oracle fuzz fuzz-short bench ingest nexmark tpch clients spillbig pgregress bi

build:
	$(GO) build -o bin/eddy ./cmd/eddy

test:
	$(GO) vet ./...
	$(GO) test -timeout $(TIMEOUT) ./...
	$(MAKE) fuzz-short

# fuzz-short fuzzes each FUZZSHORT target for FUZZSHORTTIME (the seed
# corpora alone run in every `go test`); `make fuzz` runs every target longer.
# A failed target runs once more: Go's fuzzer can end with "context deadline
# exceeded" and no crasher when -fuzztime expires mid-minimization, while a
# real crasher is written to testdata/fuzz and fails the second run too.
fuzz-short:
	@set -e; for t in $(FUZZSHORT); do \
	  echo "== fuzz $$t"; \
	  $(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZSHORTTIME) "$${t%%:*}" || \
	  $(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZSHORTTIME) "$${t%%:*}"; \
	done

testrace:
	$(GO) test -race -timeout 20m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt -l reports:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# slt runs our sqllogictest files and the SQLite corpus (both modes) and
# prints the corpus pass rates. EDDY_SLT_FLOOR=NN fails below NN percent.
slt:
	$(GO) test -count=1 -v -timeout 30m -run 'TestSLT|TestSQLiteCorpus' ./tests/slt

# clients drives the real client programs (pgjdbc, psycopg2, psycopg 3,
# SQLAlchemy and pandas, node-postgres) against Eddy and against PostgreSQL
# 15, comparing Eddy's transcripts with PostgreSQL's (tests/clients; `make
# test` runs the Eddy half). Install them as .ci/run does; then
# `go test ./tests/clients -run TestClientsPostgres -rewrite` renews the
# golden transcripts.
clients:
	cd tests/clients/node && npm ci --no-audit --no-fund
	EDDY_CLIENTS_POSTGRES=1 $(GO) test -count=1 -v -timeout 10m ./tests/clients

# bi replays the catalog queries of the clients, BI and admin tools
# (tests/clients/testdata/replay_*.sql, one format, one runner) against
# Eddy and PostgreSQL 15, comparing columns and rows.
bi:
	$(GO) test -count=1 -v -timeout 10m -run 'TestReplay' ./tests/clients

# spillbig runs issue 8's spill test at its real scale: a 1M-group
# aggregate and a self-join over 2M rows under --memory-limit 1GiB, through
# writes, a restart and kill -9 (`make test` runs it at a tenth).
spillbig:
	EDDY_SPILL_BIG=1 $(GO) test -count=1 -v -timeout 120m -run 'TestSpillReduceStateBig' ./tests

# oracle runs the randomized view-vs-query oracle test for longer.
oracle:
	EDDY_ORACLE_STEPS=$(ORACLE_STEPS) $(GO) test -count=1 -v -timeout 60m -run 'TestOracle' ./tests

# fuzz runs every fuzz target of every package for FUZZTIME.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# bench runs every micro-benchmark once, then the whole-system suite
# (bench/suite: point-query QPS and freshness on an in-process Eddy and, when
# installed, a throwaway PostgreSQL). Longer runs: make bench
# BENCHTIME=1s SUITEFLAGS='-duration 10s -fresh-n 500'.
BENCHTIME  ?= 100ms
SUITEFLAGS ?=
bench:
	$(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) ./...
	$(GO) run ./bench/suite $(SUITEFLAGS)
	$(MAKE) ingest INGESTROWS=100000

# ingest runs the write-path benchmarks behind BENCHMARKS.md's "Incremental
# maintenance" and "COPY" sections: INGESTROWS rows each (batches of 100 and
# 1,000 rows through INSERT ... VALUES, literal and prepared, and COPY in
# 10,000-row pieces into a table feeding a 1,000-group view), then 8
# concurrent single-row committers (group commit).
INGESTROWS ?= 1000000
ingest:
	$(GO) test -run='^$$' -bench='InsertView.*/batch=100$$' -benchtime=$$(($(INGESTROWS)/100))x ./sql/
	$(GO) test -run='^$$' -bench='InsertView.*/batch=1000$$' -benchtime=$$(($(INGESTROWS)/1000))x ./sql/
	$(GO) test -run='^$$' -bench='CopyView' -benchtime=$$(($(INGESTROWS)/10000))x ./sql/
	$(GO) test -run='^$$' -bench='ConcurrentCommits' -benchtime=20000x ./sql/

# nexmark runs the Nexmark benchmark (bench/nexmark): every query of
# bench/nexmark/queries/queries.sql on an in-process Eddy, 1M warm-up + 10M
# measured events each, one child process per query; prints events/s,
# CPU-seconds per million events, events/s per core and peak RSS. Shorter
# or selected runs: make nexmark NEXMARKFLAGS='-warmup 200000 -events
# 2000000 -queries q0,q5 -cpuprofile prof'; memory: -memcheck 1000000.
NEXMARKFLAGS ?=
nexmark:
	$(GO) run ./bench/nexmark $(NEXMARKFLAGS)

# tpch measures the 22 TPC-H queries as materialized views (bench/tpch):
# the load with every view defined first (CPU-seconds, rows per CPU-second,
# peak RSS), the RF1/RF2 refresh batches against PostgreSQL's batch plus
# REFRESH MATERIALIZED VIEW, and with -per-view each view's state per input
# row. Eddy runs in a child process guarded by -maxrss. Example:
# make tpch TPCHFLAGS='-sf 0.01 -per-view -queries q01,q18'.
TPCHFLAGS ?=
tpch:
	$(GO) run ./bench/tpch $(TPCHFLAGS)

# pgregress runs PostgreSQL's regression SQL (src/test/regress of a
# PostgreSQL source tree, not in this repository) on Eddy and on PostgreSQL
# 15 and prints per-file counts of equal, unsupported, wrong and crashing
# statements (tests/pgregress). Example: git clone --depth 1
# https://github.com/postgres/postgres /tmp/pg; make pgregress
# PGREGRESS_DIR=/tmp/pg/src/test/regress PGREGRESS_OUT=/tmp/pgregress.txt
PGREGRESS_DIR   ?=
PGREGRESS_FILES ?=
PGREGRESS_OUT   ?=
pgregress:
	PGREGRESS_DIR=$(abspath $(PGREGRESS_DIR)) PGREGRESS_FILES='$(PGREGRESS_FILES)' PGREGRESS_OUT='$(PGREGRESS_OUT)' \
	  $(GO) test -count=1 -v -timeout 60m -run 'TestPGRegress$$' ./tests/pgregress
