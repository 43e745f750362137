#!/usr/bin/env bash
# Measures sonde link (docs/link.md, "Measured"): cold connect over 40/40 ms, TLS's extra round
# trip, a 10 MB download at 8 Mbit/s, 1 % loss over 20,000+ packets with a capture on the
# namespace's TUN, the emulator's CPU at 100 Mbit/s, and the per-packet error on the wifi profile;
# a 10 MB upload at 8 Mbit/s (capture on the host's TUN) and a QUIC connect over 40/40 ms
# (`sonde probe --http3-only` against hypercorn, with a capture inside the link).
# Usage: scripts/bench/link.sh SONDE [SECTION...]   (root; loopback only; nginx from
# scripts/nginx-fixture.sh, stopped by its pid at the end). Sections: connect tls rate loss cpu
# cpu50 cpu-delta error upload quic tundrops jitter. `cpu50` (issue 44 target 5): the emulator
# thread's and sonde's CPU at 50 Mbit/s; BEFORE=PATH puts another sonde beside SONDE, interleaved.
# `error`: GAP_MS=G sends the datagrams G ms apart without waiting for echoes (a dense stream).
# `tundrops` (issue 39): 100 MB over 5/5 ms with no
# rate, the kernel's drop counters of both TUNs (`ip -s link`) beside sonde's counters and
# captures on both TUNs; TUNQ=N passes --tun-queue N (a sonde without it: leave TUNQ unset).
# `jitter`: RTT of pings 1 s and 2 ms apart and of TCP connects over 50/50 ms with jitter=20ms.
set -euo pipefail
sonde=$(realpath "$1"); shift
sections=${*:-connect tls rate loss cpu error upload quic}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sonde-link-bench.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(free_port); https=$(free_port); h2c=$(free_port)
"$here/scripts/nginx-fixture.sh" "$work/nginx" "$http" "$https" "$h2c"
trap 'kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true' EXIT
head -c 10000000 /dev/urandom > "$work/nginx/www/10m.bin"
head -c 100000000 /dev/zero > "$work/nginx/www/100m.bin"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for section in $sections; do case $section in
connect)
  for i in $(seq 20); do
    "$sonde" link --link 'delay-down=40ms,delay-up=40ms' -- curl -s -o /dev/null -w '%{time_connect}\n' "http://127.0.0.1:$http/1k.bin" 2>/dev/null
  done | awk '{print $1*1000}' > "$work/connect.txt"
  echo "connect (ms, 20 cold runs): median $(median < "$work/connect.txt") min $(sort -n "$work/connect.txt" | head -1) max $(sort -n "$work/connect.txt" | tail -1)"
  ;;
tls)
  for i in $(seq 20); do
    "$sonde" link --link 'delay-down=40ms,delay-up=40ms' -- curl -s -k --tlsv1.3 -o /dev/null -w '%{time_connect} %{time_appconnect}\n' "https://127.0.0.1:$https/1k.bin" 2>/dev/null
  done | awk '{print ($2-$1)*1000}' > "$work/tls.txt"
  echo "TLS 1.3 handshake (appconnect - connect, ms, 20 runs): median $(median < "$work/tls.txt") min $(sort -n "$work/tls.txt" | head -1) max $(sort -n "$work/tls.txt" | tail -1)"
  for i in $(seq 20); do
    curl -s -k --tlsv1.3 -o /dev/null -w '%{time_connect} %{time_appconnect}\n' "https://127.0.0.1:$https/1k.bin" 2>/dev/null
  done | awk '{print ($2-$1)*1000}' > "$work/tls-base.txt"
  echo "the same handshake without the link: median $(median < "$work/tls-base.txt") ms; the link adds $(echo "$(median < "$work/tls.txt") $(median < "$work/tls-base.txt")" | awk '{printf "%.2f", $1-$2}') ms (one RTT: 80)"
  ;;
