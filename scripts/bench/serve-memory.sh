#!/usr/bin/env bash
# serve's memory beside blackbox_exporter's (issue 44, target 2): both exporters with the same two modules
# (http, tcp) against nginx on loopback, RSS (VmRSS, and VmHWM) idle (10 s after start, 3 scrapes of /metrics)
# and after 2,000 /probe http calls 8 at a time, with the calls' median latency; ratios printed.
# Usage: scripts/bench/serve-memory.sh SONDE [SONDE...]   (every binary beside the one blackbox_exporter, in
# one run; ROUNDS=3 by default: each round starts every exporter afresh, in rotated order; medians).
# Env for sonde (e.g. MALLOC_ARENA_MAX) passes through; SONDE_ENV="A=1 B=2" adds to sonde's alone.
# SECTIONS=1 adds, for each sonde, its executable's resident MiB per ELF section (scripts/bench/resident-sections.py),
# idle and after, in the last round.
# Loopback only; bounded (about a minute a round).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
(( $# >= 1 )) || { echo "usage: $0 SONDE [SONDE...]" >&2; exit 64; }
rounds=${ROUNDS:-3}
work=$(mktemp -d /tmp/sonde-serve-memory.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; kill "$(cat "$work/nginx/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$(port)" "$(port)"
modules="  http_2xx: {prober: http, timeout: 5s, http: {preferred_ip_protocol: ip4}}
  tcp_connect: {prober: tcp, timeout: 5s, tcp: {preferred_ip_protocol: ip4}}"
printf 'modules:\n%s\n' "$modules" > "$work/blackbox.yml"
printf 'allow: ["http://127.0.0.1:%s/*", "127.0.0.1:%s"]\nmodules:\n%s\n' "$http" "$http" "$modules" > "$work/serve.yml"
echo "serve memory: $(prometheus-blackbox-exporter --version 2>&1 | head -1 | cut -d' ' -f1-3); nginx on 127.0.0.1:$http; $(nproc) cores; $rounds rounds"

# start NAME: starts one exporter, prints "pid port".
start() {
  local name=$1 p; p=$(port)
  if [[ $name == blackbox ]]; then
    prometheus-blackbox-exporter --config.file="$work/blackbox.yml" --web.listen-address="127.0.0.1:$p" > "$work/$name.log" 2>&1 &
  else
    env ${SONDE_ENV:-} "$name" serve --config "$work/serve.yml" --listen "127.0.0.1:$p" --output-dir "$work/runs" > "$work/serve.log" 2>&1 &
  fi
  local pid=$!; pids+=("$pid")
  for _ in $(seq 1 200); do curl -fs -o /dev/null "http://127.0.0.1:$p/metrics" && break; sleep 0.05; done
  echo "$pid $p"
}
kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
names=(blackbox "$@")
for round in $(seq 1 "$rounds"); do
  # rotate the order each round
  order=("${names[@]:$(( (round - 1) % ${#names[@]} ))}" "${names[@]:0:$(( (round - 1) % ${#names[@]} ))}")
  for name in "${order[@]}"; do
    read -r pid p < <(start "$name")
    for _ in 1 2 3; do curl -fs -o /dev/null "http://127.0.0.1:$p/metrics"; done
    sleep 10
    idle=$(kib "$pid" VmRSS)
    sections() { [[ ${SECTIONS:-} == 1 && $name != blackbox && $round == "$rounds" ]] || return 0
      { echo "  $name, $1: RssAnon $(kib "$pid" RssAnon) KiB, RssFile $(kib "$pid" RssFile) KiB; the executable's resident pages by section:"
        python3 "$here/scripts/bench/resident-sections.py" "$pid" "$(realpath "$name")" | awk 'NR <= 8 {print "   " $0}'; } >> "$work/sections"; }
    sections idle
    python3 - "$p" "http://127.0.0.1:$http/1k.bin" > "$work/lat" <<'PY'
import concurrent.futures, http.client, statistics, sys, time, threading
port, target = int(sys.argv[1]), sys.argv[2]
local = threading.local()
def call(_):
    if not hasattr(local, "c"): local.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    local.c.request("GET", f"/probe?target={target}&module=http_2xx")
    body = local.c.getresponse().read()
    assert b"probe_success 1" in body, body[:300]
    return time.perf_counter() - start
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    times = list(pool.map(call, range(2000)))
print(f"{statistics.median(times) * 1000:.2f}")
PY
    sleep 2
    sections "after 2,000 /probe"
    after=$(kib "$pid" VmRSS); hwm=$(kib "$pid" VmHWM); threads=$(awk '$1 == "Threads:" {print $2}' "/proc/$pid/status")
    echo "$name $idle $after $hwm $(cat "$work/lat") $threads" >> "$work/results"
    kill "$pid"; wait "$pid" 2>/dev/null || true
    rm -rf "$work/runs"
  done
done
python3 - "$work/results" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, idle, after, hwm, ms, threads = line.split()
    rows[name].append((int(idle), int(after), int(hwm), float(ms), int(threads)))
def med(name, i): return statistics.median(r[i] for r in rows[name])
bb = {i: med("blackbox", i) for i in range(5)}
for name in rows:
    idle, after, hwm, ms, threads = (med(name, i) for i in range(5))
    line = (f"  {name if name == 'blackbox' else name:<40.40s} idle {idle / 1024:6.1f} MiB, after 2,000 /probe (8 at once) {after / 1024:6.1f} MiB "
            f"(peak {hwm / 1024:6.1f}), median /probe {ms:5.2f} ms, {threads:.0f} threads")
    if name != "blackbox":
        line += f"; ratios to blackbox_exporter: idle {idle / bb[0]:.2f}, after {after / bb[1]:.2f} (target <= 1.5)"
    print(line)
print("  (medians of", len(rows["blackbox"]), "rounds; each row's runs:", {n: [f"{r[0]/1024:.1f}/{r[1]/1024:.1f}" for r in v] for n, v in rows.items()}, ")")
PY
[[ -s $work/sections ]] && cat "$work/sections"
uptime
