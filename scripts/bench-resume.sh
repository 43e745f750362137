#!/usr/bin/env bash
# sonde's download and resume benchmarks (section 7 of `make bench`), beside curl on a local nginx.
# Usage: scripts/bench-resume.sh [path/to/sonde]   (RESUME_BENCH_TRIALS=N changes the 100 trials)
# Loopback only; bounded. Needs about 2.5 GiB free in /tmp.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/.build/release/sonde}
trials=${RESUME_BENCH_TRIALS:-100}
work=$(mktemp -d /tmp/sonde-bench-resume.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(port); https=$(port); h2c=$(port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true; kill "${target_pid:-}" 2>/dev/null || true; rm -rf "$work" "${shm:-}"' EXIT
head -c $((1 << 30)) /dev/urandom > "$work/nginx/www/1g.bin"
head -c $((16 << 20)) /dev/urandom > "$work/nginx/www/16m.bin"

echo "7) Downloads and resume trials"
echo "   a) 1 GiB from nginx on loopback to a file in /dev/shm (so that the disk's writeback does not decide):"
echo "      sonde (an uninterrupted trial: written, SHA-256 on the way, after its reference download) beside"
echo "      curl -o (written, no hash, after an untimed curl -o /dev/null of the file);"
echo "      interleaved, 9 rounds (the machine is shared: medians); goodput medians, peak RSS of sonde's process"
shm=$(mktemp -d /dev/shm/sonde-bench.XXXXXX)
# This VM's balloon reports freed memory to the host (virtio-balloon free page reporting, about 2 s
# after the free), and the host backs a reported page again only on its next first touch: 1 GiB
# written into such pages went at 0.24-0.5 GB/s, into pages freed just before at 1.1-1.9 GB/s (dd,
# measured here), so whichever tool drew reported pages lost by up to 2x. Each tool therefore runs
# right after 1.25 GiB have been written and freed, so that both write into warm memory; the warm-up's
# own speed is printed, to show how cold the machine was.
warm() {
  dd if=/dev/zero of="$shm/warm" bs=1M count=1280 2>&1 | awk 'END { print $(NF-1) $NF }' >> "$work/warm.txt"
  rm -f "$shm/warm"
}
for round in $(seq 1 9); do
  warm
  /usr/bin/time -f "%M" -o "$work/rss.$round" "$sonde" resume "http://127.0.0.1:$http/1g.bin" --trials 1 \
    --interrupts-per-trial 0 --json --output-dir "$shm/reports" > "$work/sonde.$round.json"
  rm -rf "$shm/reports"
  warm
  # Untimed, as sonde's reference download before its trial: each tool's timed download starts
  # one uninterrupted GET after the warm-up (the balloon reports freed pages after about 2 s).
  curl -s -o /dev/null "http://127.0.0.1:$http/1g.bin"
  curl -s -o "$shm/curl.bin" -w '%{speed_download}\n' "http://127.0.0.1:$http/1g.bin" > "$work/curl.$round"
  rm -f "$shm/curl.bin"
done
rmdir "$shm"
echo "      warm-ups (1.25 GiB each, before each run): $(tr '\n' ' ' < "$work/warm.txt")"
python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
sonde, curl, rss = [], [], []
for r in range(1, 10):
    trial = json.load(open(f"{work}/sonde.{r}.json"))["resumeTrials"][0]
    assert trial["intact"], trial
    sonde.append(trial["goodputMbps"])
    curl.append(float(open(f"{work}/curl.{r}").read()) * 8 / 1e6)
    rss.append(int(open(f"{work}/rss.{r}").read().split()[-1]))
s, c = statistics.median(sonde), statistics.median(curl)
ratios = sorted(x / y for x, y in zip(sonde, curl))
print(f"      sonde {', '.join(f'{x:.0f}' for x in sonde)} Mbit/s; curl {', '.join(f'{x:.0f}' for x in curl)} Mbit/s")
print(f"      median sonde {s:.0f} Mbit/s, curl {c:.0f} Mbit/s; per-round ratios {ratios[0]:.2f}–{ratios[-1]:.2f}, "
      f"median ratio sonde/curl = {statistics.median(ratios):.2f} (target >= 0.90); "
      f"sonde peak RSS {max(rss) / 1024:.1f} MiB (target < 60 MB)")
PY

"$sonde" target --json --dir "$work/target" --max-seconds 1800 > "$work/target.json" &
target_pid=$!
for _ in $(seq 1 100); do [[ -s "$work/target.json" ]] && break; sleep 0.1; done
target=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['http'])" "$work/target.json")
for peer in "target:$target/bytes/16777216" "nginx:http://127.0.0.1:$http/16m.bin"; do
  name=${peer%%:*}; url=${peer#*:}
  echo "   b) $trials trials of a 16 MiB download from the $name, random offsets, kinds abort/drop/kill in turn"
  start=$(date +%s.%N)
  "$sonde" resume "$url" --trials "$trials" --seed 2026 --json --output-dir "$work/trials" > "$work/trials.json" || true
  end=$(date +%s.%N)
  rm -rf "$work/trials"
  python3 - "$work/trials.json" "$start" "$end" <<'PY'
import collections, json, statistics, sys
report = json.load(open(sys.argv[1]))
trials = report["resumeTrials"]
intact = sum(t["intact"] for t in trials)
kinds = collections.Counter(i["kind"] for t in trials for i in t["interruptions"])
answers = collections.Counter(i["answeredWith"] for t in trials for i in t["interruptions"])
latency = [i["resumeLatencyMs"] for t in trials for i in t["interruptions"] if i["resumeLatencyMs"] is not None]
wasted = sum(t["bytesWasted"] for t in trials)
print(f"      {intact}/{len(trials)} intact; interruptions {dict(kinds)}; answered {dict(answers)}; "
      f"bytes wasted {wasted} (unavoidable here: 0)")
print(f"      time to resume median {statistics.median(latency):.1f} ms, max {max(latency):.1f} ms; "
      f"whole run {float(sys.argv[3]) - float(sys.argv[2]):.1f} s")
PY
done
