#!/usr/bin/env bash
# sonde's HTTP/3 benchmark (section 10 of `make bench`): 1,000 sequential GETs of 1 KiB over HTTP/3
# to hypercorn (aioquic) on loopback, sonde beside a bare libcurl loop on the same libcurl (the one
# sonde runs on), interleaved, 7 rounds after a warm-up; median of the per-round ratios of wall
# time, and the CPU each used per request. Usage: scripts/bench-h3.sh [path/to/sonde].
# Needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh), hypercorn and aioquic, a C
# compiler. Loopback only; bounded (hypercorn exits by itself after 600 s).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/.build/release/sonde}
work=$(mktemp -d /tmp/sonde-bench-h3.XXXXXX)
trap 'kill "$(cat "$work/h3/hypercorn.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "10) 1,000 sequential GETs of 1 KiB over HTTP/3 to hypercorn on loopback (sonde --http3-only vs a bare"
echo "    libcurl easy loop on the same libcurl; interleaved, 7 rounds after a warm-up; medians)"
# The libcurl sonde runs on: its file, from `sonde version`.
libcurl=$("$sonde" version | sed -n 's/^libcurl [^ ]* at \([^ ]*\).*/\1/p')
if [[ -z "$libcurl" ]] || ! "$sonde" version | grep -q 'features:.* http3'; then
  echo "    skipped: the libcurl sonde runs on has no HTTP/3 (run scripts/provide-libcurl.sh)"; exit 0
fi
if ! python3 -c 'import hypercorn, aioquic' 2>/dev/null; then echo "    skipped: no hypercorn/aioquic (pip install hypercorn aioquic)"; exit 0; fi
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tcp=$(port); quic=$(port)
"$here/scripts/h3-fixture.sh" "$work/h3" "$tcp" "$quic"
cc -O2 -o "$work/loop" "$here/scripts/bench/libcurl-easy-loop.c" -L"$(dirname "$libcurl")" -l:"$(basename "$libcurl")" \
  -Wl,-rpath,"$(dirname "$libcurl")"
url="https://127.0.0.1:$quic/1k.bin"
python3 - "$sonde" "$work/loop" "$url" "$work/h3/ca.pem" "$work/reports" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, time
sonde, loop, url, ca, reports = sys.argv[1:6]
commands = {
    "sonde": [sonde, "probe", "--client", "plain", "--http3-only", "--count", "1000", "--cacert", ca, "--output-dir", reports, url],
    "loop": [loop, url, "1000", "3only", ca],
}
def timed(name):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(commands[name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, text=True).stdout
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if name == "sonde":
        shutil.rmtree(reports, ignore_errors=True)
    else:
        timed.version = out.split()[1]
    return elapsed, cpu
timed("sonde"); timed("loop")
rounds = []
for i in range(7):
    order = ["sonde", "loop"] if i % 2 == 0 else ["loop", "sonde"]
    results = {name: timed(name) for name in order}
    rounds.append(results)
ratios = [r["sonde"][0] / r["loop"][0] for r in rounds]
s = statistics.median(r["sonde"][0] for r in rounds); l = statistics.median(r["loop"][0] for r in rounds)
cs = statistics.median(r["sonde"][1] for r in rounds); cl = statistics.median(r["loop"][1] for r in rounds)
print(f"    libcurl {timed.version} for both; sonde median {s*1000:.0f} ms, bare loop median {l*1000:.0f} ms "
      f"({l:.3f} ms per GET); per-round ratios {min(ratios):.2f}–{max(ratios):.2f},")
print(f"    median ratio sonde/loop = {statistics.median(ratios):.2f} (target <= 1.10); CPU per GET (user + system, medians): "
      f"sonde {cs*1000:.0f} µs, loop {cl*1000:.0f} µs, sonde adds {(cs - cl)*1000:.0f} µs (start-up and reports included)")
PY
