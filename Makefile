# vrvm — build, test and benchmark.
#
#   make test    everything CI runs (.ci/run calls exactly this)
#   make bench   the benchmarks (performance targets live here, not in tests)

GO        ?= go
# Data sets are read from $(VRVM_DATA); in this workspace they sit beside the clone.
VRVM_DATA ?= $(abspath ../shared/data)
export VRVM_DATA

BENCHTIME ?= 1x
BENCH     ?= .

.PHONY: all build test lint unit bench check-generated

all: build

build:
	$(GO) build ./...

## test: lint, unit tests and the generated-code checks.
test: lint unit check-generated

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

unit:
	$(GO) test -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) ./...

## check-generated: the yaegi symbol files in symbols/ match a fresh "go generate".
check-generated:
	GO=$(GO) scripts/check-generated.sh
