#!/usr/bin/env bash
# The loader against curl and aria2c: 2,000 files of 50 KB from nginx on loopback, cold, warm
# (all fresh: no request may reach the origin) and stale (max-age=0: 304s only), each
# downloader writing every file to a directory on the same disk as our cache. Origin requests
# are counted in nginx's access log. Needs ASSETPIPE_BENCH (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE_BENCH:?run through scripts/bench}"
N=${FETCH_FILES:-2000}
C=${FETCH_CONCURRENCY:-16}
PORT=18080

need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v aria2c >/dev/null || need+=(aria2)
if [ ${#need[@]} -gt 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") >&2
fi

W=$(mktemp -d /tmp/assetpipe-bench-fetch.XXXXXX)
chmod 755 "$W"
mkdir -p "$W/www/fresh" "$W/www/stale" "$W/t" "$W/out"
for i in $(seq 1 "$N"); do head -c 51200 /dev/urandom > "$W/www/fresh/f$i.bin"; done
cp "$W"/www/fresh/*.bin "$W/www/stale/"
chmod -R a+rX "$W/www"
cat > "$W/nginx.conf" <<CONF
worker_processes 1;  pid $W/nginx.pid;  error_log $W/error.log notice;
events { worker_connections 1024; }
http {
  client_body_temp_path $W/t/b; proxy_temp_path $W/t/p; fastcgi_temp_path $W/t/f;
  uwsgi_temp_path $W/t/u; scgi_temp_path $W/t/s;
  default_type application/octet-stream;
  log_format origin '\$status \$request_method \$uri "\$http_range" \$body_bytes_sent';
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$PORT; root $W/www; etag on;
    access_log $W/origin.log origin;
    location /fresh/ { expires 1h; }
    location /stale/ { add_header Cache-Control "max-age=0"; }
  }
}
CONF
nginx -p "$W" -c "$W/nginx.conf" -e "$W/error.log"
trap 'kill $(cat "$W/nginx.pid") 2>/dev/null || true; rm -rf "$W"' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/fresh/f1.bin" && break; sleep 0.1; done
: > "$W/origin.log"

for i in $(seq 1 "$N"); do echo "http://127.0.0.1:$PORT/fresh/f$i.bin"; done > "$W/fresh.txt"
for i in $(seq 1 "$N"); do echo "http://127.0.0.1:$PORT/stale/f$i.bin"; done > "$W/stale.txt"
for i in $(seq 1 "$N"); do printf 'url = "http://127.0.0.1:%s/fresh/f%s.bin"\noutput = "%s/out/curl/f%s.bin"\n' "$PORT" "$i" "$W" "$i"; done > "$W/curl.cfg"

lines() { wc -l < "$W/origin.log"; }
count() { awk -v s="$1" '$1 == s' "$W/origin.log" | tail -n +"$2" | wc -l; }
rows=()
run() {  # name, command...; prints wall seconds and the origin requests it caused
  local name=$1; shift
  local before; before=$(lines)
  local t0 t1; t0=$(date +%s.%N)
  "$@" > "$W/last.out"
  t1=$(date +%s.%N)
  sleep 0.2  # nginx writes its log line after the response
  local after; after=$(lines)
  local reqs=$((after - before))
  local ok notmod
  ok=$(tail -n "$reqs" "$W/origin.log" | awk '$1 == 200' | wc -l)
  notmod=$(tail -n "$reqs" "$W/origin.log" | awk '$1 == 304' | wc -l)
  local secs; secs=$(echo "$t1 - $t0" | bc -l)
  rows+=("$(printf '| %s | %.3f | %.0f | %d | %d | %d |' "$name" "$secs" "$(echo "$N / $secs" | bc -l)" "$reqs" "$ok" "$notmod")")
  eval "T_${name//[^a-zA-Z0-9]/_}=$secs"
}

rm -rf "$W/cache"
run "AssetLoader cold" "$ASSETPIPE_BENCH" fetch --urls "$W/fresh.txt" --cache-dir "$W/cache" --concurrency "$C"
cold_ours=$(cat "$W/last.out")
run "AssetLoader warm (fresh)" "$ASSETPIPE_BENCH" fetch --urls "$W/fresh.txt" --cache-dir "$W/cache" --concurrency "$C"
warm_ours=$(cat "$W/last.out")
rm -rf "$W/cache-stale"
"$ASSETPIPE_BENCH" fetch --urls "$W/stale.txt" --cache-dir "$W/cache-stale" --concurrency "$C" > /dev/null
run "AssetLoader stale (304s)" "$ASSETPIPE_BENCH" fetch --urls "$W/stale.txt" --cache-dir "$W/cache-stale" --concurrency "$C"
stale_ours=$(cat "$W/last.out")
rm -rf "$W/out/curl"; mkdir -p "$W/out/curl"
run "curl --parallel cold" curl -s --parallel --parallel-max "$C" -K "$W/curl.cfg"
rm -rf "$W/out/aria2"; mkdir -p "$W/out/aria2"
run "aria2c cold" aria2c -q -j"$C" -i "$W/fresh.txt" -d "$W/out/aria2" --allow-overwrite=true --auto-file-renaming=false

files_ok=$(find "$W/out/curl" -type f | wc -l)
echo "## Loader"
echo
echo "$N files of 50 KB from nginx 1.22 on loopback (\`etag on\`; /fresh/ sends max-age=3600, /stale/ max-age=0),"
echo "concurrency $C for everyone, every downloader writing every file to disk (ours into its cache on the same"
echo "disk). Commands: \`assetpipe-bench fetch --urls LIST --cache-dir DIR --concurrency $C\` (the AssetLoader"
echo "in-process, release build), \`curl -s --parallel --parallel-max $C -K list.cfg\`, \`aria2c -q -j$C -i urls.txt -d DIR\`."
echo "Origin requests are lines of nginx's access log. Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| run | wall s | files/s | origin requests | 200s | 304s |"
echo "|---|---:|---:|---:|---:|---:|"
for r in "${rows[@]}"; do echo "$r"; done
echo
printf 'Cold: ours / curl %.2fx, ours / aria2c %.2fx the throughput (goal: at or above curl at equal concurrency).\n' \
  "$(echo "$T_curl___parallel_cold / $T_AssetLoader_cold" | bc -l)" "$(echo "$T_aria2c_cold / $T_AssetLoader_cold" | bc -l)"
printf 'Warm: %.1f%% of our cold time with the origin requests above (goal: zero).\n' "$(echo "100 * $T_AssetLoader_warm__fresh_ / $T_AssetLoader_cold" | bc -l)"
echo
echo "Our runs: cold \`$cold_ours\`; warm \`$warm_ours\`; stale \`$stale_ours\`. curl wrote $files_ok files."
