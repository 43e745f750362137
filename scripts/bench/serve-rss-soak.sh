#!/usr/bin/env bash
# serve's RSS over a long run (issue 44, target 2): sonde serve with 50 probe checks every 10 s (https, the
# embedded target on loopback, as scripts/bench-serve.sh b), VmRSS, RssAnon and RssFile every minute for MINUTES
# (60 by default); prints each sample, then the growth from minute 5 to the end and a least-squares slope.
# Usage: scripts/bench/serve-rss-soak.sh SONDE [MINUTES]   (loopback only; bounded: MINUTES + 1 min)
set -euo pipefail
sonde=$(realpath "$1"); minutes=${2:-60}
[[ $minutes =~ ^[0-9]+$ ]] && (( minutes >= 2 && minutes <= 240 )) || { echo "MINUTES: 2 to 240" >&2; exit 64; }
work=$(mktemp -d /tmp/sonde-rss-soak.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$sonde" target --json --dir "$work/target" --max-seconds $(( (minutes + 3) * 60 )) > "$work/target.json" &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$work/target.json" ]] && break; sleep 0.1; done
field() { python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])" "$work/target.json" "$1"; }
https=$(field https); ca=$(field caFile)
{
  printf 'allow: []\nparallel: 8\nkeep: {days: 1}\ndefaults: {every: 10s, cacert: "%s"}\nchecks:\n' "$ca"
  for i in $(seq 1 50); do printf '  - {name: c%02d, kind: probe, urls: ["%s/bytes/2048"]}\n' "$i" "$https"; done
} > "$work/fifty.yml"
env ${SONDE_ENV:-} "$sonde" serve --config "$work/fifty.yml" --listen 127.0.0.1:0 --output-dir "$work/runs" > "$work/serve.log" 2>&1 &
serve=$!; pids+=($serve)
echo "serve-rss-soak: $sonde, 50 checks every 10 s, $minutes min; $(date -u +%FT%TZ)"
echo "minute VmRSS_MiB RssAnon_MiB RssFile_MiB threads runs_ended"
for minute in $(seq 1 "$minutes"); do
  sleep 60
  kill -0 "$serve" 2>/dev/null || { echo "serve ended early" >&2; tail -5 "$work/serve.log" >&2; exit 1; }
  awk -v m="$minute" -v runs="$(grep -c 'check c[0-9]*: [a-z]* in ' "$work/serve.log" || true)" '
    $1 == "VmRSS:" {r = $2} $1 == "RssAnon:" {a = $2} $1 == "RssFile:" {f = $2} $1 == "Threads:" {t = $2}
    END {printf "%d %.1f %.1f %.1f %d %d\n", m, r / 1024, a / 1024, f / 1024, t, runs}' "/proc/$serve/status" | tee -a "$work/series"
done
python3 - "$work/series" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
tail = [r for r in rows if r[0] >= 5] or rows
n = len(tail); xs = [r[0] for r in tail]; ys = [r[1] for r in tail]
mx, my = sum(xs) / n, sum(ys) / n
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / max(1e-9, sum((x - mx) ** 2 for x in xs))
print(f"VmRSS minute {tail[0][0]:.0f} -> {tail[-1][0]:.0f}: {tail[0][1]:.1f} -> {tail[-1][1]:.1f} MiB (growth {tail[-1][1] - tail[0][1]:+.1f}), "
      f"slope {slope * 60:+.2f} MiB/hour; RssAnon {tail[0][2]:.1f} -> {tail[-1][2]:.1f} MiB; min {min(ys):.1f}, max {max(ys):.1f}; "
      f"runs ended {rows[-1][5]:.0f}")
PY
