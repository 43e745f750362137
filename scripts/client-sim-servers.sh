#!/usr/bin/env bash
# The 8 loopback servers of the client-simulation oracle test (ClientSimulationOracleTests):
# openssl s_server -www with one offer each. Writes DIR/servers.tsv (name, port) and DIR/pids.
# Usage: scripts/client-sim-servers.sh DIR BASE_PORT   (ports BASE_PORT … BASE_PORT+7)
set -euo pipefail
dir=$1; base=$2
mkdir -p "$dir"; cd "$dir"
cert() { openssl req -x509 -newkey "$1" "${@:3}" -nodes -keyout "$2.key" -out "$2.pem" -days 30 -subj /CN=localhost \
           -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null; }
cert rsa:2048 rsa
cert ec p384 -pkeyopt ec_paramgen_curve:secp384r1
cert ed25519 ed25519
: > pids; : > servers.tsv
n=0
start() { local name=$1; shift; local port=$((base + n)); n=$((n + 1))
  setsid openssl s_server -accept "127.0.0.1:$port" -www -quiet "$@" > "$name.log" 2>&1 < /dev/null &
  echo $! >> pids; printf '%s\t%s\n' "$name" "$port" >> servers.tsv; }
R="-cert rsa.pem -key rsa.key"
start rsa-default $R
start ecdsa-p384 -cert p384.pem -key p384.key
start ed25519 -cert ed25519.pem -key ed25519.key
start tls13-only $R -tls1_3
start tls12-cbc-only $R -tls1_2 -cipher 'ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:AES128-SHA:AES256-SHA:AES128-SHA256:AES256-SHA256'
start ffdhe-only $R -groups ffdhe2048
start chacha20-only $R -ciphersuites TLS_CHACHA20_POLY1305_SHA256 -cipher 'ECDHE-RSA-CHACHA20-POLY1305'
start modern $R -no_tls1 -no_tls1_1 -serverpref -groups X25519:prime256v1:secp384r1 \
  -cipher 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305'
# Wait (at most 30 s: 8 s_servers start slowly beside a release build) until every port accepts.
for _ in $(seq 300); do
  ok=1; while IFS=$'\t' read -r _ port; do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null || ok=0; done < servers.tsv
  [ $ok = 1 ] && exit 0; sleep 0.1
done
echo "the servers did not start" >&2; exit 1
