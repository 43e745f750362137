#!/usr/bin/env bash
# The CPU budget of one `sonde probe --client plain --http1.1 --parallel 32 --count 20000` run
# against the nginx fixture (section 2's command), per step, in µs per request: each build given
# runs once under `perf record -g` (the builds in turn, ROUNDS times), and perf-budget.py splits
# the samples by thread and step. Needs perf and swift-demangle (the toolchain's).
# Usage: scripts/bench/record-profile.sh SONDE [SONDE ...]   (ROUNDS=1 by default; COUNT=20000)
# Loopback only; every run bounded by its count.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 SONDE [SONDE ...]" >&2; exit 64; }
rounds=${ROUNDS:-1}
count=${COUNT:-20000}
[[ $rounds =~ ^[1-9]$ && $count =~ ^[1-9][0-9]{0,6}$ ]] || { echo "ROUNDS must be 1-9, COUNT 1-9999999" >&2; exit 64; }
demangle=$(command -v swift-demangle || echo /opt/swift/usr/bin/swift-demangle)
work=$(mktemp -d /tmp/sonde-record-profile.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
url="http://127.0.0.1:$http/1k.bin"
for ((round = 1; round <= rounds; round++)); do
  for binary in "$@"; do
    echo "== $binary, round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    perf record -q -F 2999 --call-graph dwarf,32768 -o "$work/perf.data" -- \
      "$binary" probe --client plain --http1.1 --parallel 32 --count "$count" --output-dir "$work/reports" "$url" >/dev/null 2>&1
    perf script -i "$work/perf.data" -F comm,tid,period,ip,sym,dso 2>/dev/null | "$demangle" --simplified \
      | python3 "$here/scripts/bench/perf-budget.py" "$count"
    rm -rf "$work/reports" "$work/perf.data"
  done
done
