#!/usr/bin/env bash
# User and kernel CPU per WebSocket ping: one or more sonde builds beside the Python `websockets`
# client (scripts/bench/ws-python-client.py), interleaved in rounds against one `sonde target`
# (its own process), each holding CONNECTIONS connections that ping every PING_S seconds.
# CPU is read from /proc/PID/stat over the hold window only (WINDOW_S seconds, starting 5 s after
# the ramp), so connection set-up is left out; pings in the window = CONNECTIONS × WINDOW_S / PING_S.
# Usage: scripts/bench/ws-cpu-per-ping.sh [-n CONNECTIONS] [-i PING_S] [-w WINDOW_S] [-r ROUNDS] LABEL=SONDE...
# Defaults: 10000 connections, 10 s, 50 s, 3 rounds (bench-ws.sh b's shape); loopback only, bounded
# (about ROUNDS × (clients) × (WINDOW_S + 22) s).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
connections=10000 interval=10 window=50 rounds=3 ramp=10
while getopts "n:i:w:r:" opt; do
  case $opt in
    n) connections=$OPTARG ;; i) interval=$OPTARG ;; w) window=$OPTARG ;; r) rounds=$OPTARG ;;
    *) echo "usage: $0 [-n N] [-i PING_S] [-w WINDOW_S] [-r ROUNDS] LABEL=SONDE..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || { echo "$0: name at least one LABEL=path/to/sonde" >&2; exit 2; }
for n in "$connections" "$interval" "$window" "$rounds"; do
  [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 100000 ]] || { echo "$0: $n is not a whole number in 1...100000" >&2; exit 2; }
done
work=$(mktemp -d /tmp/sonde-ws-cpu.XXXXXX)
trap 'kill "${target_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
first=${1#*=}
"$first" target --json --dir "$work/target" --max-seconds 7200 > "$work/target.json" &
target_pid=$!
for _ in $(seq 1 100); do [[ -s "$work/target.json" ]] && break; sleep 0.1; done
ws=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ws'])" "$work/target.json")/ws/echo
duration=$((ramp + 5 + window + 5))
cpu() { awk '{print $14, $15}' "/proc/$1/stat" 2>/dev/null || echo 0 0; }  # clock ticks (USER_HZ)
window_cpu() {  # pid → "user kernel" ticks over the hold window
  sleep $((ramp + 5)); local a b; a=$(cpu "$1"); sleep "$window"; b=$(cpu "$1")
  echo "$a $b" | awk '{print $3 - $1, $4 - $2}'
}
echo "# $connections connections, a ping every $interval s, window $window s after a $ramp s ramp, $rounds rounds;" \
     "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for round in $(seq 1 "$rounds"); do
  for spec in "$@" "python=python"; do
    label=${spec%%=*} bin=${spec#*=}
    if [[ $label == python ]]; then
      python3 "$here/scripts/bench/ws-python-client.py" hold "$ws" "$connections" "$ramp" $((duration - ramp)) "$interval" > "$work/py.json" &
      pid=$!
    else
      rm -rf "$work/soak"
      "$bin" soak "$ws" --connections "$connections" --ramp "${ramp}s" --duration "${duration}s" --ping-interval "${interval}s" \
        --pong-timeout "${interval}s" --connect-timeout 30s --json --output-dir "$work/soak" > "$work/soak.json" &
      pid=$!
    fi
    ticks=$(window_cpu "$pid")
    wait "$pid" || true
    if [[ $label == python ]]; then
      up=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['upAtEnd'])" "$work/py.json" 2>/dev/null || echo "?")
    else
      up=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['soaks'][0]['upAtEnd'])" "$work/soak.json" 2>/dev/null || echo "?")
    fi
    echo "$round $label $ticks $up $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/rows"
  done
done
python3 - "$work/rows" "$connections" "$interval" "$window" "$(getconf CLK_TCK)" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
n, interval, window, hz = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
pings = n * window / interval
per = {}  # label -> round -> (user us/ping, kernel us/ping)
for r, label, user, kernel, up, load in rows:
    per.setdefault(label, {})[int(r)] = (int(user) / hz / pings * 1e6, int(kernel) / hz / pings * 1e6)
print(f"# per ping ({pings:.0f} pings in each window), user + kernel µs; up = connections up at the end; load = 1-min load average after the run")
for r, label, user, kernel, up, load in rows:
    u, k = per[label][int(r)]
    print(f"round {r} {label:>8}: user {u:6.1f} µs  kernel {k:6.1f} µs  up {up}  load {load}")
# A round in which a client lost connections (Python's under heavy load: pong timeouts) did not
# do the same work: it is shown but left out of the medians and ratios.
complete = {int(r) for r, label, user, kernel, up, load in rows}
for r, label, user, kernel, up, load in rows:
    if up != str(n):
        complete.discard(int(r))
        print(f"# round {r} left out of the medians: {label} had {up} of {n} connections up at the end")
per = {label: {r: v for r, v in rounds.items() if r in complete} for label, rounds in per.items()}
if not complete:
    sys.exit("no round had every connection up in every client")
py = per["python"]
for label, rounds in per.items():
    users = [u for u, _ in rounds.values()]; kernels = [k for _, k in rounds.values()]
    line = f"median {label:>8}: user {statistics.median(users):6.1f} µs  kernel {statistics.median(kernels):6.1f} µs"
    if label != "python":
        ratios = [rounds[r][0] / py[r][0] for r in rounds if r in py and py[r][0] > 0]
        if ratios:
            line += (f"  user ratio to Python's in the same round: {', '.join(f'{x:.3f}' for x in ratios)}; "
                     f"median {statistics.median(ratios):.3f} = 1/{1 / statistics.median(ratios):.1f} (target <= 1/5 = 0.200)")
    print(line)
PY