rate)
  # The server's congestion control is the host's (the namespace's sysctl would set only the client's).
  cc=$(sysctl -n net.ipv4.tcp_congestion_control)
  "$sonde" link --link 'rate-down=8Mbit,delay-down=20ms,delay-up=20ms,queue=64KiB' -- sh -c "
    dev=\$(ip -o link | awk -F': ' '/sonde[0-9]+c/{print \$2; exit}');
    tcpdump -i \$dev -w $work/rate.pcap -U --immediate-mode -s 64 'tcp src port $http' 2>/dev/null & tp=\$!; sleep 1;
    curl -s -o /dev/null -w '%{speed_download} %{time_total} %{size_download}\n' http://127.0.0.1:$http/10m.bin; sleep 0.3; kill -TERM \$tp; wait \$tp; true" \
    2> "$work/rate.err" > "$work/rate.txt"
  awk -v cc="$cc" '{printf "10 MB at rate-down=8Mbit (server cc %s): goodput %.3f Mbit/s over %.2f s (whole transfer, slow start included)\n", cc, $1*8/1e6, $2}' "$work/rate.txt"
  python3 "$here/scripts/bench/link-rate.py" "$work/rate.pcap" 2
  grep -E "down:" "$work/rate.err" | sed 's/^/    /'
  ;;
upload)
  sink=$(free_port)
  python3 "$here/scripts/bench/link-sink.py" "$sink" > "$work/sink.log" 2>&1 & sink_pid=$!
  for _ in $(seq 50); do grep -q ready "$work/sink.log" 2>/dev/null && break; sleep 0.1; done
  "$sonde" link --link 'rate-up=8Mbit,delay-down=20ms,delay-up=20ms,queue=64KiB' -- sh -c "sleep 1.5;
    curl -s -o /dev/null -w '%{speed_upload} %{time_total} %{size_upload}\n' --data-binary @$work/nginx/www/10m.bin http://127.0.0.1:$sink/" \
    > "$work/upload.txt" 2> "$work/upload.err" & link_pid=$!
  for _ in $(seq 50); do ip link show "sonde${link_pid}h" >/dev/null 2>&1 && break; sleep 0.05; done
  tcpdump -i "sonde${link_pid}h" -w "$work/upload.pcap" -U --immediate-mode -s 64 "tcp dst port $sink" 2>/dev/null & tp=$!
  wait "$link_pid" || true
  sleep 0.3; kill -TERM "$tp" 2>/dev/null || true; wait "$tp" 2>/dev/null || true; kill "$sink_pid" 2>/dev/null || true
  awk '{printf "10 MB upload at rate-up=8Mbit: goodput %.3f Mbit/s over %.2f s (whole transfer, slow start included)\n", $1*8/1e6, $2}' "$work/upload.txt"
  python3 "$here/scripts/bench/link-rate.py" "$work/upload.pcap" 2
  grep -E "up:" "$work/upload.err" | sed 's/^/    /'
  ;;
quic)
  tcp=$(free_port); quic=$(free_port)
  "$here/scripts/h3-fixture.sh" "$work/h3" "$tcp" "$quic"
  for i in $(seq 20); do
    "$sonde" link --link 'delay-down=40ms,delay-up=40ms' -- sh -c "
      tcpdump -i \$(ip -o link | awk -F': ' '/sonde[0-9]+c/{print \$2; exit}') -w $work/quic-$i.pcap -U --immediate-mode -s 96 'udp port $quic' 2>/dev/null & tp=\$!; sleep 0.5;
      '$sonde' probe --http3-only --json --cacert $work/h3/ca.pem --output-dir $work/quic-runs https://127.0.0.1:$quic/1k.bin; sleep 0.2; kill -TERM \$tp; wait \$tp; true" \
      2>/dev/null | python3 -c 'import json,sys; t=json.load(sys.stdin)["probes"][0]["transactionMetrics"][0]["phases"]; print(t["connect"], t["tls"] or 0)'
    python3 "$here/scripts/bench/link-quic.py" "$work/quic-$i.pcap" "$quic" | awk '{print $(NF-5)}' >> "$work/quic-capture.txt"
  done > "$work/quic.txt"
  for i in $(seq 20); do
    "$sonde" probe --http3-only --json --cacert "$work/h3/ca.pem" --output-dir "$work/quic-runs" "https://127.0.0.1:$quic/1k.bin" 2>/dev/null \
      | python3 -c 'import json,sys; t=json.load(sys.stdin)["probes"][0]["transactionMetrics"][0]["phases"]; print(t["connect"])'
  done > "$work/quic-base.txt"
  kill "$(cat "$work/h3/hypercorn.pid")" 2>/dev/null || true
  echo "QUIC connect over 40/40 ms (sonde's connect phase, 20 cold runs): median $(awk '{print $1}' "$work/quic.txt" | median) min $(awk '{print $1}' "$work/quic.txt" | sort -n | head -1) max $(awk '{print $1}' "$work/quic.txt" | sort -n | tail -1); tls after it median $(awk '{print $2}' "$work/quic.txt" | median)"
  echo "the same without a link: median $(median < "$work/quic-base.txt"); the capture inside the link, first client to first server datagram: median $(median < "$work/quic-capture.txt") ms"
  ;;
