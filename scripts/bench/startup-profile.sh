#!/usr/bin/env bash
# Where a one-URL probe's and `sonde version`'s CPU goes (issue 44, target 1): `perf record -g` of RUNS runs of
# each (20 by default) against nginx on loopback, then their samples by phase (scripts/bench/startup-phases.py):
# the dynamic loader, argument parsing, libcurl's start, the run folder, the recorder, the summary, each report
# file, the terminal view, exit. CPU samples, so the figures hold on a loaded machine (perf adds about half).
# Usage: scripts/bench/startup-profile.sh SONDE [RUNS]   (SONDE unstripped: .build/release/sonde)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
sonde=$(realpath "$1"); runs=${2:-20}
work=$(mktemp -d /tmp/sonde-startup-profile.XXXXXX)
trap 'kill "$(cat "$work/nginx/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$(port)" "$(port)"
nm -C --defined-only "$sonde" | sort > "$work/syms"
[[ -s $work/syms ]] || { echo "$sonde has no symbols (stripped): give .build/release/sonde" >&2; exit 64; }
profile() {
  local name=$1; shift
  perf record -q -o "$work/$name.data" -F 20000 -g -- "$@" > /dev/null 2>&1
  perf script -i "$work/$name.data" -F comm,tid,ip,sym,dso 2> /dev/null > "$work/$name.script"
  echo "$name:"
  python3 "$here/scripts/bench/startup-phases.py" "$work/$name.script" "$work/syms" "$runs" 20000 | sed 's/^/  /'
}
cd "$work"
profile "sonde version" sh -c "for i in \$(seq $runs); do '$sonde' version; done"
profile "sonde probe URL" sh -c "for i in \$(seq $runs); do '$sonde' probe --output-dir runs http://127.0.0.1:$http/1k.bin; done"
