#!/usr/bin/env bash
# A long soak against the embedded target with every WebSocket fault mode on, one soak per
# mode, all at once, plus one soak that is SIGKILLed near the end and rebuilt from its journal.
# Checks each: recovered (passed, the connection up at the end), every message accounted for
# (sent = received + lost + corrupted, nothing corrupted or duplicated), and prints a table.
# Usage: scripts/soak-faults.sh [path/to/sonde] [duration, default 10m]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/.build/debug/sonde}
duration=${2:-10m}
work=$(mktemp -d /tmp/sonde-soak-faults.XXXXXX)
seconds=$(python3 -c "import sys; v=sys.argv[1]; print(float(v[:-1])*{'s':1,'m':60,'h':3600}[v[-1]] if v[-1] in 'smh' else float(v))" "$duration")
"$sonde" target --json --dir "$work/target" --max-seconds "$(python3 -c "print(int($seconds + 120))")" > "$work/target.json" &
target=$!
trap 'kill $target 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do [[ -s "$work/target.json" ]] && break; sleep 0.1; done
ws=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ws'])" "$work/target.json")/ws/echo
key=$RANDOM$RANDOM
modes=(
  "closeAfter=20&code=4000&reason=rotate"
  "dropAfter=25"
  "resetAfter=30"
  "noPong=1"
  "pongDelay=400"
  "refuse=3&status=503&key=$key&dropAfter=40"
  "idleTimeout=5"
  "restartEvery=45"
  "pingEvery=3"
)
common=(--duration "$duration" --ping-interval 2s --pong-timeout 3s --message-rate 5 --backoff-initial 200ms --backoff-max 5s)
echo "soaking ${#modes[@]} fault modes for $duration against $ws (work dir $work)"
pids=()
for i in "${!modes[@]}"; do
  "$sonde" soak "$ws?${modes[$i]}" "${common[@]}" --output-dir "$work/mode$i" > "$work/mode$i.log" 2>&1 &
  pids+=($!)
done
"$sonde" soak "$ws?dropAfter=15" "${common[@]}" --output-dir "$work/killed" > /dev/null 2>&1 &
killed=$!
sleep "$(python3 -c "print(max(1, $seconds - 30))")"
kill -9 "$killed"
wait "$killed" || true
"$sonde" report "$work"/killed/* > "$work/killed-report.log" 2>&1 || true
for pid in "${pids[@]}"; do wait "$pid" || true; done
python3 - "$work" "${modes[@]}" <<'PY'
import glob, json, sys
work, modes = sys.argv[1], sys.argv[2:]
ok = True
print(f"{'fault mode':48} {'passed':6} {'up':>3} {'attempts':>8} {'failed':>6} {'reconnects':>10} {'causes':32} {'sent':>6} {'recv':>6} {'lost':>5} {'corr':>4}  accounted")
def row(name, path):
    global ok
    soak = json.load(open(path))["soaks"][0]
    m = soak["messages"]
    accounted = m["sent"] == m["received"] + m["lost"] + m["corrupted"] and m["corrupted"] == 0 and m["duplicated"] == 0
    causes = ",".join(f"{k}:{v}" for k, v in sorted(soak["disconnects"]["byCause"].items()) if k != "runEnded")
    failed = sum(soak["reconnects"]["failedAttempts"].values())
    print(f"{name[:48]:48} {str(soak['passed']):6} {soak['upAtEnd']:>3} {len(soak['attempts']):>8} {failed:>6} {soak['reconnects']['count']:>10} "
          f"{causes[:32]:32} {m['sent']:>6} {m['received']:>6} {m['lost']:>5} {m['corrupted']:>4}  {accounted}")
    return soak, accounted
for i, mode in enumerate(modes):
    soak, accounted = row(mode, glob.glob(f"{work}/mode{i}/*/report.json")[0])
    # Recovered: up at the end, or the last disconnect came so late that the backoff (at most
    # 5 s here) and a handshake could not fit in what was left of the run.
    last = soak["attempts"][-1]
    def seconds(stamp):
        from datetime import datetime
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
    late = last["closedAt"] is not None and seconds(soak["finishedAt"]) - seconds(last["closedAt"]) < 8
    recovered = soak["upAtEnd"] == 1 or (late and last["cause"] != "runEnded")
    ok &= soak["passed"] and recovered and accounted
killed = glob.glob(f"{work}/killed/*")[0]
report = json.load(open(f"{killed}/report.json"))
soak, accounted = row("dropAfter=15, SIGKILLed, rebuilt", f"{killed}/report.json")
lines = sum(1 for _ in open(f"{killed}/journal.jsonl"))
unreadable = [w for w in report["run"]["warnings"] if "unreadable" in w]
print(f"killed run: status {report['run']['status']}, {lines} journal lines, unreadable lines: {unreadable or 'none'}")
ok &= report["run"]["status"] == "interrupted" and accounted
print("ALL RECOVERED AND ACCOUNTED" if ok else "PROBLEMS: see the table")
sys.exit(0 if ok else 1)
PY
