#!/usr/bin/env bash
# VideoUtil's chunk cache against nginx's slice cache (`slice 1m` + proxy_cache + proxy_cache_lock),
# both in front of the same nginx origin on loopback, at the same 1 MiB chunk size: a 100 MiB file
# and a workload of random ranges (mixed sizes, 30% repeats), read cold, then every distinct range
# again fully cached. Origin requests and bytes are counted in the origin's access log. Needs
# ASSETPIPE_BENCH (exported by scripts/bench).
set -euo pipefail
: "${ASSETPIPE_BENCH:?run through scripts/bench}"
N=${VIDEO_RANGES:-500}
MIB=${VIDEO_MIB:-100}
ORIGIN=18090
SLICE=18091

if ! command -v nginx >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light) >&2
fi

W=$(mktemp -d /tmp/assetpipe-bench-video.XXXXXX)
chmod 755 "$W"
mkdir -p "$W/www/v" "$W/t" "$W/cache"
head -c $((MIB * 1048576)) /dev/urandom > "$W/www/v/big.bin"
chmod -R a+rX "$W/www"
chown -R nobody "$W/cache" "$W/t" 2>/dev/null || chmod 777 "$W/cache" "$W/t"
cat > "$W/nginx.conf" <<CONF
worker_processes 1;  pid $W/nginx.pid;  error_log $W/error.log notice;
events { worker_connections 512; }
http {
  client_body_temp_path $W/t/b; proxy_temp_path $W/t/p; fastcgi_temp_path $W/t/f;
  uwsgi_temp_path $W/t/u; scgi_temp_path $W/t/s;
  default_type application/octet-stream;
  log_format origin '\$status \$request_method \$uri "\$http_range" \$body_bytes_sent';
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$ORIGIN; root $W/www; etag on; max_ranges 1;
    access_log $W/origin.log origin;
    location /v/ { expires 1h; }
  }
  proxy_cache_path $W/cache levels=1:2 keys_zone=slices:10m max_size=1g inactive=7d use_temp_path=off;
  server {
    listen 127.0.0.1:$SLICE;
    access_log off;
    location / {
      slice 1m; proxy_cache slices; proxy_cache_key \$uri\$is_args\$args\$slice_range;
      proxy_set_header Range \$slice_range; proxy_cache_valid 200 206 1h;
      proxy_cache_lock on; proxy_cache_revalidate on;
      proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_pass http://127.0.0.1:$ORIGIN;
    }
  }
}
CONF
nginx -p "$W" -c "$W/nginx.conf" -e "$W/error.log"
trap 'kill $(cat "$W/nginx.pid") 2>/dev/null || true; rm -rf "$W"' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$ORIGIN/v/big.bin" -r 0-0 && break; sleep 0.1; done
sleep 0.2
: > "$W/origin.log"

# the workload: N ranges, sizes 16 KiB..4 MiB at random offsets (a player's probe, index and segment
# reads), 30% of them repeats of an earlier one
python3 - "$W" "$N" $((MIB * 1048576)) <<'PY'
import random, sys
w, n, length = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(20261122)
sizes, weights = [16384, 262144, 1048576, 2097152, 4194304], [20, 20, 20, 20, 20]
ranges = []
for i in range(n):
    if ranges and rng.random() < 0.3:
        ranges.append(rng.choice(ranges))
    else:
        size = rng.choices(sizes, weights)[0]
        start = rng.randrange(0, length - size)
        ranges.append((start, start + size))
open(f"{w}/ranges.txt", "w").write("".join(f"{a} {b}\n" for a, b in ranges))
seen, unique = set(), []
for r in ranges:
    if r not in seen:
        seen.add(r); unique.append(r)
open(f"{w}/unique.txt", "w").write("".join(f"{a} {b}\n" for a, b in unique))
PY
UNIQUE=$(wc -l < "$W/unique.txt")

