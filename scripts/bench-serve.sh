#!/usr/bin/env bash
# sonde serve's benchmarks (section 9 of `make bench`), beside blackbox_exporter.
# Usage: scripts/bench-serve.sh [path/to/sonde]   (SERVE_BENCH_MINUTES=N changes the 10-minute soak of b;
# SERVE_BENCH_ONLY=probe runs a, the /probe comparison, alone: about a minute)
# Loopback only; bounded (about SERVE_BENCH_MINUTES + 3 minutes).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/.build/release/sonde}
work=$(mktemp -d /tmp/sonde-bench-serve.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
minutes=${SERVE_BENCH_MINUTES:-10}
echo "9) sonde serve against the embedded target (\`sonde target\` in its own process), beside"
echo "   $(prometheus-blackbox-exporter --version 2>&1 | head -1)"
"$sonde" target --json --dir "$work/target" --max-seconds $(( (minutes + 5) * 60 )) > "$work/target.json" &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$work/target.json" ]] && break; sleep 0.1; done
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/target.json" "$1"; }
http=$(field http); https=$(field https); ca=$(field caFile)
module="http_2xx: {prober: http, timeout: 5s, http: {preferred_ip_protocol: ip4, tls_config: {ca_file: $ca}}}"
printf 'modules:\n  %s\n' "$module" > "$work/blackbox.yml"
printf 'allow: ["%s/*", "%s/*"]\nmodules:\n  %s\n' "$http" "$https" "$module" > "$work/serve.yml"
prometheus-blackbox-exporter --config.file="$work/blackbox.yml" --web.listen-address=127.0.0.1:0 > "$work/bb.log" 2>&1 &
pids+=($!)
"$sonde" serve --config "$work/serve.yml" --listen 127.0.0.1:0 --output-dir "$work/runs" > "$work/serve.log" 2>&1 &
serve_pid=$!; pids+=($serve_pid)
for _ in $(seq 1 100); do grep -q "listening on" "$work/serve.log" 2>/dev/null && grep -q "Listening on" "$work/bb.log" 2>/dev/null && break; sleep 0.1; done
serve_port=$(grep -o "127.0.0.1:[0-9]*" "$work/serve.log" | head -1 | cut -d: -f2)
bb_port=$(grep -o 'address=127.0.0.1:[0-9]*' "$work/bb.log" | head -1 | cut -d: -f2)
echo "   a) /probe of the target, 1,000 scrapes in a row per exporter and scheme (5 interleaved rounds of 200,"
echo "      one keep-alive client connection each; median scrape time)"
python3 - "$serve_port" "$bb_port" "$http/" "$https/" <<'PY'
import http.client, statistics, sys, time
serve, bb, targets = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:5]
def scrape(port, target, n):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        connection.request("GET", f"/probe?target={target}&module=http_2xx")
        body = connection.getresponse().read()
        times.append(time.perf_counter() - start)
        assert b"probe_success 1" in body, body[:200]
    return times
for target in targets:
    s, b = [], []
    for _ in range(5):
        s += scrape(serve, target, 200); b += scrape(bb, target, 200)
    ms, mb = statistics.median(s) * 1000, statistics.median(b) * 1000
    print(f"      {target.split(':')[0]}: sonde {ms:.2f} ms, blackbox_exporter {mb:.2f} ms, ratio {ms / mb:.2f} (target <= {'0.85' if target.startswith('https') else '1.00'})")
PY
kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true

# The libcurl floor under a /probe over https (scripts/bench/libcurl-fresh-tls.c), on the libcurl sonde
# runs on and on the system's: what a kept multi handle (libcurl's CA cache) would spare per connection.
echo "   c) libcurl alone, 1,000 fresh https connections to the target per libcurl and mode (5 interleaved rounds"
echo "      of 200; new = a multi handle per transfer as /probe, kept = one multi handle, its CA cache;"
echo "      kept-nocapath = kept with CURLOPT_CAPATH cleared); median ms, CPU µs per connection (getrusage)"
libcurl=$("$sonde" version | sed -n 's/^libcurl [^ ]* at \([^ ]*\).*/\1/p')
cc -O2 -o "$work/fresh-provided" "$here/scripts/bench/libcurl-fresh-tls.c" -L"$(dirname "$libcurl")" -l:"$(basename "$libcurl")" \
  -Wl,-rpath,"$(dirname "$libcurl")"
