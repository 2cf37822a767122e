# odekmem — see README.md.
GO ?= go
PKGS := ./...

.PHONY: all build test need-cc cross soak e2e ci bench bench-before demo lint fuzz eval train-scanner eval-scanner judge-model judge-model-check models-check heldout

all: build

# odekmem and the thin per-prompt hook client beside it (odekmem setup
# points agents' hooks at bin/odekmem-hook when it is there). Both are
# static by default (CGO_ENABLED=0): a process starts without the dynamic
# loader and libc, about 3 ms of the 11 ms `odekmem version` took
# (BENCHMARKS.md, issue 24). Go's own DNS resolver then does not consult
# nsswitch.conf's extra sources (mDNS .local names, sssd): an embedder or
# memory LLM at such a name needs `make build CGO_ENABLED=1`.
CGO_ENABLED ?= 0
build:
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -o bin/odekmem .
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -o bin/odekmem-hook ./cmd/odekmem-hook

# The test command of README.md and CI: vet, then every test under the race
# detector (fuzz targets run their seed corpora). The binaries the tests
# run as subprocesses are built once for all packages. Crash, concurrency
# and scale tests run a few rounds here and all of them in make soak.
test: need-cc
	$(GO) vet $(PKGS)
	@tb=$$(mktemp -d "$${TMPDIR:-/tmp}/odekmem-test-bin.XXXXXX"); trap 'rm -rf "$$tb"' EXIT; \
	CGO_ENABLED=0 $(GO) build -o "$$tb/odekmem" . && CGO_ENABLED=0 $(GO) build -o "$$tb/odekmem-hook" ./cmd/odekmem-hook && \
	ODEKMEM_TEST_BIN_DIR="$$tb" $(GO) test -race -count=1 -timeout 25m $(PKGS)

# The long tier (.ci/run runs it after make test): the crash test's 200
# SIGKILLs, two writer processes with 500 atoms each, odek's unlocked
# writer racing odekmem, a 5,000-line import, every generated credential
# through every write path (make test sends each through some of them in
# turn). Each logs its random seed; ODEKMEM_SEED=<seed> replays a run.
SOAK := TestCrashKill9|TestTwoWriterProcesses|TestConcurrentOdekWriterLosesNothing|TestImportStreamsInBatchesWithProgress|TestEverySecretKindEveryWritePath
soak: need-cc
	ODEKMEM_SOAK=1 $(GO) test -race -count=1 -timeout 60m -run '^($(SOAK))$$' -v ./memcore/
	ODEKMEM_SOAK=1 $(GO) test -race -count=1 -timeout 30m -run '^TestEverySecretKindCLIAddAndIngest$$' ./internal/cli/

# The independent held-out set (testdata/heldout-independent: judgement,
# scanner, redaction), measured against its regression floors without the
# race detector (make test skips it under -race; .ci/run runs this).
heldout:
	$(GO) test -count=1 -run '^TestIndependentHeldOut$$' -v ./internal/eval/

# The real-agent tier (.ci/run runs it after make test; README "Agents"):
# pinned Claude Code, Codex CLI and Gemini CLI installed from npm into a
# throwaway prefix, each run non-interactively in a throwaway HOME against
# a scripted model server on loopback, after odekmem setup as a person runs
# it. Needs Node.js 20+ and npm; skips with a message when the npm registry
# cannot be reached. About 2 minutes and 760 MB of packages (npm caches
# them after the first run).
e2e:
	@tb=$$(mktemp -d "$${TMPDIR:-/tmp}/odekmem-e2e-bin.XXXXXX"); trap 'rm -rf "$$tb"' EXIT; \
	CGO_ENABLED=0 $(GO) build -o "$$tb/odekmem" . && CGO_ENABLED=0 $(GO) build -o "$$tb/odekmem-hook" ./cmd/odekmem-hook && \
	ODEKMEM_TEST_BIN_DIR="$$tb" ODEKMEM_E2E=1 $(GO) test -count=1 -v -timeout 40m -run '^TestAgents$$' ./e2e/

# Everything CI runs: the README's test command, the other platforms, the
# long tier and the real agents.
ci: test models-check heldout cross soak e2e

# The race detector needs cgo, and cgo a C compiler: say so before the
# minutes of cross builds, not after.
need-cc:
	@command -v $${CC:-cc} >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || command -v clang >/dev/null 2>&1 || { \
	  echo "make test: the race detector needs a C compiler (cgo) and none was found." >&2; \
	  echo "  Debian/Ubuntu: sudo apt-get install gcc   macOS: xcode-select --install   or set CC=..." >&2; exit 1; }

# Build and vet for every supported platform (README, "Platforms").
cross:
	GOOS=linux $(GO) build $(PKGS) && GOOS=linux $(GO) vet $(PKGS)
	GOOS=darwin $(GO) build $(PKGS) && GOOS=darwin $(GO) vet $(PKGS)
	GOOS=windows $(GO) build $(PKGS) && GOOS=windows $(GO) vet $(PKGS)

