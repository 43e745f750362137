#!/usr/bin/env bash
# Starts nginx on loopback with the test fixture config: HTTP/1.1, TLS (h1 + h2) and h2c, with a
# self-signed certificate for 127.0.0.1/localhost. Usage: nginx-fixture.sh DIR HTTP HTTPS H2C [PROTOCOLS]
# PROTOCOLS: the TLS versions offered (nginx ssl_protocols), "TLSv1.2 TLSv1.3" by default.
# Prints nothing; nginx's pid is in DIR/nginx.pid. Stop it with: kill "$(cat DIR/nginx.pid)".
set -euo pipefail
dir=$1 http=$2 https=$3 h2c=$4 protocols=${5:-TLSv1.2 TLSv1.3}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir/www" "$dir/tmp"
head -c 1024 /dev/zero | tr '\0' 'a' > "$dir/www/1k.bin"
# Random bytes for resume trials: a splice of the wrong ranges cannot hash right by accident.
head -c 3000000 /dev/urandom > "$dir/www/3m.bin"
# Bodies for the client profiles (Content-Encoding): text that compresses, a decompression bomb
# (20 MB of zeros, about 20 KB gzipped) and a gzip stream cut in half.
mkdir -p "$dir/encoded"
for i in $(seq 1 4000); do printf '{"id":%d,"name":"item %d","tags":["a","b","c"]},\n' "$i" "$i"; done > "$dir/www/items.json"
head -c 20000000 /dev/zero | gzip -9 > "$dir/encoded/bomb.gz"
gzip -9 -c "$dir/www/items.json" > "$dir/encoded/items.json.gz"
head -c "$(( $(stat -c %s "$dir/encoded/items.json.gz") / 2 ))" "$dir/encoded/items.json.gz" > "$dir/encoded/truncated.gz"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
  -keyout "$dir/key.pem" -out "$dir/cert.pem" -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >/dev/null 2>&1
sed -e "s|@PREFIX@|$dir|g" -e "s|@HTTP_PORT@|$http|g" -e "s|@HTTPS_PORT@|$https|g" -e "s|@H2C_PORT@|$h2c|g" \
    -e "s|@SSL_PROTOCOLS@|$protocols|g" -e "s|@CERT@|$dir/cert.pem|g" -e "s|@KEY@|$dir/key.pem|g" \
    "$here/Tests/SondeCLITests/Fixtures/nginx.conf.template" > "$dir/nginx.conf"
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >/dev/null 2>&1 &
for _ in $(seq 1 50); do
  [ -s "$dir/nginx.pid" ] && curl -s -o /dev/null "http://127.0.0.1:$http/1k.bin" && exit 0
  sleep 0.1
done
echo "nginx did not start; see $dir/error.log" >&2
cat "$dir/error.log" >&2 || true
exit 1
