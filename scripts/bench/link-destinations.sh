#!/usr/bin/env bash
# Measures sonde link beyond the host's loopback (docs/link.md, "Measured"): a cold connect to a
# server in a "remote" namespace behind a host route at 20/20 ms and at 0 ms (and the host's own
# connect to it), and name resolution across the link with `high-latency-dns` (dns-delay 3000 ms)
# and without delay: a dnslib resolver on the host's loopback (getent ahostsv4: one A query;
# getent hosts: AAAA then A), and the host's own resolv.conf (NAME, default example.com).
# Usage: scripts/bench/link-destinations.sh SONDE [NAME]   (root; makes and removes the namespace
# sonde-bench-remote-<pid>, the veth sbr<pid%10000>h, 10.215.n.0/30 and 10.216.n.1/32, and a dnslib
# server on 127.0.84.53:53, all ended by pid / name at exit).
set -euo pipefail
sonde=$(realpath "$1"); name=${2:-example.com}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sonde-link-dest-bench.XXXXXX)
n=$(( $$ % 250 + 1 )); ns=sonde-bench-remote-$$; veth=sbr$(( $$ % 10000 ))h; server=10.216.$n.1
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns"
ip link add "$veth" type veth peer name "${veth%h}r" netns "$ns"
ip addr add "10.215.$n.1/30" dev "$veth"; ip link set "$veth" up
ip -n "$ns" addr add "10.215.$n.2/30" dev "${veth%h}r"; ip -n "$ns" addr add "$server/32" dev lo
ip -n "$ns" link set "${veth%h}r" up; ip -n "$ns" link set lo up; ip -n "$ns" route add default via "10.215.$n.1"
ip route add "$server/32" via "10.215.$n.2"
mkdir -p "$work/www"
ip netns exec "$ns" python3 -m http.server 8000 --bind "$server" --directory "$work/www" >/dev/null 2>&1 & pids+=($!)
python3 "$here/Tests/SondeCLITests/Fixtures/dns_server.py" 127.0.84.53 53 probe.sonde.test 10.9.8.7 600 > "$work/dns.out" 2>&1 & pids+=($!)
for _ in $(seq 100); do
  [ "$(curl -s -o /dev/null --max-time 1 -w '%{http_code}' "http://$server:8000/")" = 200 ] && grep -q ready "$work/dns.out" && break
  sleep 0.2
done
printf 'nameserver 127.0.84.53\noptions attempts:1 timeout:5\n' > "$work/resolv.conf"
stats() { sort -n | awk '{a[NR]=$1} END {printf "median %.2f min %.2f max %.2f (n=%d)\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR], NR}'; }

for link in delay-down=20ms,delay-up=20ms delay-down=0ms; do
  for i in $(seq 20); do
    "$sonde" link --link "$link" -- curl -s -o /dev/null --max-time 5 -w '%{time_connect}\n' "http://$server:8000/" 2>/dev/null
  done | awk '{print $1*1000}' | { printf 'connect to the remote over %s, ms: ' "$link"; stats; }
done
for i in $(seq 20); do curl -s -o /dev/null --max-time 5 -w '%{time_connect}\n' "http://$server:8000/"; done \
  | awk '{print $1*1000}' | { printf 'connect to the remote from the host, no link, ms: '; stats; }

# One resolution, timed inside the namespace; $1: getent database, $2: name, $3: resolv.conf or "".
timed='[ -n "$3" ] && { mount --bind "$3" /etc/resolv.conf || exit 90; }; s=$(date +%s%N); getent "$1" "$2" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000 ))'
for link in high-latency-dns delay-down=0ms; do
  for query in "ahostsv4 probe.sonde.test $work/resolv.conf" "hosts probe.sonde.test $work/resolv.conf" "ahostsv4 $name "; do
    set -- $query
    resolver="host resolv.conf"; [ -n "${3:-}" ] && resolver="dnslib on 127.0.84.53"
    for i in $(seq 5); do "$sonde" link --link "$link" -- unshare --mount sh -c "$timed" sh "$1" "$2" "${3:-}" 2>/dev/null; done \
      | awk '{print $1/1000}' | { printf 'getent %s %s (%s) over %s, ms: ' "$1" "$2" "$resolver" "$link"; stats; }
  done
done
for i in $(seq 5); do unshare --mount sh -c "$timed" sh ahostsv4 "$name" ""; done \
  | awk '{print $1/1000}' | { printf 'getent ahostsv4 %s (host resolv.conf), no link, ms: ' "$name"; stats; }
