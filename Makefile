# resgen: make test (what CI runs), make golden, make demo (a client and a lab run), make corpus, make bench, make bench-gen, make fuzz.
GO ?= go

.PHONY: test golden demo corpus bench vet conformance conformance-mutants

# vet, then every test with the race detector. The real-spec build corpus
# runs its specs under 2 MB here; `make corpus` runs all of them. The wire
# conformance harness runs on every spec (tools/conformance's
# TestConformanceCorpus, what `make conformance` runs; the longest package,
# hence the timeout). Then the
# modules of their own: otel/ (so the main module links no OpenTelemetry)
# and the consumer example, examples/, which uses it; redis/ (go-redis),
# whose tests start a real redis-server.
test: vet
	$(GO) test -race -timeout 40m ./...
	$(GO) test -race -tags resgen_swapped $(SWAPPED_PKGS)
	$(GO) test -run '$(NORACE_TESTS)' $(NORACE_PKGS)
	cd otel && $(GO) vet ./... && $(GO) test -race ./...
	cd redis && $(GO) vet ./... && $(GO) test -race ./...
	cd examples && $(GO) vet ./... && $(GO) test ./...

# The comparisons with go-yaml's tree and kin-openapi's own load over the
# real specs: under -race they take only the specs below 512 KB; here,
# without it, every one below 2 MB.
NORACE_TESTS = TestSameTreeAsYAMLOnSpecs|TestDecodedTreeOnRealSpecs
NORACE_PKGS = ./internal/jsontree ./generator/load

# The swapped order (breaker inside the retry loop) exists only in a
# -tags resgen_swapped build, for the tests that compare it with resgen's.
SWAPPED_PKGS = ./runtime ./golden/experiments ./golden/petstore ./tools/lab

vet:
	$(GO) vet ./...
	$(GO) vet -tags resgen_swapped $(SWAPPED_PKGS)

# Rewrite golden/ from testdata/specs (only the generator declares -update).
golden:
	$(GO) test ./generator -update

# Generate a client for the Petstore into demo/ (git-ignored) and build it,
# then run a retry storm against the overload preset and the alternatives,
# sped up ×$(DEMO_SPEED) (a few seconds): the product doing its job.
DEMO_SPEED ?= 20
demo:
	$(GO) run ./cmd/resgen generate -spec testdata/specs/petstore.yaml -package petstore -o demo/petstore/client.gen.go
	$(GO) build ./demo/...
	@echo "demo: wrote and built demo/petstore/client.gen.go"
	$(GO) run ./cmd/resgen lab storm -spec testdata/specs/lab.yaml -op listItemsOverload -compare -speed $(DEMO_SPEED) -o demo/lab
	@echo "demo: the lab's report, results and plots are in demo/lab (docs/labs.md says how to read them)"

# Every spec of ../shared/specs/real, big ones included: generate, go build, go vet.
corpus:
	RESGEN_CORPUS=all $(GO) test ./generator -run TestCorpus -v -timeout 60m