loss)
  ns_pcap="$work/loss.pcap"
  "$sonde" link --link 'loss-down=1%,loss-up=1%,delay-down=5ms,delay-up=5ms' -- sh -c "
    tcpdump -i \$(ip -o link | awk -F': ' '/sonde[0-9]+c/{print \$2; exit}') -w $ns_pcap -U --immediate-mode -s 128 2>/dev/null & tp=\$!; sleep 1;
    curl -s -o /dev/null -w '%{size_download} %{time_total}\n' http://127.0.0.1:$http/100m.bin --max-time 40; sleep 0.5; kill -TERM \$tp; wait \$tp; true" \
    2> "$work/loss.err" > "$work/loss.txt"
  cat "$work/loss.txt"; grep -E "down:|up:" "$work/loss.err"
  echo "capture on the namespace's TUN: $(tshark -r "$ns_pcap" -Y 'tcp.analysis.retransmission || tcp.analysis.out_of_order || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission' 2>/dev/null | wc -l) retransmitted or out-of-order data segments (tshark calls a fast retransmission out of order)"
  ;;
cpu-delta)
  # What the link adds to the machine's CPU for one transfer, not only its thread's share: the same
  # 100 MB at 100 Mbit/s with the link (rate-down=100Mbit) and without it (curl --limit-rate), CPU
  # seconds of nginx's workers + curl (+ sonde) from their rusage. Without a link the receiving
  # TCP's work runs in nginx's send over loopback; with it, in the emulator's TUN write.
  workers=$(pgrep -P "$(cat "$work/nginx/nginx.pid")" | tr '\n' ' ')
  nginx_cpu() { for w in $workers; do awk '{print $14+$15}' "/proc/$w/stat"; done | awk -v t="$(getconf CLK_TCK)" '{s+=$1} END {print s/t}'; }
  rusage() { python3 -c 'import resource,subprocess,sys,time; t=time.time(); subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); r=resource.getrusage(resource.RUSAGE_CHILDREN); print(r.ru_utime, r.ru_stime, time.time()-t)' "$@"; }
  for round in 1 2 3; do
    n0=$(nginx_cpu); read -r u s wall < <(rusage "$sonde" link --link 'rate-down=100Mbit,delay-down=5ms,delay-up=5ms,queue=256KiB' -- curl -s -o /dev/null "http://127.0.0.1:$http/100m.bin"); n1=$(nginx_cpu)
    with=$(echo "$u $s $n0 $n1 $wall" | awk '{printf "%.3f %.2f", $1+$2+$4-$3, $5}')
    n0=$(nginx_cpu); read -r u s wall < <(rusage curl -s -o /dev/null --limit-rate 12500000 "http://127.0.0.1:$http/100m.bin"); n1=$(nginx_cpu)
    without=$(echo "$u $s $n0 $n1 $wall" | awk '{printf "%.3f %.2f", $1+$2+$4-$3, $5}')
    echo "$with $without"
  done > "$work/cpu-delta.txt"
  awk '{printf "round %d: with the link %.3f CPU s over %.2f s, without %.3f CPU s over %.2f s: the link adds %.1f%% of a core\n", NR, $1, $2, $3, $4, ($1-$3)/$2*100}' "$work/cpu-delta.txt"
  echo "median added: $(awk '{print ($1-$3)/$2*100}' "$work/cpu-delta.txt" | median)% of a core"
  ;;