cc -O2 -o "$work/fresh-system" "$here/scripts/bench/libcurl-fresh-tls.c" -lcurl
for build in provided system; do
  for round in 1 2 3 4 5; do
    for mode in new kept kept-nocapath; do
      "$work/fresh-$build" "$https/" 200 "$mode" "$ca" >> "$work/fresh.$build.$mode"
    done
  done
done
python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
for build in ("provided", "system"):
    rows = {}
    for mode in ("new", "kept", "kept-nocapath"):
        lines = [l.split() for l in open(f"{work}/fresh.{build}.{mode}")]
        assert all(int(l[2]) == 200 for l in lines), lines  # every transfer its own connection
        rows[mode] = (statistics.median(float(l[0]) for l in lines), statistics.median(float(l[1]) for l in lines), lines[0][3])
    new = rows["new"][1]
    print(f"      {rows['new'][2]}: " + ", ".join(
        f"{mode} {ms:.2f} ms {cpu:.0f} µs ({cpu / new:.2f})" for mode, (ms, cpu, _) in rows.items()))
PY
[[ ${SERVE_BENCH_ONLY:-} == probe ]] && exit 0

echo "   b) 50 probe checks every 10 s for $minutes min: serve's CPU and RSS (from /proc), then idle between runs"
{
  printf 'allow: []\nparallel: 8\ndefaults: {every: 10s, cacert: "%s"}\nchecks:\n' "$ca"
  for i in $(seq 1 50); do printf '  - {name: c%02d, kind: probe, urls: ["%s/bytes/2048"]}\n' "$i" "$https"; done
} > "$work/fifty.yml"
"$sonde" serve --config "$work/fifty.yml" --listen 127.0.0.1:0 --output-dir "$work/fifty" > "$work/fifty.log" 2>&1 &
fifty=$!; pids+=($fifty)
sample() { awk '{print ($14 + $15) / 100}' "/proc/$fifty/stat"; awk '/VmRSS/{print $2}' "/proc/$fifty/status"; }
sleep 60
read -r cpu_a rss_a < <(sample | paste -sd' ')
sleep $(( minutes * 60 - 60 ))
read -r cpu_b rss_b < <(sample | paste -sd' ')
runs=$(grep -c ": passed in " "$work/fifty.log" || true)
ended=$(grep -c "check c[0-9]*: [a-z]* in " "$work/fifty.log" || true)
kill "$fifty"; wait "$fifty" 2>/dev/null || true
# Idle: the same 50 checks every hour, measured over 60 s once their first runs are done.
sed 's/every: 10s/every: 1h/' "$work/fifty.yml" > "$work/idle.yml"
"$sonde" serve --config "$work/idle.yml" --listen 127.0.0.1:0 --output-dir "$work/idle" > "$work/idle.log" 2>&1 &
fifty=$!; pids+=($fifty)
sleep 45
read -r idle_a _ < <(sample | paste -sd' ')
sleep 60
read -r idle_b _ < <(sample | paste -sd' ')
kill "$fifty"; wait "$fifty" 2>/dev/null || true
python3 - "$cpu_a" "$cpu_b" "$rss_a" "$rss_b" "$runs" "$ended" "$minutes" "$idle_a" "$idle_b" <<'PY'
import sys
cpu_a, cpu_b, rss_a, rss_b = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
runs, ended, minutes, idle_a, idle_b = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8]), float(sys.argv[9])
window = (minutes - 1) * 60
print(f"      {ended} runs ended ({runs} passed); from minute 1 to {minutes}: CPU {100 * (cpu_b - cpu_a) / window:.1f} % of a core "
      f"({1000 * (cpu_b - cpu_a) / max(1, ended * window / (minutes * 60)):.0f} ms per run), RSS {rss_a / 1024:.1f} -> {rss_b / 1024:.1f} MiB "
      f"(growth {(rss_b - rss_a) / 1024:.1f} MiB, target < 10)")
print(f"      between runs (every: 1h, 60 s after the first runs): CPU {100 * (idle_b - idle_a) / 60:.2f} % of a core (target < 2 %)")
PY
