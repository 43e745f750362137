# sonde — see README.md. `make run` and `make test` set up a fresh machine themselves.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

BUILD_DEBS := libcurl4-openssl-dev libssl-dev libpcap-dev libsqlite3-dev libre2-dev zlib1g-dev pkg-config binutils
TEST_DEBS  := $(BUILD_DEBS) nginx caddy curl chromium tshark tcpdump prometheus prometheus-blackbox-exporter testssl.sh sslscan iproute2 nftables time tayga unbound
BENCH_DEBS := $(TEST_DEBS) nghttp2-client gcc libc6-dev
## What make dist and dist-test need (docs/install.md): ELF and Debian package tools, a root file system
## maker, podman with runc for the image, lintian and systemd-analyze for the checks, nginx as dist-test's peer.
DIST_DEBS  := $(BUILD_DEBS) patchelf dpkg-dev lintian mmdebstrap podman runc uidmap systemd nginx curl python3
SONDE := .build/debug/sonde
## The libcurl sonde runs on (scripts/provide-libcurl.sh): DIR/lib beside the build, found by RUNPATH.
LIBCURL_DIR := $(CURDIR)/.build/sonde-libcurl
PREFIX ?= /usr/local
CONFIG ?= release
## Flags of every debug build (run, test, example: one set, so `make test` reuses `make run`'s build).
## No index store: SwiftPM indexes while it builds by default, for editors only; without it a fresh
## build spends about 11 % less CPU (BoringSSL's 366 files: 94 -> 84 CPU s, medians of 3; GRDB
## 36.9 -> 31.4), and a fresh `make run` is CPU-bound on 2 cores. docs/measurements.md has the figures.
## SwiftPM's test discovery on Linux reads the test modules' index units: `test-build` has them
## indexed, and only them (SONDE_TEST_INDEX_STORE, Package.swift).
SWIFT_BUILD_FLAGS ?= --disable-index-store

.PHONY: run test test-build test-system-libcurl system-libcurl build install bench example deps-build deps-test deps-bench deps-dist dist dist-test provide-libcurl clean

deps-build:
	@scripts/ensure-debs.sh $(BUILD_DEBS)

deps-test:
	@scripts/ensure-debs.sh $(TEST_DEBS)
	@scripts/ensure-pip.sh jsonschema:jsonschema scapy:scapy websockets:websockets tusclient:tuspy hypercorn:hypercorn aioquic:aioquic dnslib:dnslib yaml:PyYAML grpc:grpcio grpc_health:grpcio-health-checking opentelemetry.proto:opentelemetry-proto markdown_it:markdown-it-py ariadne:ariadne aiohttp_sse:aiohttp-sse

deps-bench:
	@scripts/ensure-debs.sh $(BENCH_DEBS)

deps-dist:
	@scripts/ensure-debs.sh $(DIST_DEBS)

## The newest libcurl we can get (pycurl's wheel: libcurl 8 with HTTP/3), beside the build. The wheel
## is fetched once; without it sonde runs on the system's libcurl.
provide-libcurl: deps-build
	@scripts/provide-libcurl.sh $(LIBCURL_DIR)

build: deps-build provide-libcurl
	swift build $(SWIFT_BUILD_FLAGS)

## The main job: the embedded loopback target and the default probe suite against it. The demo's
## HTTP/3 peer is hypercorn on aioquic (PyPI); without them the demo runs without its h3 part.
run: build
	-@scripts/ensure-pip.sh hypercorn:hypercorn aioquic:aioquic
	$(SONDE) demo

