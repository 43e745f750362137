#!/usr/bin/env bash
# Memory per held WebSocket connection (issue 44, target 4: at most 12 KiB): the resident set of a
# soak holding N connections (default 10,000) minus that of the same soak holding one, over N,
# while the connections are held (after the ramp, before the end: the report's encoding at the
# end is not the connections' cost). Sonde binaries given as arguments are run in turn, ROUNDS
# times each (default 2), interleaved; beside them the Python `websockets` client
# (scripts/bench/ws-python-client.py) holding the same connections, its peak RSS the same way.
# Usage: scripts/bench/ws-memory.sh SONDE [SONDE...]   (loopback only; about 2 minutes per run;
# the open-files limit must allow N + 100 descriptors)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 SONDE [SONDE...]" >&2; exit 64; }
connections=${WS_MEMORY_CONNECTIONS:-10000}
rounds=${ROUNDS:-2}
work=$(mktemp -d /tmp/sonde-ws-memory.XXXXXX)
trap 'kill "${target_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
"$1" target --json --dir "$work/target" --max-seconds 3600 > "$work/target.json" &
target_pid=$!
for _ in $(seq 1 100); do [[ -s "$work/target.json" ]] && break; sleep 0.1; done
ws=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ws'])" "$work/target.json")/ws/echo

# The median of VmRSS (KiB) sampled every second from 22 s to 32 s of a soak with N connections
# ramped over 10 s (every connection up by 20 s on this machine; the soak ends at 40 s).
held_rss() {  # sonde count → KiB
  "$1" soak "$ws" --connections "$2" --ramp 10s --duration 40s --ping-interval 10s --pong-timeout 10s \
    --connect-timeout 30s --json --output-dir "$work/soak" > "$work/soak.json" 2>/dev/null &
  local pid=$! samples=()
  sleep 22
  for _ in $(seq 1 11); do
    samples+=("$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)")
    sleep 1
  done
  wait "$pid" || true
  local up
  up=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['soaks'][0]['upAtEnd'])" "$work/soak.json" 2>/dev/null || echo "?")
  rm -rf "$work/soak"
  printf '%s\n' "${samples[@]}" | sort -n | awk -v up="$up" '{a[NR]=$1} END {print a[int((NR+1)/2)], up}'
}

echo "WebSocket memory per held connection: $connections connections, RSS held minus RSS with one, over $connections (target <= 12 KiB)"
for round in $(seq 1 "$rounds"); do
  for sonde in "$@"; do
    read -r idle _ <<< "$(held_rss "$sonde" 1)"
    read -r held up <<< "$(held_rss "$sonde" "$connections")"
    awk -v s="$sonde" -v r="$round" -v i="$idle" -v h="$held" -v n="$connections" -v up="$up" \
      'BEGIN {printf "  round %d %s: one connection %.1f MiB, %d held (%s up at the end) %.1f MiB: %.2f KiB per connection\n", r, s, i/1024, n, up, h/1024, (h-i)/n}'
  done
done
one=$(python3 "$here/scripts/bench/ws-python-client.py" hold "$ws" 1 1 20 10)
many=$(python3 "$here/scripts/bench/ws-python-client.py" hold "$ws" "$connections" 10 20 10)
python3 - "$one" "$many" "$connections" <<'PY'
import json, sys
one, many, n = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
print(f"  Python websockets (peak RSS): one connection {one['maxRssKiB']/1024:.1f} MiB, {n} held ({many['upAtEnd']} up at the end) "
      f"{many['maxRssKiB']/1024:.1f} MiB: {(many['maxRssKiB'] - one['maxRssKiB']) / n:.2f} KiB per connection")
PY
