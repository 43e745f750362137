#!/usr/bin/env bash
# Starts Caddy (Debian 12's caddy 2.6) on loopback: HTTPS with h1, h2 and h3 on PORT (TCP and
# UDP), serving DIR/www (1k.bin) with a certificate for 127.0.0.1/localhost signed by a CA made
# here (DIR/ca.pem). Caddy advertises its own h3 (Alt-Svc: h3=":PORT"); with ALT_PORT it
# advertises h3=":ALT_PORT" instead (an alternative where, in the tests, nothing answers).
# Usage: caddy-fixture.sh DIR PORT [ALT_PORT]. Caddy's pid is in DIR/caddy.pid; it exits by
# itself after 600 s at the latest. Stop it with: kill "$(cat DIR/caddy.pid)".
set -euo pipefail
dir=$1 port=$2 alt=${3:-}
mkdir -p "$dir/www" "$dir/data" "$dir/config"
head -c 1024 /dev/zero | tr '\0' 'a' > "$dir/www/1k.bin"
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout ca.key -out ca.pem \
  -subj "/CN=sonde caddy test CA" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" >/dev/null 2>&1
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout key.pem -out leaf.csr \
  -subj "/CN=127.0.0.1" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out cert.pem -extfile leaf.ext >/dev/null 2>&1
advertise=""
[ -n "$alt" ] && advertise="header Alt-Svc \"h3=\\\":$alt\\\"; ma=3600\""
cat > Caddyfile <<EOF
{
	admin off
	auto_https off
	storage file_system $dir/data
	servers {
		protocols h1 h2 h3
	}
}
https://127.0.0.1:$port {
	tls $dir/cert.pem $dir/key.pem
	$advertise
	root * $dir/www
	file_server
}
EOF
XDG_DATA_HOME=$dir/data XDG_CONFIG_HOME=$dir/config HOME=$dir \
  timeout 600 caddy run --config "$dir/Caddyfile" --adapter caddyfile </dev/null >"$dir/caddy.log" 2>&1 &
echo $! > "$dir/caddy.pid"
for _ in $(seq 1 100); do
  curl -s -o /dev/null --cacert "$dir/ca.pem" "https://127.0.0.1:$port/1k.bin" && exit 0
  sleep 0.1
done
echo "caddy did not start; see $dir/caddy.log" >&2
cat "$dir/caddy.log" >&2 || true
exit 1
