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

.PHONY: all build test lint unit bench check-generated kernel proxies check-proxies notebook-test

all: build

build:
	$(GO) build ./...

## test: lint, unit tests, the generated-code checks and the notebooks in Jupyter.
test: lint unit check-generated check-proxies notebook-test

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

## kernel: the Jupyter kernel, gophernotes with vrvm compiled in (build/vrvm-kernel).
kernel:
	GO=$(GO) $(GO) run ./kernel/mkkernel -o build/vrvm-kernel

## proxies: regenerate kernel/proxies from symbols/ (after "go generate ./symbols").
proxies:
	$(GO) generate ./kernel/proxies

## check-proxies: the gomacro proxies in kernel/proxies match a fresh generation.
check-proxies:
	GO=$(GO) scripts/check-proxies.sh

## notebook-test: the kernel protocol tests and every notebook, executed in Jupyter.
notebook-test: kernel
	GO=$(GO) scripts/notebook-test.sh build/vrvm-kernel
