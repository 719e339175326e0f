# vrvm — build, test and benchmark.
#
#   make test    everything CI runs (.ci/run calls exactly this)
#   make bench   the benchmarks (performance targets live here, not in tests)

GO        ?= go
# The data directory has one definition, vrvm/datasets.Dir: $VRVM_DATA, else
# the per-user cache (~/.cache/vrvm on Linux). In this workspace the data sets
# sit beside the clone, in ../shared/data: when that directory exists and
# VRVM_DATA is not set, make sets it there; otherwise make leaves it alone.
ifeq ($(origin VRVM_DATA),undefined)
ifneq ($(wildcard ../shared/data),)
VRVM_DATA := $(abspath ../shared/data)
export VRVM_DATA
endif
endif

BENCHTIME ?= 1x
BENCH     ?= .


.PHONY: generate
## generate: regenerate the yaegi symbols (symbols/), then the gomacro proxies
## derived from them (jupyter/proxies) and the REPL's documentation of their
## packages (internal/symdoc/symdoc_gen.go), in that order ("go generate ./..."
## would run the proxies first, from stale symbols).
generate:
	$(GO) generate ./symbols
	$(GO) generate ./jupyter/proxies
	$(GO) generate ./internal/symdoc

.PHONY: all build test beam-test lint unit bench check-generated kernel proxies check-proxies notebook-test notebooks jupyter build-check paper ablation gonb gonb-test

all: build

build:
	$(GO) build ./...

## notebooks: the main job: Jupyter, the kernel and the vrvm command (build/bin),
## the kernel registered for you, the data fetched, every notebook executed
## (build/notebooks) and rendered to HTML (build/html).
notebooks:
	GO=$(GO) scripts/notebooks.sh

## paper: Tables 1–4 of Bishop & Tipping (2000) for the RVM and the VRVM, and the
## model-selection study, in Markdown (a few minutes on two cores).
paper:
	$(GO) run ./cmd/vrvm paper

## ablation: every named part of the engine (vrvm/controls.go) turned off
## against all on over the ablation suite, one fit at a time; writes the tables
## of docs/ablation.md (about 10 min CPU; the real splits need VRVM_DATA).
ablation:
	VRVM_ABLATION=docs/ablation.md nice -n 10 $(GO) test ./vrvm -run '^TestAblation$$' -count=1 -timeout 0 -v

## gonb: GoNB, the second Go kernel, with gopls and goimports, built into
## build/bin from tools/gonb/go.mod and registered for you as "Go (gonb)"
## (docs/gonb.md).
gonb:
	GO=$(GO) scripts/gonb.sh

## gonb-test: build GoNB, register it in a temporary Jupyter directory and
## execute notebooks/gonb/*.ipynb under it, checking their outputs.
gonb-test:
	GO=$(GO) scripts/gonb-test.sh

## jupyter: Jupyter Notebook on working copies of the tutorials (my-notebooks/,
## copied from notebooks/ once; the tracked files are never opened), the kernel
## registered first if needed; as root with --allow-root. Extra Jupyter
## arguments: JUPYTER_ARGS="--no-browser --port 8889".
jupyter:
	GO=$(GO) scripts/jupyter.sh

## test: lint, unit tests, the generated-code checks, the shared build recipe,
## the kernel's protocol tests, the notebooks in Jupyter and in headless
## Chromium (scripts/notebook-test.sh), the GoNB notebooks under GoNB
## (scripts/gonb-test.sh), and the Beam module's pipelines on Prism (beam-test).
test: lint unit check-generated check-proxies build-check notebook-test gonb-test beam-test

## beam-test: the Apache Beam module (beam/go.mod, its own dependency graph):
## vet, and its pipelines on the Prism runner over small sharded files
## (docs/streaming.md).
beam-test:
	cd beam && $(GO) vet ./... && $(GO) test -count=1 -timeout 20m ./...

## build-check: docker/Dockerfile's build steps, run outside Docker through the
## same script into a temporary prefix (no Docker engine is needed).
build-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && GO=$(GO) scripts/build.sh "$$tmp" && 	  "$$tmp/bin/vrvm" help >/dev/null && test -x "$$tmp/bin/vrvm-kernel" && echo "build-check: ok"

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@# the kernel's main package exists only in the overlay build: vet it there
	@ov=$$(mktemp) && trap 'rm -f "$$ov"' EXIT && $(GO) run ./jupyter/mkkernel -overlay "$$ov" && \
	  $(GO) vet -overlay "$$ov" -tags vrvmkernel ./jupyter/gophernotes && echo "vet: kernel overlay ok"

unit:
	$(GO) test -count=1 -timeout 30m ./...

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) ./...

## check-generated: the yaegi symbol files in symbols/ and the REPL's
## documentation (internal/symdoc/symdoc_gen.go) match a fresh "go generate".
check-generated:
	GO=$(GO) scripts/check-generated.sh
	GO=$(GO) scripts/check-docs.sh

## kernel: the Jupyter kernel, gophernotes with vrvm compiled in (build/vrvm-kernel).
kernel:
	GO=$(GO) $(GO) run ./jupyter/mkkernel -o build/vrvm-kernel

## proxies: regenerate jupyter/proxies from symbols/ alone (make generate does both).
proxies:
	$(GO) generate ./jupyter/proxies

## check-proxies: the gomacro proxies in jupyter/proxies match a fresh generation.
check-proxies:
	GO=$(GO) scripts/check-proxies.sh

## notebook-test: the kernel protocol tests, every notebook executed in Jupyter,
## the browser test (build/browser-test) and 100 open/close cycles through the
## notebook server.
notebook-test: kernel
	GO=$(GO) scripts/notebook-test.sh build/vrvm-kernel
