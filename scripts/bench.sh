#!/usr/bin/env bash
# sonde benchmarks, each side by side with a peer in one run, printing medians and ratios.
# Usage: scripts/bench.sh [path/to/sonde]   (make bench builds release first)
#        SECTIONS=2 scripts/bench.sh ...   runs only the sections listed (comma-separated: 1, 2, 3, 11, 12, 13, 14;
#        3 also runs 4 and 5, which use its journal)
# Needs: nginx, curl, h2load (nghttp2-client), GNU time, a C compiler, chromium. Loopback only; bounded.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/.build/release/sonde}
work=$(mktemp -d /tmp/sonde-bench.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
url="http://127.0.0.1:$http/1k.bin"
want() { [[ -z ${SECTIONS:-} || ",$SECTIONS," == *",$1,"* ]]; }
echo "sonde bench: nginx $(nginx -v 2>&1 | sed 's/.*\///'), $(curl --version | head -1 | cut -d' ' -f1-2), $(nproc) cores"
echo

if want 1; then
echo "1) 1,000 sequential keep-alive GETs of 1 KiB over HTTP/1.1 (sonde and curl interleaved, 9 rounds after a warm-up;"
echo "   median of the per-round ratios, so that the shared machine's drifts hit both alike)"
python3 - "$sonde" "$url" "$work/reports" <<'PY'
import shutil, statistics, subprocess, sys, time
sonde, url, reports = sys.argv[1:4]
commands = {
    "sonde": [sonde, "probe", "--client", "plain", "--http1.1", "--count", "1000", "--output-dir", reports, url],
    "curl": ["curl", "-s", "--http1.1", "-o", "/dev/null", "-w",
             "%{time_namelookup} %{time_connect} %{time_starttransfer} %{time_total} %{num_connects}\n", url + "?[1-1000]"],
}
def timed(name):
    start = time.perf_counter()
    subprocess.run(commands[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    elapsed = time.perf_counter() - start
    shutil.rmtree(reports, ignore_errors=True)
    return elapsed
timed("sonde"); timed("curl")
rounds = []
for i in range(9):
    order = ["sonde", "curl"] if i % 2 == 0 else ["curl", "sonde"]
    times = {name: timed(name) for name in order}
    rounds.append((times["sonde"], times["curl"]))
ratios = [s / c for s, c in rounds]
s = statistics.median(r[0] for r in rounds); c = statistics.median(r[1] for r in rounds)
print(f"   sonde median {s*1000:.1f} ms, curl median {c*1000:.1f} ms; per-round ratios "
      f"{min(ratios):.2f}–{max(ratios):.2f}, median ratio sonde/curl = {statistics.median(ratios):.2f} (target <= 1.10)")
PY
fi

if want 2; then
echo "2) 20,000 GETs, 32 at once, HTTP/1.1 (sonde --parallel 32 vs h2load --h1 -c 32, and a bare libcurl"
echo "   multi loop that records nothing as the floor sonde's engine stands on; 5 rounds, medians)"
# The floor runs on the libcurl sonde runs on (`sonde version` names its file): the same engine underneath.
libcurl=$("$sonde" version | sed -n 's/^libcurl [^ ]* at \([^ ]*\).*/\1/p')
cc -O2 -o "$work/libcurl-floor" "$here/scripts/bench/libcurl-multi-floor.c" -L"$(dirname "$libcurl")" -l:"$(basename "$libcurl")" \
  -Wl,-rpath,"$(dirname "$libcurl")"
echo "   (libcurl $("$sonde" version | sed -n 's/^libcurl \([^ ]*\) at.*/\1/p') for sonde and the bare loop)"
# Each run goes through cpu-account.py, which also counts the CPU each tool, each of sonde's threads
# and nginx's worker used per request: the budget that decides what a 2-core machine allows.
worker=$(pgrep -P "$(cat "$work/nginx/nginx.pid")" | head -1)
account() { python3 "$here/scripts/bench/cpu-account.py" "$worker" 20000 -- "$@"; }
mkdir "$work/parallel"
for round in 1 2 3 4 5; do
  account "$work/libcurl-floor" "$url" 20000 32 > "$work/parallel/floor.$round.json"
  account "$sonde" probe --client plain --http1.1 --parallel 32 --count 20000 --output-dir "$work/reports" "$url" > "$work/parallel/sonde.$round.json"
  # The load phase alone, as h2load times itself: first request start to last response end, from the report.
  python3 - "$work"/reports/*/report.json > "$work/parallel/load.$round" <<'PY'
import json, sys
from datetime import datetime
def t(s): return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
probes = json.load(open(sys.argv[1]))["probes"]
first = min(t(p["taskInterval"]["start"]) for p in probes)
last = max(t(p["taskInterval"]["start"]) + p["taskInterval"]["durationMs"] / 1000 for p in probes)
print(len(probes) / (last - first))
PY
  rm -rf "$work/reports"
  account h2load --h1 -n 20000 -c 32 "$url" > "$work/parallel/h2load.$round.json"
done
python3 - "$work/parallel" <<'PY'
import glob, json, re, statistics, sys
folder = sys.argv[1]
def of(tool): return [json.load(open(path)) for path in sorted(glob.glob(f"{folder}/{tool}.*.json"))]
def med(values): return statistics.median(values)
h2load = med(float(re.search(r"finished in [^,]+, ([0-9.]+) req/s", r["stdout"]).group(1)) for r in of("h2load"))
floor = med(float(r["stdout"]) for r in of("floor"))
whole = med(20000 / r["wall"] for r in of("sonde"))
load = med(float(open(path).read()) for path in glob.glob(f"{folder}/load.*"))
print(f"   sonde median {whole:.0f} req/s whole process (start-up, every transaction recorded, all reports rendered),")
print(f"   {load:.0f} req/s in the load phase alone (first request to last response, from the report, as h2load times itself)")
print(f"   h2load median {h2load:.0f} req/s; bare libcurl multi loop median {floor:.0f} req/s")
print(f"   ratio sonde/h2load = {whole/h2load:.2f} whole process, {load/h2load:.2f} load phase (target >= 0.70); "
      f"libcurl floor/h2load = {floor/h2load:.2f}; sonde load phase/libcurl floor = {load/floor:.2f}")
cpu = {tool: med(r["process"] for r in of(tool)) for tool in ("h2load", "floor", "sonde")}
server = {tool: med(r["server"] for r in of(tool)) for tool in ("h2load", "floor", "sonde")}
engine = med(r["threads"].get("sonde-engine", 0) for r in of("sonde"))
recorder = med(r["threads"].get("sonde-recorder", 0) for r in of("sonde"))
print(f"   CPU per request (user + system, medians, µs): h2load {cpu['h2load']:.1f}, bare loop {cpu['floor']:.1f}, "
      f"sonde {cpu['sonde']:.1f} (engine thread {engine:.1f}, recorder thread {recorder:.1f});")
print(f"   nginx's worker {server['h2load']:.1f} under h2load, {server['floor']:.1f} under the loop, {server['sonde']:.1f} under sonde")
target = 0.7 * h2load
print(f"   at 0.7 x h2load ({target:.0f} req/s) one engine thread has {1e6/target:.1f} µs per request even with a core to itself,")
print(f"   and sonde's whole process {2e6/target - server['h2load']:.1f} µs: what 2 cores give ({2e6/target:.1f}) less the least nginx used")
PY
fi

if want 3; then
echo "3) 100,000 transactions in one run: peak RSS (GNU time)"
/usr/bin/time -f "%M %e" -o "$work/rss.txt" "$sonde" probe --client plain --http1.1 --parallel 8 --count 100000 --output-dir "$work/reports" "$url" >/dev/null
read -r rss seconds < "$work/rss.txt"
report=$(ls "$work"/reports/*/report.json)
python3 - "$rss" "$seconds" "$report" <<'PY'
import json, sys
rss_kb, seconds, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
count = sum(len(p["transactionMetrics"]) for p in json.load(open(path))["probes"])
print(f"   peak RSS {rss_kb/1024:.1f} MiB for {count} transactions in {seconds:.1f} s (target < 150 MiB)")
PY

echo "4) Rendering every format (JSON, HTML, HAR, JUnit, Prometheus) from that 100,000-transaction journal"
echo "   (sonde report; 3 runs, median time and the largest peak RSS)"
folder=$(dirname "$report")
times=(); peak=0
for _ in 1 2 3; do
  /usr/bin/time -f "%M %e" -o "$work/render.txt" "$sonde" report "$folder" --prom "$work/sonde.prom" >/dev/null
  read -r rss seconds < "$work/render.txt"
  times+=("$seconds"); (( rss > peak )) && peak=$rss
done
python3 - "${times[*]}" "$peak" "$folder" <<'PY'
import os, statistics, sys
times, peak, folder = [float(t) for t in sys.argv[1].split()], int(sys.argv[2]), sys.argv[3]
sizes = ", ".join(f"{name} {os.path.getsize(os.path.join(folder, name)) / 1e6:.1f} MB"
                  for name in ("report.json", "report.har", "junit.xml", "report.html"))
print(f"   median {statistics.median(times):.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)}), peak RSS {peak/1024:.1f} MiB "
      f"(targets < 5 s, < 200 MB); {sizes}")
PY

echo "5) Opening that run's report.html in headless Chromium (dump-dom after load; 3 runs, medians),"
echo "   against an empty page to separate Chromium's own start-up"
printf '<!doctype html><title>empty</title>' > "$work/empty.html"
python3 - "$here/Tests/SondeCLITests/Fixtures/check_html.py" "$folder/report.html" "$work/empty.html" "$work" <<'PY'
import json, os, statistics, subprocess, sys
checker, report, empty, work = sys.argv[1:5]
def load(page):
    out = subprocess.run([sys.executable, checker, page, os.path.join(work, "shot.png")], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)
reports = [load(report) for _ in range(3)]
empties = [load(empty) for _ in range(3)]
r = statistics.median(f["loadSeconds"] for f in reports)
e = statistics.median(f["loadSeconds"] for f in empties)
clean = all(not f["console"] and not f["requests"] for f in reports)
print(f"   report.html {os.path.getsize(report) / 1e6:.2f} MB: {r:.2f} s to load and dump, empty page {e:.2f} s, "
      f"difference {r - e:.2f} s (target: opens in < 3 s, < 10 MB); console and requests clean: {clean}")
PY

"$here/scripts/bench-ws.sh" "$sonde"

"$here/scripts/bench-resume.sh" "$sonde"

"$here/scripts/bench-capture.sh" "$sonde"

"$here/scripts/bench-serve.sh" "$sonde"

"$here/scripts/bench-h3.sh" "$sonde"
fi

if want 11; then
echo "11) A one-URL probe with every default output, and sonde version, beside curl (scripts/bench/startup.sh)"
"$here/scripts/bench/startup.sh" "$sonde"
fi

if want 12; then
echo "12) serve's RSS beside blackbox_exporter's, idle and after 2,000 /probe 8 at once (scripts/bench/serve-memory.sh)"
"$here/scripts/bench/serve-memory.sh" "$sonde"
fi

if want 13; then
echo "13) The link emulator's CPU at 50 Mbit/s, 100 MB from nginx (scripts/bench/link.sh cpu50; root)"
"$here/scripts/bench/link.sh" "$sonde" cpu50
fi

if want 14; then
echo "14) Memory per held WebSocket connection, 10,000 held, beside Python websockets (scripts/bench/ws-memory.sh)"
"$here/scripts/bench/ws-memory.sh" "$sonde"
fi
