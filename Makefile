# The machine's own Go (1.26.x) has known vulnerabilities in net/http,
# crypto/tls and crypto/x509; every go command here runs on the pinned
# toolchain, which the go command fetches from the module proxy.
export GOTOOLCHAIN := go1.27.3

GO          ?= go
BIN         ?= bin/b2bx
STATICCHECK ?= $(shell command -v staticcheck 2>/dev/null || echo "$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2")
GITLEAKS    ?= $(shell command -v gitleaks 2>/dev/null || echo "$(GO) run github.com/zricethezav/gitleaks/v8@v8.30.1")
GOVULNCHECK ?= $(shell command -v govulncheck 2>/dev/null || echo "$(GO) run golang.org/x/vuln/cmd/govulncheck@v1.9.0")
FUZZTIME    ?= 30s
PKGS        := ./...

.PHONY: build test test-keyring vet race lint vuln fmt bench fuzz generate clean

# No cgo: a static binary starts ~3 ms faster (parse of a 16 MiB file
# competes with sha256sum, see BENCHMARKS.md) and needs no libc at runtime.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/b2bx

## test: what CI runs — vet, race-enabled tests, lint, vulnerability scan.
test: vet race lint vuln

## test-keyring: only the real-keyring integration tests, in a private D-Bus
## session with a throwaway gnome-keyring (needs gnome-keyring and dbus; see
## DEVELOPERS.md). CI runs them as part of `make test` the same way.
test-keyring:
	B2BX_KEYRING_IT=1 ./.ci/keyring-session $(GO) test -race -count=1 -run 'RealKeyring' ./apiclient/credentials/... ./cmd/b2bx/

vet:
	$(GO) vet $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) $(PKGS)
	$(GITLEAKS) git --no-banner --redact --config .gitleaks.toml .

## vuln: govulncheck against the offline snapshot in ../shared/vulndb; the
## snapshot's date is printed with the result.
vuln:
	GOVULNCHECK="$(GOVULNCHECK)" ./.ci/scripts/vulncheck.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

## bench: every benchmark, with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## fuzz: each fuzz target for FUZZTIME.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done

generate:
	$(GO) generate $(PKGS)

## demo: build bin/b2bx and open the app against the built-in simulator
## (b2bx demo: both demo connections as tabs, temporary files, secrets in
## memory; needs a terminal). DEMO_FLAGS passes flags, e.g.
## DEMO_FLAGS='--throttle 2MiB' or DEMO_FLAGS='--entries 10000'.
.PHONY: demo tour e2e
demo: build
	$(BIN) demo $(DEMO_FLAGS)

## tour: build bin/b2bx, then the scripted CLI tour against the simulator
## (.ci/scripts/tour.sh; TOUR_PAUSE=1 waits for Enter between steps; no
## terminal needed, CI runs it).
tour: build
	B2BX=$(BIN) ./.ci/scripts/tour.sh

## e2e: build the real binary and drive it as subprocesses and inside tmux
## (needs tmux; the keyring prompt test also gnome-keyring and dbus).
e2e: build
	B2BX_E2E_BIN=$(BIN) $(GO) test -tags e2e -count=1 ./cmd/b2bx/e2e/

clean:
	rm -rf bin