# Benchmarks quoted in BENCHMARKS.md (about 40 minutes on 2 cores; the
# 18k and 100k fixtures are built once per run, the 1M index needs about
# 2 GB of memory). Output in bench.out. The whole-process benchmarks run
# the odekmem of BENCH_BEFORE (main before issue 24's work), built into
# bin/before/, beside this tree's, alternating run by run; the index
# figures put the full scan beside the quantised first pass.
BENCH_BEFORE ?= f16b873

bench-before:
	@rm -rf bin/before && mkdir -p bin/before/src
	git archive $(BENCH_BEFORE) | tar -x -C bin/before/src
	cd bin/before/src && $(GO) build -o ../odekmem .

bench: bench-before
	QUANT_1M=1 $(GO) test -run '^$$' -bench . -benchmem -timeout 120m ./internal/vindex/ ./internal/embed/ ./internal/scan/ ./views/ 2>&1 | tee bench.out
	ODEKMEM_BENCH_BEFORE=$(CURDIR)/bin/before/odekmem $(GO) test -run '^$$' -bench Process -benchtime 20x -timeout 90m ./internal/cli/ 2>&1 | tee -a bench.out
	$(GO) test -run '^$$' -bench 'Open|List|AddDurable|BatchIngest|Recall|HookTurn|ImportLines' -benchtime 20x -timeout 60m ./memcore/ 2>&1 | tee -a bench.out
	$(GO) test -run '^$$' -bench FirstFrame -benchtime 5x -timeout 30m ./tui/ 2>&1 | tee -a bench.out
	ODEKMEM_CAPACITY=1 $(GO) test -run TestCapacity -v -count=1 -timeout 30m ./memcore/ 2>&1 | tee -a bench.out
	$(GO) test -run 'TestCorpus|TestCredentialsSynthetic$$' -v -count=1 ./internal/scan/ 2>&1 | grep -v '^    ---' | tee -a bench.out
	$(GO) run . eval locomo testdata/data/locomo/locomo-dev.json --dated 2>&1 | tee -a bench.out
	$(GO) run . eval aged 2>&1 | tee -a bench.out
	$(GO) test -run '^$$' -bench HookEndToEnd -benchtime 30x -timeout 60m ./internal/agenthook/ 2>&1 | tee -a bench.out
	$(GO) test -run '^$$' -bench 'MCPSearch$$' -benchtime 200x -timeout 30m ./internal/mcpserver/ 2>&1 | tee -a bench.out
	ODEKMEM_BENCH_BEFORE=$(CURDIR)/bin/before/odekmem $(GO) test -run '^$$' -bench 'MCPStart|MCPSearchAfterWrite' -benchtime 20x -timeout 40m ./internal/mcpserver/ 2>&1 | tee -a bench.out
	$(GO) test -run '^$$' -bench 'Judge300|LoadModels' -benchtime 5000x -cpu 1 ./internal/judge/ 2>&1 | tee -a bench.out
	$(GO) test -run '^$$' -bench 'Analyse' -benchtime 2000x -cpu 1 ./internal/provenance/ 2>&1 | tee -a bench.out
	$(GO) run . eval judgement 2>&1 | tee -a bench.out

# Retrain the scanner's learned injection detector from the committed
# corpora (internal/scan/testdata) and rewrite its model file; the same data
# give the same bytes (check with: go run ./internal/scan/internal/train -check).
train-scanner:
	$(GO) run ./internal/scan/internal/train

# The scanner per source and category, rules alone and with the learned
# detector, and each training source with a model refitted without it.
eval-scanner:
	$(GO) run ./internal/scan/internal/evaldetector -loso

# Open the TUI on a fresh copy of the bundled demo store.
demo:
	@test -d "$$($(GO) env GOMODCACHE)/github.com/charmbracelet/bubbletea@v1.3.10" || \
	  echo "make demo: first run — downloading about 160 MB of modules and compiling; this takes one to a few minutes, once." >&2
	$(GO) run . demo

# Retrieval evaluation on the LoCoMo development split.
eval:
	$(GO) run . eval locomo testdata/data/locomo/locomo-dev.json

# The judgement's model files (internal/judge/model) from the training
# split of internal/judge/corpus; -check compares instead of writing.
judge-model:
	$(GO) run ./internal/judge/train

judge-model-check:
	$(GO) run ./internal/judge/train -check

# Both committed models are what their training commands make from the
# committed corpora, byte for byte (CI runs it after make test).
models-check: judge-model-check
	$(GO) run ./internal/scan/internal/train -check

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)

# Longer fuzzing of every parser (not part of make test).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzLoadAtoms -fuzztime 30s ./memcore/
	$(GO) test -run '^$$' -fuzz FuzzScanZeroWidth -fuzztime 30s ./internal/scan/
	$(GO) test -run '^$$' -fuzz FuzzParseArray -fuzztime 30s ./internal/llm/
	$(GO) test -run '^$$' -fuzz FuzzAnalyse -fuzztime 30s ./internal/provenance/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./internal/judge/corpus/
