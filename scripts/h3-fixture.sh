#!/usr/bin/env bash
# Starts hypercorn (on aioquic) on loopback for the HTTP/3 tests: TCP+TLS (h2, http/1.1) on TCP_PORT
# and QUIC (h3) on UDP QUIC_PORT, serving Tests/SondeCLITests/Fixtures/h3_app.py with a leaf
# certificate for 127.0.0.1/localhost signed by a CA made here (DIR/ca.pem; not trusted by default).
# Usage: h3-fixture.sh DIR TCP_PORT QUIC_PORT. hypercorn's pid is in DIR/hypercorn.pid; it exits
# by itself after 600 s at the latest; DIR/access.log has a line per request: method, path, protocol (HTTP/3 …), status. Stop it with: kill "$(cat DIR/hypercorn.pid)".
set -euo pipefail
dir=$1 tcp=$2 quic=$3
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout ca.key -out ca.pem \
  -subj "/CN=sonde test CA" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" >/dev/null 2>&1
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout key.pem -out leaf.csr \
  -subj "/CN=127.0.0.1" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out cert.pem -extfile leaf.ext >/dev/null 2>&1
cd "$here/Tests/SondeCLITests/Fixtures"
timeout 600 python3 -m hypercorn --bind "127.0.0.1:$tcp" --quic-bind "127.0.0.1:$quic" \
  --certfile "$dir/cert.pem" --keyfile "$dir/key.pem" --access-logfile "$dir/access.log" \
  --access-logformat "%(m)s %(U)s %(H)s %(s)s" h3_app:app </dev/null >"$dir/hypercorn.log" 2>&1 &
echo $! > "$dir/hypercorn.pid"
for _ in $(seq 1 100); do
  curl -s -o /dev/null --cacert "$dir/ca.pem" "https://127.0.0.1:$tcp/" && exit 0
  sleep 0.1
done
echo "hypercorn did not start; see $dir/hypercorn.log" >&2
cat "$dir/hypercorn.log" >&2 || true
exit 1