cpu)
  for rate in 100Mbit; do
    "$sonde" link ${SPIN:+--spin $SPIN} ${SPIN_SHARE:+--spin-share $SPIN_SHARE} --link "rate-down=$rate,delay-down=5ms,delay-up=5ms,queue=256KiB" -- \
      curl -s -o /dev/null -w '%{speed_download}\n' "http://127.0.0.1:$http/100m.bin" > "$work/cpu.txt" 2> "$work/cpu.err" &
    pid=$!
    sleep 1.5
    tid=$(grep -l '^sonde-link$' /proc/$pid/task/*/comm | head -1 | xargs dirname | xargs basename)
    read -r u0 k0 < <(awk '{print $14, $15}' /proc/$pid/task/$tid/stat); s0=$(date +%s.%N)
    sleep 5
    read -r u1 k1 < <(awk '{print $14, $15}' /proc/$pid/task/$tid/stat); s1=$(date +%s.%N)
    wait $pid || true
    echo "$u0 $k0 $u1 $k1 $s0 $s1 $(getconf CLK_TCK)" | awk -v rate="$rate" -v goodput="$(awk '{printf "%.1f", $1*8/1e6}' "$work/cpu.txt")" \
      '{w=$6-$5; printf "emulator thread at rate-down=%s: %.1f%% of a core over 5 s (user %.1f%%, system %.1f%%); goodput %s Mbit/s\n", rate, ($3+$4-$1-$2)/$7/w*100, ($3-$1)/$7/w*100, ($4-$2)/$7/w*100, goodput}'
  done
  ;;
cpu50)
  # Issue 44 target 5 (the emulator <= 20 % of a core at 50 Mbit/s): 100 MB from nginx over
  # rate-down=50Mbit, the CPU of the emulator thread and of the whole sonde process over the same
  # 10 s window of the transfer (/proc/PID/task/TID/stat and /proc/PID/stat, utime + stime), and
  # the goodput. BEFORE=PATH runs that sonde too, interleaved round by round (ROUNDS, default 3).
  bins=$sonde; [ -n "${BEFORE:-}" ] && bins="$(realpath "$BEFORE") $sonde"
  : > "$work/cpu50.txt"
  for round in $(seq "${ROUNDS:-3}"); do for bin in $bins; do
    "$bin" link ${SPIN:+--spin $SPIN} ${SPIN_SHARE:+--spin-share $SPIN_SHARE} --link 'rate-down=50Mbit,delay-down=5ms,delay-up=5ms,queue=256KiB' -- \
      curl -s -o /dev/null -w '%{speed_download}\n' "http://127.0.0.1:$http/100m.bin" > "$work/cpu50.out" 2> "$work/cpu50.err" &
    pid=$!
    sleep 1.5
    tid=$(grep -l '^sonde-link$' /proc/$pid/task/*/comm | head -1 | xargs dirname | xargs basename)
    read -r u0 k0 < <(awk '{print $14, $15}' /proc/$pid/task/$tid/stat); read -r pu0 pk0 < <(awk '{print $14, $15}' /proc/$pid/stat); s0=$(date +%s.%N)
    sleep 10
    read -r u1 k1 < <(awk '{print $14, $15}' /proc/$pid/task/$tid/stat); read -r pu1 pk1 < <(awk '{print $14, $15}' /proc/$pid/stat); s1=$(date +%s.%N)
    wait $pid || true
    echo "$round $bin $u0 $k0 $u1 $k1 $pu0 $pk0 $pu1 $pk1 $s0 $s1 $(getconf CLK_TCK) $(awk '{printf "%.1f", $1*8/1e6}' "$work/cpu50.out")" >> "$work/cpu50.txt"
    tail -1 "$work/cpu50.txt" | awk '{w=$12-$11; t=$13; printf "round %d %s: emulator thread %.1f%% of a core (user %.1f%%, system %.1f%%), sonde process %.1f%%; goodput %s Mbit/s\n",
      $1, $2, ($5+$6-$3-$4)/t/w*100, ($5-$3)/t/w*100, ($6-$4)/t/w*100, ($9+$10-$7-$8)/t/w*100, $14}'
  done; done
  for bin in $bins; do
    echo "median over $(grep -c " $bin " "$work/cpu50.txt") rounds, $bin: thread $(awk -v b="$bin" '$2==b {print ($5+$6-$3-$4)/$13/($12-$11)*100}' "$work/cpu50.txt" | median)% of a core, process $(awk -v b="$bin" '$2==b {print ($9+$10-$7-$8)/$13/($12-$11)*100}' "$work/cpu50.txt" | median)%"
  done
  ;;
