#!/usr/bin/env bash
# The recorder's CPU per task, before and after a change, without building the whole product: SondeCore and
# SondeReport of each git revision compiled whole-module -O (as a release build compiles them) and linked with
# scripts/bench/recorder-bench.swift, which records COUNT section-2-like tasks through RunRecorder (live report
# files, in a temporary folder) and prints thread CPU per task for `record` and `finish`, the process's, and each
# step alone (encoding the journal line, the HAR entry, the JUnit case, the summary, the request name).
# Usage: scripts/bench/recorder-bench.sh BEFORE_REV AFTER_REV   (ROUNDS=3, COUNT=20000; the builds alternate)
# Needs a release build's dependency modules and objects (Histogram, Numerics) under .build (any
# `swift build -c release` that got past them).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -eq 2 ]] || { echo "usage: $0 BEFORE_REV AFTER_REV" >&2; exit 64; }
rounds=${ROUNDS:-3}
count=${COUNT:-20000}
[[ $rounds =~ ^[1-9]$ && $count =~ ^[1-9][0-9]{0,6}$ ]] || { echo "ROUNDS must be 1-9, COUNT 1-9999999" >&2; exit 64; }
release="$here/.build/x86_64-unknown-linux-gnu/release"
shims="$here/.build/checkouts/swift-numerics/Sources/_NumericsShims/include/module.modulemap"
for module in Histogram RealModule ComplexModule Numerics; do
  [[ -f "$release/Modules/$module.swiftmodule" ]] || { echo "no release build of $module under $release" >&2; exit 64; }
done
work=$(mktemp -d /tmp/sonde-recorder-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/deps"
cp "$release"/Modules/{Histogram,RealModule,ComplexModule,Numerics}.swiftmodule "$work/deps/"
swiftc=$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)
flags=(-O -wmo -parse-as-library -swift-version 6 -package-name sonde -I "$work/deps" -Xcc -fmodule-map-file="$shims")
for build in before after; do
  revision=$1; [[ $build == after ]] && revision=$2
  mkdir -p "$work/$build/src" "$work/$build/mods"
  git -C "$here" archive "$revision" Sources/SondeCore Sources/SondeReport | tar -x -C "$work/$build/src"
  for module in SondeCore SondeReport; do
    "$swiftc" "${flags[@]}" -I "$work/$build/mods" -module-name "$module" -emit-module -emit-module-path "$work/$build/mods/$module.swiftmodule" \
      -c $(find "$work/$build/src/Sources/$module" -name '*.swift') -o "$work/$build/$module.o" 2>"$work/build.log" \
      || { grep error: "$work/build.log" >&2; exit 1; }
  done
  "$swiftc" -O -static-stdlib -swift-version 6 -package-name sonde -I "$work/deps" -I "$work/$build/mods" -Xcc -fmodule-map-file="$shims" \
    "$here/scripts/bench/recorder-bench.swift" "$work/$build/SondeCore.o" "$work/$build/SondeReport.o" \
    "$release"/{Histogram,RealModule,ComplexModule,Numerics}.build/*.o -o "$work/$build/bench" 2>"$work/build.log" \
    || { grep error: "$work/build.log" >&2; exit 1; }
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 1; round <= rounds; round++)); do
  for build in before after; do
    echo "$build ($([[ $build == before ]] && echo "$1" || echo "$2")), round $round:"
    "$work/$build/bench" "$count" "$work/runs-$build-$round"
    rm -rf "$work/runs-$build-$round"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
