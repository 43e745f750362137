#!/usr/bin/env bash
# sonde's packet benchmarks (section 8 of `make bench`): offline analysis beside tshark, and a live
# capture under load. Usage: scripts/bench-capture.sh [path/to/sonde]. Needs root (live capture),
# tshark, nginx; about 600 MB in /tmp. Loopback only; bounded.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/.build/release/sonde}
work=$(mktemp -d /tmp/sonde-bench-capture.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT

echo "8) Packets"
packets=$(python3 "$here/scripts/bench/make-pcap.py" "$work/1m.pcap" 1000000)
echo "   a) offline analysis of a synthetic pcap of $packets TCP packets over 1,000 connections:"
echo "      sonde analyze beside tshark -q -z conv,tcp (TCP analysis on), interleaved, 3 rounds, medians"
for round in 1 2 3; do
  /usr/bin/time -f "%e %M" -o "$work/sonde.$round" "$sonde" analyze "$work/1m.pcap" --output-dir "$work/reports" > /dev/null
  rm -rf "$work/reports"
  /usr/bin/time -f "%e %M" -o "$work/tshark.$round" tshark -r "$work/1m.pcap" -q -z conv,tcp > /dev/null 2>&1
done
python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
def read(name):
    return [tuple(float(x) for x in open(f"{work}/{name}.{r}").read().split()[-2:]) for r in (1, 2, 3)]
s, t = read("sonde"), read("tshark")
ms, mt = statistics.median(x[0] for x in s), statistics.median(x[0] for x in t)
print(f"      sonde {', '.join(f'{x[0]:.2f}' for x in s)} s (peak RSS {max(x[1] for x in s) / 1024:.0f} MiB); "
      f"tshark {', '.join(f'{x[0]:.2f}' for x in t)} s (peak RSS {max(x[1] for x in t) / 1024:.0f} MiB)")
print(f"      median sonde {ms:.2f} s, tshark {mt:.2f} s: sonde is {mt / ms:.1f}x faster (target >= 20x)")
PY
if [[ $(id -u) -eq 0 ]]; then
  echo "   b) live capture during sonde probe --parallel 32 --count 2000 of 1 KiB from nginx (5 runs): drops, matches"
  for round in 1 2 3 4 5; do
    "$sonde" probe --capture --parallel 32 --count 2000 --json --output-dir "$work/live" "http://127.0.0.1:$http/1k.bin" > "$work/live.$round.json" || true
    rm -rf "$work/live"
  done
  python3 - "$work" <<'PY'
import datetime, json, statistics, sys
work = sys.argv[1]
def at(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
rows = []
for r in range(1, 6):
    d = json.load(open(f"{work}/live.{r}.json"))
    c = d["captures"][0]
    matched = sum(1 for p in d["probes"] for t in p["transactionMetrics"] if t["capture"])
    seconds = at(d["run"]["finishedAt"]) - at(d["run"]["startedAt"])
    rows.append((c["packets"], c["drops"], matched, d["summary"]["transactions"], seconds))
print("      " + "; ".join(f"{p} packets, {dr} dropped, {m}/{t} transactions matched" for p, dr, m, t, _ in rows))
rate = statistics.median(t / s for _, _, _, t, s in rows)
packets = statistics.median(p / s for p, _, _, _, s in rows)
print(f"      rate reached (median of the runs, whole run incl. capture setup and analysis): {rate:.0f} transactions/s, {packets:.0f} packets/s")
print(f"      drops in all runs: {sum(r[1] for r in rows)} (target 0)")
PY
else
  echo "   b) live capture: skipped (needs root or CAP_NET_RAW)"
fi