tundrops)
  for round in 1 2 3; do
    "$sonde" link --json ${TUNQ:+--tun-queue $TUNQ} --link 'delay-down=5ms,delay-up=5ms' -- sh -c "
      dev=\$(ip -o link | awk -F': ' '/sonde[0-9]+c/{print \$2; exit}'); host=\$(echo \$dev | sed 's/c\\([0-9]*\\)\$/h\\1/'); hostns=/proc/\$PPID/ns/net
      tcpdump -i \$dev -nn -s 96 -B 16384 -U --immediate-mode -w $work/td-client.pcap 'tcp src port $http' 2>$work/td-client.log & c=\$!
      nsenter --net=\$hostns tcpdump -i \$host -nn -s 96 -B 16384 -U --immediate-mode -w $work/td-host.pcap 'tcp src port $http' 2>$work/td-host.log & h=\$!
      i=0; until grep -q listening $work/td-client.log && grep -q listening $work/td-host.log || [ \$i -ge 200 ]; do sleep 0.1; i=\$((i+1)); done; sleep 0.2
      curl -s -o /dev/null -w '%{size_download} %{time_total}\n' http://127.0.0.1:$http/100m.bin --max-time 60; sleep 0.5
      ip -j -s link show dev \$dev > $work/td-client.json; nsenter --net=\$hostns ip -j -s link show dev \$host > $work/td-host.json
      kill -INT \$c \$h; wait \$c \$h; true" > "$work/td.txt" 2> "$work/td.err"
    hc=$(tcpdump -nn -r "$work/td-host.pcap" 2>/dev/null | wc -l); cc=$(tcpdump -nn -r "$work/td-client.pcap" 2>/dev/null | wc -l)
    python3 - "$work" "$hc" "$cc" "$round" <<'PY'
import json, sys
work, hc, cc, rnd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def drops(name):
    s = json.load(open(f"{work}/td-{name}.json"))[0]["stats64"]
    return s["rx"]["dropped"], s["tx"]["dropped"], s["tx"]["packets"]
hrx, htx, hpk = drops("host"); crx, ctx, cpk = drops("client")
line = [l for l in open(f"{work}/td.err") if l.startswith("{")]
down = json.loads(line[-1])["counters"]["down"] if line else {}
reported = sum(down.get(k, 0) for k in ("droppedByLoss", "droppedByQueue", "droppedByOutage", "droppedByTUNQueue", "droppedByTUNWrite"))
size, secs = open(f"{work}/td.txt").read().split()[:2]
tcp = [l.strip() for l in open(f"{work}/td-host.log") if "dropped by kernel" in l] + [l.strip() for l in open(f"{work}/td-client.log") if "dropped by kernel" in l]
print(f"round {rnd}: {int(size)/1e6:.0f} MB in {float(secs):.2f} s ({int(size)*8/float(secs)/1e6:.0f} Mbit/s); ip -s link: host TUN tx_dropped {htx} of {htx+hpk} "
      f"({htx/(htx+hpk)*100 if hpk else 0:.2f} %), rx_dropped {hrx}; namespace TUN tx_dropped {ctx}, rx_dropped {crx}; "
      f"sonde's down counters: {reported} dropped (TUN queue {down.get('droppedByTUNQueue', 'absent')}); "
      f"captures: {hc} server packets on the host's TUN, {cc} inside, {hc-cc} lost; tcpdump: {'; '.join(tcp)}")