lines() { wc -l < "$W/origin.log"; }
rows=()
run() {  # name, command...; records origin requests and bytes the run caused
  local name=$1; shift
  local before; before=$(lines)
  "$@" > "$W/last.out"
  sleep 0.3  # nginx writes its log line after the response
  local reqs=$(( $(lines) - before ))
  local obytes; obytes=$(tail -n "$reqs" "$W/origin.log" | awk '{s += $NF} END {print s + 0}')
  local out; out=$(cat "$W/last.out")
  local secs mbps; secs=$(sed -E 's/.*seconds=([0-9.]+).*/\1/' <<<"$out"); mbps=$(sed -E 's/.*MBps=([0-9.]+).*/\1/' <<<"$out")
  rows+=("$(printf '| %s | %d | %.1f | %.3f | %.1f |' "$name" "$reqs" "$(echo "$obytes / 1048576" | bc -l)" "$secs" "$mbps")")
  local key=${name//[^a-zA-Z]/_}
  eval "REQ_$key=$reqs; BYTES_$key=$obytes; MBPS_$key=$mbps; OUT_$key=\"\$out\""
}

URL_OURS="http://127.0.0.1:$ORIGIN/v/big.bin"
URL_SLICE="http://127.0.0.1:$SLICE/v/big.bin"
run "VideoUtil cold" "$ASSETPIPE_BENCH" video --url "$URL_OURS" --ranges "$W/ranges.txt" --cache-dir "$W/ours" --file "$W/www/v/big.bin"
run "nginx slice cold" "$ASSETPIPE_BENCH" video --http --url "$URL_SLICE" --ranges "$W/ranges.txt" --file "$W/www/v/big.bin"
run "VideoUtil cached" "$ASSETPIPE_BENCH" video --url "$URL_OURS" --ranges "$W/unique.txt" --cache-dir "$W/ours"
run "nginx slice cached" "$ASSETPIPE_BENCH" video --http --url "$URL_SLICE" --ranges "$W/unique.txt"

ratio() { echo "$1 / $2" | bc -l; }
echo "## Video ranges"
echo
echo "A ${MIB} MiB file behind nginx 1.22 on loopback (\`etag on\`, \`expires 1h\`), $N ranges read in order, one at a time"
echo "(16 KiB, 256 KiB, 1 MiB, 2 MiB and 4 MiB, one fifth each, at random offsets; 30% repeats of an earlier range),"
echo "then the $UNIQUE distinct ranges again, all cached. Ours: \`assetpipe-bench video --url URL --ranges LIST --cache-dir DIR\`"
echo "(VideoUtil in-process, release build, 1 MiB chunks). Peer: nginx's slice cache (\`slice 1m\` + \`proxy_cache\` +"
echo "\`proxy_cache_lock\`) in front of the same origin, read with \`assetpipe-bench video --http\` (async-http-client, one"
echo "\`Range\` request per range). Every cold range was checked against the file. Origin requests and bytes are lines of"
echo "the origin's access log. Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| run | origin requests | origin MiB | read s | MB/s |"
echo "|---|---:|---:|---:|---:|"
for r in "${rows[@]}"; do echo "$r"; done
echo
printf 'Origin bytes: ours / nginx %.2fx (goal: at most 1). Origin requests: ours / nginx %.2fx (goal: at most 0.5).\n' \
  "$(ratio "$BYTES_VideoUtil_cold" "$BYTES_nginx_slice_cold")" "$(ratio "$REQ_VideoUtil_cold" "$REQ_nginx_slice_cold")"
printf 'Cached ranges: ours / nginx %.2fx the throughput (goal: at least 1); the cached runs sent %d and %d origin requests.\n' \
  "$(ratio "$MBPS_VideoUtil_cached" "$MBPS_nginx_slice_cached")" "$REQ_VideoUtil_cached" "$REQ_nginx_slice_cached"
echo
echo "Our runs: cold \`$OUT_VideoUtil_cold\`; cached \`$OUT_VideoUtil_cached\`."
