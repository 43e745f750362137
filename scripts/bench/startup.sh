#!/usr/bin/env bash
# A one-URL probe's fixed cost and `sonde version` beside curl (issue 44, target 1): `sonde probe URL` with every
# default output (the run folder, report.json, report.html, report.har, junit.xml, the journal, the terminal view)
# against `curl -s -o /dev/null URL`, and `sonde version` against `curl --version`; nginx on loopback serves 1 KiB.
# Every command runs ROUNDS times (25 by default), all interleaved round by round (the order rotates), so the shared
# machine's drifts hit all alike; prints the median wall time and the median CPU time (user + system, from
# wait4's rusage: load-independent) of each, and each sonde's ratios to curl.
# Usage: scripts/bench/startup.sh SONDE [SONDE...]   (several builds side by side: a change's before and after)
# STARTUP_ONLY=version (or probe) runs that command alone, beside its curl peer: more rounds in the same time.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
(( $# >= 1 )) || { echo "usage: $0 SONDE [SONDE...]" >&2; exit 64; }
work=$(mktemp -d /tmp/sonde-startup.XXXXXX)
trap 'kill "$(cat "$work/nginx/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$(port)" "$(port)"
echo "startup: $(curl --version | head -1 | cut -d' ' -f1-2), nginx on loopback, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work" "http://127.0.0.1:$http/1k.bin" "${ROUNDS:-25}" "${STARTUP_ONLY:-}" "$@" <<'PY'
import os, shutil, statistics, subprocess, sys, time
work, url, rounds, only, sondes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
assert only in ("", "version", "probe"), "STARTUP_ONLY: version or probe"
def run(command):
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    assert os.waitstatus_to_exitcode(status) == 0, command
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000
commands = {"curl --version": ["curl", "--version"], "curl -s -o /dev/null URL": ["curl", "-s", "-o", "/dev/null", url]}
for index, sonde in enumerate(sondes):
    label = f"[{index + 1}] " if len(sondes) > 1 else ""
    commands[f"{label}sonde version"] = [sonde, "version"]
    commands[f"{label}sonde probe URL"] = [sonde, "probe", "--output-dir", f"runs{index}", url]
if only == "version": commands = {n: c for n, c in commands.items() if n == "curl --version" or n.endswith("sonde version")}
if only == "probe": commands = {n: c for n, c in commands.items() if "URL" in n}
names = list(commands)
results = {name: [] for name in names}
for name in names: run(commands[name])  # warm the page cache
for round in range(rounds):
    for name in names[round % len(names):] + names[:round % len(names)]:
        results[name].append(run(commands[name]))
    for index in range(len(sondes)): shutil.rmtree(os.path.join(work, f"runs{index}"), ignore_errors=True)
median = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in results.items()}
for index, sonde in enumerate(sondes):
    if len(sondes) > 1: print(f"  [{index + 1}] {sonde}")
for name in names:
    wall, cpu = median[name]
    line = f"  {name:<28s} wall {wall:6.1f} ms  CPU {cpu:6.1f} ms"
    if "sonde version" in name:
        peer = median["curl --version"]
        line += f"   ratio to curl --version: wall {wall / peer[0]:.2f}, CPU {cpu / peer[1]:.2f} (target: wall <= 12 ms)"
    elif "sonde probe" in name:
        peer = median["curl -s -o /dev/null URL"]
        line += f"   ratio to curl: wall {wall / peer[0]:.2f}, CPU {cpu / peer[1]:.2f} (target <= 2)"
    print(line)
print(f"  (medians of {rounds} interleaved rounds)")
PY
echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
