# acbox: build, test and benchmark. `make test` on a fresh Debian machine
# installs what it needs (as root) or prints the command (otherwise).

GO       ?= go
BIN      := bin/acbox
TESTUSER ?= acbox-test
# Static and without cgo: the same binary can serve as the in-container
# bridge of the docker backend, and the seccomp filter is embedded BPF, so
# libseccomp is needed only by the compile golden test (make unit).
# nethttpomithttp2 leaves out net/http's bundled HTTP/2, which acbox never
# negotiates (HTTP/1.1 on Unix sockets and loopback, no TLS) but whose
# package state every process, pid 1 included, would initialise.
STATIC   := -tags netgo,osusergo,nethttpomithttp2 -buildvcs=auto -trimpath -ldflags=-s\ -w
DEB_PKGS := libseccomp-dev gcc gcc-multilib bubblewrap busybox-static hyperfine curl tmux git python3 iproute2 nodejs passwd

.PHONY: all build deps test unit integration soak selftest bench fuzz clean

all: build

deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; \
	fi

# build needs Go only: the binary is static and cgo-free.
build:
	CGO_ENABLED=0 $(GO) build $(STATIC) -o $(BIN) ./cmd/acbox

# unit: policy tables, parsers, kernel cases in subprocesses.
unit: deps build
	$(GO) vet ./...
	CGO_ENABLED=1 $(GO) test -count=1 ./...

# integration: real sandboxes from the built binary, as an unprivileged user
# and as root (the test setup creates $(TESTUSER) when run as root). The Node
# client's docker tests run the default image, which a fresh machine lacks:
# it is built first where a docker daemon answers (required with
# ACBOX_REQUIRE_DOCKER=1, as CI sets).
integration: deps build
	ACBOX_BIN=$(CURDIR)/$(BIN) ACBOX_TEST_USER=$(TESTUSER) CGO_ENABLED=1 \
	  $(GO) test -p 1 -count=1 -tags integration -timeout 20m ./tests/... ./coordinator/probe/
	@if [ -S /var/run/docker.sock ] || [ -n "$$ACBOX_REQUIRE_DOCKER" ]; then \
	  ./$(BIN) image build >/dev/null || [ -z "$$ACBOX_REQUIRE_DOCKER" ]; fi
	cd clients/node && ACBOX_BIN=$(CURDIR)/$(BIN) ACBOX_TEST_USER=$(TESTUSER) node --test

# soak: 1,000 sandboxes one after another and 20 at a time from one
# long-lived parent (and 50 docker ones where the daemon is reachable);
# fails if fds, memory, mounts, processes, registry entries or run files grow.
# Without cgo: the sandboxes' pid 1 is the test binary, so it takes the
# path the static release takes (pid 1 enters a v1 cgroup thread by thread).
soak: build
	CGO_ENABLED=0 ACBOX_BIN=$(CURDIR)/$(BIN) $(GO) test -tags soak -count=1 -v -timeout 15m ./tests/soak/

selftest: build
	./$(BIN) selftest

test: unit integration soak

# bench: startup against bare exec and bubblewrap, setup phases, memory of
# the parent and pid 1; proxy throughput, setup latency and idle-tunnel
# memory against direct loopback and a bare relay. Figures go to
# docs/benchmarks.md.
# PREV is the previous release, built the way its own Makefile built it, for
# TestBinary's side-by-side size and package-init figures.
PREV     ?= 10fa06a
PREV_BIN := bin/acbox-prev
bench: build $(PREV_BIN)
	ACBOX_BIN=$(CURDIR)/$(BIN) ACBOX_PREV_BIN=$(CURDIR)/$(PREV_BIN) $(GO) test -count=1 -tags bench -v -run 'TestBinary|TestStartup|TestSyscallCost|TestLaunchTrace|TestCPU|TestParallel|TestMemory|TestIdleMemory|TestReportGrant|TestProxyPath|TestPersistedHome' ./tests/bench/ | grep -v '^[=-]'
	$(GO) test -count=1 -run '^$$' -bench . -benchmem ./egress/

$(PREV_BIN):
	d=$$(mktemp -d) && git archive $(PREV) | tar -x -C $$d && \
	  (cd $$d && CGO_ENABLED=0 $(GO) build -tags netgo,osusergo -o $(CURDIR)/$(PREV_BIN) ./cmd/acbox) && rm -rf $$d

# fuzz: every Fuzz target of every package, FUZZTIME each.
FUZZTIME ?= 10s
fuzz:
	@for d in $$(grep -rl '^func Fuzz' --include='*_test.go' . | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -h '^func Fuzz' $$d/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
	    echo "== $$d $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$d || exit 1; \
	  done; \
	done

clean:
	rm -rf bin
