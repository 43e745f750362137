#!/usr/bin/env bash
# Sections 1-4 of scripts/bench.sh for two sonde binaries, interleaved against one nginx (A = before,
# B = after; ROUNDS rounds (5 by default) of sections 1, 2 and 4, section 3 once each), printing medians
# and B/A. The order alternates (A then B in odd rounds, B then A in even ones): with a fixed order,
# section 4 read 2.4 % slower for whichever binary ran second.
# Usage: scripts/bench-compare.sh OLD_SONDE NEW_SONDE   (release builds; loopback only; bounded)
#        ONLY=4 ... renders only (section 3's journal is then taken once, with A)
set -euo pipefail
A=$1; B=$2; here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/cmp.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c" >/dev/null
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
url="http://127.0.0.1:$http/1k.bin"
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; python3 -c "print($(date +%s.%N)-$s)"; }
rounds=${ROUNDS:-5}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "ROUNDS must be 1-99" >&2; exit 64; }
order() { if (( $1 % 2 )); then echo A B; else echo B A; fi; }
declare -A R
for ((round = 1; round <= rounds; round++)); do
  [[ ${ONLY:-} == 4 ]] && break
  for side in $(order "$round"); do
    bin=${!side}
    rm -rf "$work/r$side"; mkdir -p "$work/r$side"
    R[s1$side]+="$(t "$bin" probe --http1.1 --count 1000 --output-dir "$work/r$side" "$url") "
    rm -rf "$work/r$side"; mkdir -p "$work/r$side"
    R[s2$side]+="$(t "$bin" probe --http1.1 --parallel 32 --count 20000 --output-dir "$work/r$side" "$url") "
  done
done
for side in A B; do
  [[ ${ONLY:-} == 4 && $side == B ]] && break
  bin=${!side}; rm -rf "$work/big$side"; mkdir -p "$work/big$side"
  /usr/bin/time -f "%M %e" -o "$work/rss$side" "$bin" probe --http1.1 --parallel 8 --count 100000 --output-dir "$work/big$side" "$url" >/dev/null
  R[s3$side]="$(cat "$work/rss$side")"
done
folder=$(dirname "$(ls "$work"/bigA/*/report.json)")
for ((round = 1; round <= rounds; round++)); do
  for side in $(order "$round"); do
    bin=${!side}
    R[s4$side]+="$(t "$bin" report "$folder" --prom "$work/sonde.prom") "
  done
done
python3 - "${R[s1A]:-0}" "${R[s1B]:-0}" "${R[s2A]:-0}" "${R[s2B]:-0}" "${R[s3A]}" "${R[s3B]:-}" "${R[s4A]}" "${R[s4B]}" <<'PY'
import statistics, sys
a = sys.argv[1:]
def med(s): return statistics.median(float(x) for x in s.split())
for i, name in [(0, "1) 1,000 sequential GETs, s"), (2, "2) 20,000 GETs --parallel 32, s"), (6, "4) render 100k-transaction journal, s")]:
    ma, mb = med(a[i]), med(a[i+1])
    if ma == 0: continue
    print(f"{name}: before {ma:.3f} after {mb:.3f}  after/before {mb/ma:.3f}   (runs {a[i]} | {a[i+1]})")
ra, ta = a[4].split()
if a[5]:  # ONLY=4 takes the journal with A alone
    rb, tb = a[5].split()
    print(f"3) 100k transactions --parallel 8: RSS before {int(ra)/1024:.1f} MiB after {int(rb)/1024:.1f} MiB; time {ta} s vs {tb} s")
PY