# Wire conformance (tools/conformance) of every spec of ../shared/specs/real
# (with the entry file of each multi-file spec) and testdata/specs (top
# level; testdata/specs/invalid is not a spec): one
# row per spec; -v lists each failing call. Every failure no exception
# covers fails it (tools/conformance/constructs.go: each exception is a
# construct, proven on a minimal spec); so does a call the harness cannot
# synthesize (an operation never called). `make test` runs it too.
CONFORMANCE_SPECS = $(wildcard ../shared/specs/real/*.yaml ../shared/specs/real/*.json ../shared/specs/real/*/*public*.yaml testdata/specs/*.yaml testdata/specs/*.json)
conformance:
	$(GO) run ./scripts/conformance -v $(CONFORMANCE_FLAGS) $(CONFORMANCE_SPECS)

# A measure of the harness itself: plants plausible client bugs
# (mutants, tools/conformance/mutants.go: 47 kinds, in the generated
# clients of MUTANT_SPECS and in the runtime they call, through a go build
# overlay) one per harness run, and prints per kind how many the harness
# killed (a failure the unmutated client's run lacks), the survivors, the
# elapsed time, and last "killed K of N mutants (P%)". It fails below 95%
# or when a kind is never killed. MUTANT_FLAGS: -per-spec N, -per-kind N
# (the sample, picked by a hash of each site), -p N, -kinds RE, -v.
MUTANT_SPECS = $(addprefix testdata/specs/,params.yaml paramstyles.yaml paramshapes.yaml bodies.yaml types.yaml \
	unions.yaml unions2.yaml unions30.yaml valueunions.yaml unionparams.yaml wire.yaml security.yaml petstore.yaml \
	swagger2.yaml typemap.yaml openstack-console.yaml) \
	$(addprefix ../shared/specs/real/,oai-petstore.yaml twilio-lookups-v2.yaml openstack-placement-v1.yaml sendgrid-api-keys.json)
MUTANT_FLAGS ?=
conformance-mutants:
	$(GO) run ./scripts/conformance-mutants $(MUTANT_FLAGS) $(MUTANT_SPECS)

# The size and speed goals as a table (markdown), the working tree against BENCH_BASE
# built in the same run from a git archive of it: generated lines per
# operation on petstore, Cloudflare's output lines and its go build time
# and peak RSS (needs ../shared/specs/real), the call overhead with default
# timeouts, the loopback ratio; then the runtime's overhead rows (new
# side), medians
# of BENCH_ROUNDS rounds. BENCH_FLAGS=-goals-only prints the table only.
BENCH_ROUNDS ?= 5
BENCH_BASE ?= f683eee
BENCH_FLAGS ?=
bench:
	$(GO) run ./scripts/bench -rounds $(BENCH_ROUNDS) -base $(BENCH_BASE) $(BENCH_FLAGS)

# The generator's speed table (markdown): resgen generate of the working tree and
# of BENCH_GEN_BASE (built in the same run from a git archive of it) over
# the floor, kin-openapi loading the same spec with relaxed validation, on
# the three largest specs of ../shared/specs/real (-shared DIR or
# RESGEN_SHARED elsewhere; -specs a,b for others). Each run is a process of
# its own, floor/new/base interleaved; medians of BENCH_GEN_ROUNDS rounds of
# wall time, CPU time and peak RSS. A report: the exit status does not depend on the goal.
BENCH_GEN_ROUNDS ?= 3
BENCH_GEN_BASE ?= c2a4528
BENCH_GEN_FLAGS ?=
# The fleet's table (markdown): resgen's fleet breakers on a redis-server of
# their own (loopback): the added cost per call over a local breaker, the
# open-propagation delay between 5 replicas, and calls/s of 5 replicas × 50
# goroutines against gobreaker's DistributedCircuitBreaker on the same
# Redis. BENCH_FLEET_PAIRS paired blocks of calls for the call cost (medians),
# BENCH_FLEET_PROP propagation rounds, BENCH_FLEET_LOAD rounds of 1 s of load each.
BENCH_FLEET_PAIRS ?= 200
BENCH_FLEET_PROP ?= 50
BENCH_FLEET_LOAD ?= 3
.PHONY: bench-fleet
bench-fleet:
	cd redis && RESGEN_FLEET_BENCH=1 RESGEN_FLEET_BENCH_PAIRS=$(BENCH_FLEET_PAIRS) RESGEN_FLEET_BENCH_PROP=$(BENCH_FLEET_PROP) \
		RESGEN_FLEET_BENCH_LOAD=$(BENCH_FLEET_LOAD) $(GO) test -run '^TestFleetBenchTable$$' -count=1 -timeout 10m

.PHONY: bench-gen
bench-gen:
	$(GO) run ./scripts/benchgen -rounds $(BENCH_GEN_ROUNDS) -base $(BENCH_GEN_BASE) $(BENCH_GEN_FLAGS)

# Run oapi-codegen v2.8.2, ogen v1.24.0 and resgen (HEAD) on ../shared/specs/real
# side by side: generate ok/time, go build ok/time/peak RSS, totals (not part of
# `make test`). SPECS=a,b (or SPECS=largest) runs only those specs, REPEAT=N runs
# each N times (medians); results also go to bin/compare/.
SPECS ?=
REPEAT ?= 1
COMPARE_FLAGS ?=
.PHONY: compare
compare:
	$(GO) run ./scripts/compare -specs '$(SPECS)' -repeat $(REPEAT) $(COMPARE_FLAGS)

# The corpus plus every spec in ogen's and kin-openapi's test data (fetched
# from the Go module proxy): 300 more real-world and edge-case documents.
OGEN_DIR = $(shell $(GO) mod download -json github.com/ogen-go/ogen@v1.24.0 | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
KIN_DIR = $(shell $(GO) list -m -f '{{.Dir}}' github.com/getkin/kin-openapi)
.PHONY: corpus-extra
corpus-extra:
	RESGEN_CORPUS=all RESGEN_CORPUS_EXTRA="$(OGEN_DIR)/_testdata:$(KIN_DIR)/openapi3/testdata:$(KIN_DIR)/openapi2/testdata" $(GO) test ./generator -run TestCorpus -v -timeout 60m

# Each fuzz target (package:Target) for FUZZTIME, one after the other: go
# test -fuzz takes one target a run. A failing input is written to the
# package's testdata/fuzz/<Target>/, which plain go test (make test) replays
# with the seeds; FUZZFLAGS=-parallel=1 shares the machine.
FUZZTIME ?= 30s
FUZZFLAGS ?=
FUZZ_TARGETS = generator:FuzzGenerate generator:FuzzGenerateSchema generator/policy:FuzzResilience \
	generator/build:FuzzGoName generator/jsonpath:FuzzOverlayPath generator/load:FuzzApplyOverlay \
	runtime:FuzzParseRetryAfter runtime:FuzzFleetAnswers runtime:FuzzSSE
.PHONY: fuzz
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $$t"; \
		$(GO) test ./$${t%%:*} -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS); \
	done
