# acbox: build, test and benchmark. `make test` on a fresh Debian machine
# installs what it needs (as root) or prints the command (otherwise).

GO       ?= go
BIN      := bin/acbox
TESTUSER ?= acbox-test
# Static, so the same binary can serve as the in-container bridge of the
# docker backend; netgo/osusergo keep glibc's NSS out of the static link.
STATIC   := -tags netgo,osusergo -ldflags '-linkmode external -extldflags -static'
DEB_PKGS := libseccomp-dev gcc-multilib bubblewrap busybox-static hyperfine curl tmux git python3 iproute2

.PHONY: all build deps test unit integration selftest bench fuzz clean

all: build

deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; \
	fi

build: deps
	CGO_ENABLED=1 $(GO) build $(STATIC) -o $(BIN) ./cmd/acbox

# unit: policy tables, parsers, kernel cases in subprocesses.
unit: build
	$(GO) vet ./...
	CGO_ENABLED=1 $(GO) test -count=1 ./...

# integration: real sandboxes from the built binary, as an unprivileged user
# and as root (the test setup creates $(TESTUSER) when run as root).
integration: build
	ACBOX_BIN=$(CURDIR)/$(BIN) ACBOX_TEST_USER=$(TESTUSER) CGO_ENABLED=1 \
	  $(GO) test -count=1 -tags integration -timeout 20m ./tests/...

selftest: build
	./$(BIN) selftest

test: unit integration

bench: build
	ACBOX_BIN=$(CURDIR)/$(BIN) CGO_ENABLED=1 $(GO) test -count=1 -tags integration -run '^$$' -bench . -benchtime 200x ./tests/... ./egress/

fuzz:
	$(GO) test -run '^$$' -fuzz . -fuzztime 20s ./coordinator/

clean:
	rm -rf bin
