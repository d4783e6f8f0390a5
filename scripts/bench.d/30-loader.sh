#!/usr/bin/env bash
# The loader against curl and aria2c: 2,000 files of 50 KB from nginx on loopback, cold, warm
# (all fresh: no request may reach the origin) and stale (max-age=0: 304s only), each
# downloader writing every file to a directory on the same disk as our cache. Cold runs go in
# LOADER_ROUNDS rounds (default 5), the order rotated each round, an untimed `sync` before every
# run and each run's files removed right after it; medians and spread are reported. Origin
# requests are counted in nginx's access log. Needs ASSETPIPE_BENCH (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE_BENCH:?run through scripts/bench}"
N=${FETCH_FILES:-2000}
ROUNDS=${LOADER_ROUNDS:-5}
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
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
declare -A TIMES REQS OK NOTMOD
run() {  # name, command...; records wall seconds and the origin requests it caused
  local name=$1; shift
  sync  # untimed: every run starts with the disk's dirty pages written
  local before; before=$(lines)
  local t0 t1; t0=$(date +%s.%N)
  "$@" > "$W/last.out"
  t1=$(date +%s.%N)
  sleep 0.2  # nginx writes its log line after the response
  local after; after=$(lines)
  local reqs=$((after - before))
  TIMES[$name]+="$(echo "$t1 - $t0" | bc -l) "
  REQS[$name]+="$reqs "
  OK[$name]+="$(tail -n "$reqs" "$W/origin.log" | awk '$1 == 200' | wc -l) "
  NOTMOD[$name]+="$(tail -n "$reqs" "$W/origin.log" | awk '$1 == 304' | wc -l) "
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
spread() { tr ' ' '\n' | grep -v '^$' | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f-%.3f", lo, hi}'; }

tools=(ours curl aria2c)
orders=()
for ((r = 0; r < ROUNDS; r++)); do
  order=("${tools[@]:r%3}" "${tools[@]:0:r%3}")
  orders+=("${order[*]}")
  for tool in "${order[@]}"; do
    case $tool in
      ours)
        rm -rf "$W/cache"
        run "AssetLoader cold" "$ASSETPIPE_BENCH" fetch --urls "$W/fresh.txt" --cache-dir "$W/cache" --concurrency "$C"
        cold_ours=$(cat "$W/last.out")
        run "AssetLoader warm (fresh)" "$ASSETPIPE_BENCH" fetch --urls "$W/fresh.txt" --cache-dir "$W/cache" --concurrency "$C"
        warm_ours=$(cat "$W/last.out")
        rm -rf "$W/cache" ;;
      curl)
        rm -rf "$W/out/curl"; mkdir -p "$W/out/curl"
        run "curl --parallel cold" curl -s --parallel --parallel-max "$C" -K "$W/curl.cfg"
        files_ok=$(find "$W/out/curl" -type f | wc -l)
        rm -rf "$W/out/curl" ;;
      aria2c)
        rm -rf "$W/out/aria2"; mkdir -p "$W/out/aria2"
        run "aria2c cold" aria2c -q -j"$C" -i "$W/fresh.txt" -d "$W/out/aria2" --allow-overwrite=true --auto-file-renaming=false
        rm -rf "$W/out/aria2" ;;
    esac
  done
done
rm -rf "$W/cache-stale"
"$ASSETPIPE_BENCH" fetch --urls "$W/stale.txt" --cache-dir "$W/cache-stale" --concurrency "$C" > /dev/null
run "AssetLoader stale (304s)" "$ASSETPIPE_BENCH" fetch --urls "$W/stale.txt" --cache-dir "$W/cache-stale" --concurrency "$C"
stale_ours=$(cat "$W/last.out")

med() { echo "${TIMES[$1]}" | median; }
echo "## Loader"
echo
echo "$N files of 50 KB from nginx 1.22 on loopback (\`etag on\`; /fresh/ sends max-age=3600, /stale/ max-age=0),"
echo "concurrency $C for everyone, every downloader writing every file to disk (ours into its cache on the same"
echo "disk). Commands: \`assetpipe-bench fetch --urls LIST --cache-dir DIR --concurrency $C\` (the AssetLoader"
echo "in-process, release build), \`curl -s --parallel --parallel-max $C -K list.cfg\`, \`aria2c -q -j$C -i urls.txt -d DIR\`."
echo "$ROUNDS rounds, the order rotated each round ($(IFS=';'; echo "${orders[*]}" | sed 's/;/; /g')), an untimed \`sync\` before"
echo "every run, each run's files removed right after it; our warm run follows each of our cold runs. Origin requests"
echo "are lines of nginx's access log. Load average (1 min) at the start and the end: $LOAD_START / $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores."
echo
echo "| run | median wall s | spread (min-max) s | median files/s | origin requests per run | 200s | 304s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in "AssetLoader cold" "AssetLoader warm (fresh)" "AssetLoader stale (304s)" "curl --parallel cold" "aria2c cold"; do
  m=$(med "$name")
  uniq_list() { tr ' ' '\n' | grep -v '^$' | sort -u | paste -sd/; }
  printf '| %s | %.3f | %s | %.0f | %s | %s | %s |\n' "$name" "$m" "$(echo "${TIMES[$name]}" | spread)" "$(echo "$N / $m" | bc -l)" \
    "$(echo "${REQS[$name]}" | uniq_list)" "$(echo "${OK[$name]}" | uniq_list)" "$(echo "${NOTMOD[$name]}" | uniq_list)"
done
echo
ratio=$(echo "$(med "curl --parallel cold") / $(med "AssetLoader cold")" | bc -l)
verdict=$(echo "$ratio >= 1" | bc -l)
printf 'Cold: ours / curl **%.2fx**, ours / aria2c %.2fx the throughput (medians; goal: at or above curl at equal concurrency: **%s**).\n' \
  "$ratio" "$(echo "$(med "aria2c cold") / $(med "AssetLoader cold")" | bc -l)" "$([ "$verdict" = 1 ] && echo met || echo 'not met')"
printf 'Per round, ours / curl: %s.\n' "$(paste -d' ' <(echo "${TIMES["curl --parallel cold"]}" | tr ' ' '\n' | grep -v '^$') <(echo "${TIMES["AssetLoader cold"]}" | tr ' ' '\n' | grep -v '^$') | awk '{printf "%s%.2fx", (NR>1?", ":""), $1/$2}')"
printf 'Warm: %.1f%% of our cold time (medians) with the origin requests above (goal: zero).\n' "$(echo "100 * $(med "AssetLoader warm (fresh)") / $(med "AssetLoader cold")" | bc -l)"
echo
echo "Our last runs: cold \`$cold_ours\`; warm \`$warm_ours\`; stale \`$stale_ours\`. curl wrote $files_ok files."
