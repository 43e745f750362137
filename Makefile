# sonde — see README.md. `make run` and `make test` set up a fresh machine themselves.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

BUILD_DEBS := libcurl4-openssl-dev libssl-dev pkg-config
TEST_DEBS  := $(BUILD_DEBS) libpcap-dev nginx curl
BENCH_DEBS := $(TEST_DEBS) nghttp2-client hyperfine time gcc libc6-dev
SONDE := .build/debug/sonde

.PHONY: run test build bench deps-build deps-test deps-bench clean

deps-build:
	@scripts/ensure-debs.sh $(BUILD_DEBS)

deps-test:
	@scripts/ensure-debs.sh $(TEST_DEBS)
	@scripts/ensure-pip.sh jsonschema:jsonschema

deps-bench:
	@scripts/ensure-debs.sh $(BENCH_DEBS)

build: deps-build
	swift build

## The main job: the embedded loopback target and the default probe suite against it.
run: build
	$(SONDE) demo

## Unit and end-to-end tests (embedded target, nginx, curl -w, schema validation).
test: deps-test
	swift build --build-tests
	swift test --skip-build

## Benchmarks against curl and h2load on a local nginx (release build); prints ratios.
bench: deps-bench deps-test
	swift build -c release
	scripts/bench.sh .build/release/sonde

clean:
	rm -rf .build
