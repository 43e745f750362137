# sonde — see README.md. `make run` and `make test` set up a fresh machine themselves.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

BUILD_DEBS := libcurl4-openssl-dev libssl-dev libpcap-dev pkg-config
TEST_DEBS  := $(BUILD_DEBS) nginx curl chromium tshark tcpdump
BENCH_DEBS := $(TEST_DEBS) nghttp2-client time gcc libc6-dev
SONDE := .build/debug/sonde

.PHONY: run test build bench example deps-build deps-test deps-bench clean

deps-build:
	@scripts/ensure-debs.sh $(BUILD_DEBS)

deps-test:
	@scripts/ensure-debs.sh $(TEST_DEBS)
	@scripts/ensure-pip.sh jsonschema:jsonschema scapy:scapy websockets:websockets tusclient:tuspy

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
	@# The failures again at the end, where a log's tail shows them.
	set -o pipefail; swift test --skip-build 2>&1 | tee .build/test.log || { \
		echo "==== failed tests (full log: .build/test.log) ===="; \
		grep -a -A4 "recorded an issue\|Caught error\|Fatal error" .build/test.log | head -150; exit 1; }

## Benchmarks against curl and h2load on a local nginx (release build); prints ratios.
## The Swift runtime and Foundation are linked statically: a process starts in about 22 ms
## instead of 32 (16 fewer shared libraries to map and relocate), which a CLI pays on every run.
bench: deps-bench deps-test
	swift build -c release --static-swift-stdlib
	scripts/bench.sh .build/release/sonde

## The committed example run (Reports/examples/demo): `sonde demo` against the embedded target.
example: build
	rm -rf .build/example Reports/examples/demo
	$(SONDE) demo --output-dir .build/example --prom .build/example/sonde.prom \
		--threshold 'total.p95<1s' --threshold 'errors.rate<=0%' --threshold 'warm.wait.p50<50ms' >/dev/null
	mkdir -p Reports/examples
	mv .build/example/*/ Reports/examples/demo
	mv .build/example/sonde.prom Reports/examples/demo/sonde.prom
	@echo "Reports/examples/demo: $$(ls Reports/examples/demo | tr '\n' ' ')"

clean:
	rm -rf .build
