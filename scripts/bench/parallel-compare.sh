#!/usr/bin/env bash
# Section 2 of scripts/bench.sh (20,000 GETs of 1 KiB, 32 at once, HTTP/1.1, against the nginx
# fixture) for one or more sonde builds side by side with the bare libcurl multi loop, interleaved
# round by round (the builds' order rotates each round), so that the shared machine's drifts hit
# all alike. Prints, per build, the medians of: the load phase (req/s, first request to last
# response, from report.json), its per-round ratio to the loop of the same round, the CPU per
# request of the whole process and of its engine and recorder threads (cpu-account.py), and the
# same for the loop.
# Usage: scripts/bench/parallel-compare.sh SONDE [SONDE ...]   (ROUNDS=5 by default; COUNT=20000)
# Loopback only; every round bounded by the tools' own limits (the loop gives up after 120 s).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 SONDE [SONDE ...]" >&2; exit 64; }
rounds=${ROUNDS:-5}
count=${COUNT:-20000}
[[ $rounds =~ ^[1-9][0-9]?$ && $count =~ ^[1-9][0-9]{0,6}$ ]] || { echo "ROUNDS must be 1-99, COUNT 1-9999999" >&2; exit 64; }
work=$(mktemp -d /tmp/sonde-parallel.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
url="http://127.0.0.1:$http/1k.bin"
sonde=$1
libcurl=$("$sonde" version | sed -n 's/^libcurl [^ ]* at \([^ ]*\).*/\1/p')
cc -O2 -o "$work/libcurl-floor" "$here/scripts/bench/libcurl-multi-floor.c" -L"$(dirname "$libcurl")" -l:"$(basename "$libcurl")" \
  -Wl,-rpath,"$(dirname "$libcurl")"
echo "libcurl $("$sonde" version | sed -n 's/^libcurl \([^ ]*\) at.*/\1/p'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
worker=$(pgrep -P "$(cat "$work/nginx/nginx.pid")" | head -1)
account() { python3 "$here/scripts/bench/cpu-account.py" "$worker" "$count" -- "$@"; }
mkdir "$work/out"
for ((round = 1; round <= rounds; round++)); do
  account "$work/libcurl-floor" "$url" "$count" 32 > "$work/out/floor.$round.json"
  builds=$#
  for ((k = 0; k < builds; k++)); do
    index=$(( (k + round) % builds + 1 ))
    binary=${!index}
    account "$binary" probe --client plain --http1.1 --parallel 32 --count "$count" --output-dir "$work/reports" "$url" \
      > "$work/out/sonde$index.$round.json"
    python3 - "$work"/reports/*/report.json > "$work/out/load$index.$round" <<'PY'
import json, sys
from datetime import datetime
def t(s): return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
probes = json.load(open(sys.argv[1]))["probes"]
first = min(t(p["taskInterval"]["start"]) for p in probes)
last = max(t(p["taskInterval"]["start"]) + p["taskInterval"]["durationMs"] / 1000 for p in probes)
print(len(probes) / (last - first))
PY
    rm -rf "$work/reports"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/out" "$rounds" "$count" "$@" <<'PY'
import json, statistics, sys
folder, rounds, count, builds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
med = statistics.median
def load(path): return json.load(open(path))
floor = [load(f"{folder}/floor.{r}.json") for r in range(1, rounds + 1)]
floor_rate = [float(f["stdout"]) for f in floor]
print(f"bare loop: {med(floor_rate):.0f} req/s (rounds {', '.join(f'{x:.0f}' for x in floor_rate)}), "
      f"CPU {med(f['process'] for f in floor):.1f} µs/request, nginx worker {med(f['server'] for f in floor):.1f}")
for index, build in enumerate(builds, 1):
    runs = [load(f"{folder}/sonde{index}.{r}.json") for r in range(1, rounds + 1)]
    rates = [float(open(f"{folder}/load{index}.{r}").read()) for r in range(1, rounds + 1)]
    ratios = [rate / f for rate, f in zip(rates, floor_rate)]
    cpu_ratio = [s["process"] - f["process"] for s, f in zip(runs, floor)]
    print(f"[{index}] {build}: load phase {med(rates):.0f} req/s (rounds {', '.join(f'{x:.0f}' for x in rates)}); "
          f"whole process {med(count / s['wall'] for s in runs):.0f} req/s")
    print(f"   load phase / loop, per round: {', '.join(f'{x:.2f}' for x in ratios)}; median {med(ratios):.2f}")
    print(f"   CPU µs/request: process {med(s['process'] for s in runs):.1f} "
          f"(engine {med(s['threads'].get('sonde-engine', 0) for s in runs):.1f}, "
          f"recorder {med(s['threads'].get('sonde-recorder', 0) for s in runs):.1f}); "
          f"process less the same round's loop, median {med(cpu_ratio):.1f}; nginx worker {med(s['server'] for s in runs):.1f}")
PY