PY
  done
  ;;
jitter)
  port=$(free_port)
  python3 "$here/scripts/bench/link-udp-echo.py" server "$port" 90 & echo_pid=$!
  echo "without jitter (the same streams over 50/50 ms):"
  "$sonde" link --link 'delay-down=50ms,delay-up=50ms' -- sh -c "
    python3 $here/scripts/bench/link-udp-echo.py stream $port 300 100; python3 $here/scripts/bench/link-udp-echo.py stream $port 1000 2" 2>/dev/null
  echo "with jitter=20ms:"
  "$sonde" link --link 'delay-down=50ms,delay-up=50ms,jitter=20ms' -- sh -c "
    python3 $here/scripts/bench/link-udp-echo.py stream $port 300 100; python3 $here/scripts/bench/link-udp-echo.py stream $port 1000 2;
    for i in \$(seq 30); do curl -s -o /dev/null -w '%{time_connect}\n' http://127.0.0.1:$http/1k.bin; done | awk '{s+=\$1} END {printf \"curl connect (SYN to SYN-ACK, one packet each way), mean of %d: %.1f ms\\n\", NR, s/NR*1000}'
    curl -s -o /dev/null http://127.0.0.1:$http/10m.bin & sleep 1.5;
    echo \"the server's smoothed RTT during a 10 MB download: \$(nsenter --net=/proc/\$PPID/ns/net ss -tin src :$http | grep -o ' rtt:[0-9.]*' | head -1)\"; wait" 2>/dev/null
  kill "$echo_pid" 2>/dev/null || true
  ;;
error)
  # Per-packet error on the wifi profile (1 ms each way, 40/33 Mbit/s): captures on both TUNs
  # (the host side's from here, the namespace's with ip netns exec), UDP echoes matched by payload.
  port=$(free_port)
  python3 "$here/scripts/bench/link-udp-echo.py" server "$port" 30 & echo_pid=$!
  # GAP_MS=G sends the 2,000 datagrams G ms apart without waiting for echoes (a dense stream).
  client=${GAP_MS:+stream $port 2000 $GAP_MS}; client=${client:-client $port 2000}
  "$sonde" link ${SPIN:+--spin $SPIN} ${SPIN_SHARE:+--spin-share $SPIN_SHARE} ${NO_RT:+--no-realtime} --link wifi -- sh -c "sleep 2; python3 $here/scripts/bench/link-udp-echo.py $client" \
    > "$work/error.txt" 2> "$work/error.err" & link_pid=$!
  for _ in $(seq 50); do ip netns list | grep -q "sonde-link-$link_pid" && break; sleep 0.05; done
  tcpdump -i "sonde${link_pid}h" -w "$work/host.pcap" -U --immediate-mode -s 96 udp 2>/dev/null & a=$!
  ip netns exec "sonde-link-$link_pid" tcpdump -i "sonde${link_pid}c" -w "$work/client.pcap" -U --immediate-mode -s 96 udp 2>/dev/null & b=$!
  wait $link_pid || true
  kill -TERM $a $b 2>/dev/null || true; wait $a $b 2>/dev/null || true; kill $echo_pid 2>/dev/null || true
  cat "$work/error.txt"
  python3 "$here/scripts/bench/link-delay-error.py" "$work/host.pcap" "$work/client.pcap" 1 1 33e6 40e6
  ;;
esac; done
echo "work folder: $work"