## Unit and end-to-end tests (embedded target, nginx, curl -w, schema validation), on the provided
## libcurl; then the probe, resume, report, grpc (HTTP/2 trailers), GraphQL and SSE suites again on Debian's libcurl 7.88.
SYSTEM_LIBCURL_SUITES := CLITargetTests|CLIReportFormatTests|CLINginxTests|ResumeCLITests|LibcurlCLITests|ReusedTimingCLITests|BlackboxICMPGRPCCLITests|GraphQLCLITests|StreamCLITests
## Each run's temporary files (the suites' folders, peers' files: about 1.2 GB over a whole run) go
## to a folder of its own (TMPDIR; sticky and open to all as /tmp is, for the tests that run sonde
## as another user), removed when the run ends, passed or not.
TEST_TMPDIR = tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/sonde-test.XXXXXX") && chmod 1777 "$$tmp" || exit 1; \
	trap 'rm -rf "$$tmp"' EXIT; export TMPDIR="$$tmp"
test: deps-test provide-libcurl system-libcurl test-build
	@# The failures again at the end, where a log's tail shows them.
	set -o pipefail; $(TEST_TMPDIR); swift test --skip-build 2>&1 | tee .build/test.log || { \
		echo "==== failed tests (full log: .build/test.log) ===="; \
		grep -a -A4 "recorded an issue\|Caught error\|Fatal error" .build/test.log | head -150; exit 1; }
	$(TEST_TMPDIR); LD_LIBRARY_PATH=$(CURDIR)/.build/system-libcurl swift test --skip-build --filter '$(SYSTEM_LIBCURL_SUITES)'

## The tests' build: make run's flags, and an index store for the test modules alone (SWIFT_BUILD_FLAGS).
test-build: deps-test provide-libcurl
	SONDE_TEST_INDEX_STORE="$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)/index/store" swift build $(SWIFT_BUILD_FLAGS) --build-tests

## A folder holding only libcurl.so.4 -> the system's (Debian's 7.88), to put first in
## LD_LIBRARY_PATH for the test process and every sonde it starts (naming /usr/lib/x86_64-linux-gnu
## itself would also swap pyenv's libpython for Debian's).
system-libcurl: deps-build
	mkdir -p .build/system-libcurl
	ln -sfn "$$(ldconfig -p | awk '/libcurl\.so\.4 .*x86-64/{print $$NF; exit}')" .build/system-libcurl/libcurl.so.4

## Every test on the system's libcurl (Debian's 7.88); the HTTP/3 tests skip and say why.
test-system-libcurl: deps-test system-libcurl test-build
	$(TEST_TMPDIR); LD_LIBRARY_PATH=$(CURDIR)/.build/system-libcurl swift test --skip-build

## PREFIX/bin/sonde (CONFIG=release by default) and the libcurl it runs on in PREFIX/lib/sonde (found
## by RUNPATH $$ORIGIN/../lib/sonde; without it, the system's). The Swift runtime and Foundation are
## linked in (--static-swift-stdlib), so the installed sonde runs without the toolchain; stripped.
## SONDE_INSTALL_BUILD=1 leaves the build folder's RUNPATH entry out (Package.swift).
INSTALL_FLAGS ?= --static-swift-stdlib
install: deps-build provide-libcurl
	SONDE_INSTALL_BUILD=1 swift build -c $(CONFIG) $(INSTALL_FLAGS)
	install -d "$(PREFIX)/bin" "$(PREFIX)/lib/sonde"
	install -m 755 -s "$$(SONDE_INSTALL_BUILD=1 swift build -c $(CONFIG) $(INSTALL_FLAGS) --show-bin-path)/sonde" "$(PREFIX)/bin/sonde"
	if [ -d "$(LIBCURL_DIR)/lib" ]; then cp -P "$(LIBCURL_DIR)"/lib/* "$(PREFIX)/lib/sonde/"; fi
	"$(PREFIX)/bin/sonde" version

## Release artifacts in dist/ (scripts/dist.sh, docs/install.md): the tarball, the .deb and the OCI image archive,
## from a release build with the Swift runtime linked statically, stripped, beside the libcurl it runs on.
dist: deps-dist provide-libcurl
	scripts/dist.sh

## dist/'s artifacts installed and run in a fresh Debian 12 root file system with no Swift (scripts/dist-test.sh).
dist-test: dist
	scripts/dist-test.sh

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
	rm -rf .build dist
