#!/usr/bin/env python3
"""The image service benchmark (run by scripts/bench.d/92-image-service.sh): prints one Markdown
section, `## Image service`, on stdout; progress on stderr.

Everything runs on 127.0.0.1. The source: a real photo (lottie-ios' dog-landscape.jpeg, 700x525,
from Fixtures/ or the shared corpus) upscaled by `vips thumbnail` to 4000x3000 and saved at
quality 90 into a temporary folder at run time (no binary is committed). An nginx origin serves
it under any number of distinct paths, `/src/NAME.jpg`, each with its own strong ETag
(`"NAME"`), `Last-Modified` and `Cache-Control: max-age=3600`, so that every path is a source
that no contender has seen before.

  1. Cached variant: `assetpipe serve` (ours) answering `/v1/image?url=...&w=W&format=webp&q=80`
     from its memory cache, against nginx serving the very same bytes (fetched once from ours)
     as a static file (`sendfile`, `open_file_cache`). W is chosen at run time so that the WebP
     comes out near 30 KB. wrk -t2 -cN --latency at each connection count. Our process for this
     run opens the cache that the probing process filled, so it never transforms: its peak RSS
     is that of serving (VmHWM), beside nginx's (master and workers).
  2. Cold variant: the 12 MP JPEG to a 512 px wide image. First request to last byte (a new
     connection, a source never seen, one request at a time) and throughput over IMG_SOURCES
     distinct sources fetched by IMG_CLIENTS concurrent keep-alive clients, against thumbor
     (PyPI, Pillow engine, WebP, no storage of originals or results) and nginx `image_filter`
     (libgd, JPEG) in front of the same origin.

IMG_ROUNDS rounds; each round runs (1) then (2), the contenders' order rotated by one each round;
`sync` before every timed run; medians with the spread (min–max) over the rounds.
"""
import http.client, io, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time
import urllib.parse

ASSETPIPE = os.environ["ASSETPIPE"]
ROOT = os.environ.get("ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("IMG_ROUNDS", "3"))
SECONDS = int(os.environ.get("IMG_SECONDS", "8"))
CONNECTIONS = [int(c) for c in re.split(r"[\s,]+", os.environ.get("IMG_CONNECTIONS", "16 64 256").strip()) if c]
SOURCES = int(os.environ.get("IMG_SOURCES", "200"))
FIRST = int(os.environ.get("IMG_FIRST", "5"))
CLIENTS = int(os.environ.get("IMG_CLIENTS", "4"))
COLD_WIDTH, QUALITY, TARGET_BYTES = 512, 80, 30_000
CORES = os.cpu_count() or 1
HOST = "127.0.0.1"
PHOTO_CANDIDATES = [
    os.path.join(ROOT, "Fixtures/lottie/lottie-ios/Images/dog-landscape.jpeg"),
    "/work/shared/corpus/lottie/lottie-ios/Images/dog-landscape.jpeg",
]


def log(*args):
    print("[image-service]", *args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


w = tempfile.mkdtemp(prefix="assetpipe-bench-imgsvc.")
os.chmod(w, 0o755)
ORIGIN, STATIC, FILTER, THUMBOR = free_port(), free_port(), free_port(), free_port()
procs = {}          # name -> Popen (ours, thumbor)
nginx_pids = {}     # name -> prefix dir (its pid file is there)


# --- the source --------------------------------------------------------------------------------
def make_source():
    photo = next((p for p in PHOTO_CANDIDATES if os.path.exists(p)), None)
    if photo is None:
        raise SystemExit("92-image-service: dog-landscape.jpeg is in neither Fixtures/ nor the corpus")
    www = os.path.join(w, "www")
    os.makedirs(www)
    out = os.path.join(www, "photo.jpg")
    subprocess.run(["vips", "thumbnail", photo, f"{out}[Q=90,strip]", "4000", "--height", "3000", "--size", "both"],
                   check=True)
    header = subprocess.run(["vipsheader", out], capture_output=True, text=True, check=True).stdout
    if "4000x3000" not in header:
        raise SystemExit(f"92-image-service: the source came out as {header.strip()}")
    subprocess.run(["chmod", "-R", "a+rX", www], check=True)
    return photo, out


# --- the servers -------------------------------------------------------------------------------
def nginx_conf(name, body, modules=""):
    prefix = os.path.join(w, f"nginx-{name}")
    for d in ("t", "logs"):
        os.makedirs(os.path.join(prefix, d), exist_ok=True)
    subprocess.run(["chown", "-R", "nobody", os.path.join(prefix, "t")], check=False)
    conf = f"""{modules}
worker_processes auto;  pid {prefix}/nginx.pid;  error_log {prefix}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
  client_body_temp_path {prefix}/t/b; proxy_temp_path {prefix}/t/p; fastcgi_temp_path {prefix}/t/f;
  uwsgi_temp_path {prefix}/t/u; scgi_temp_path {prefix}/t/s;
  types {{ image/jpeg jpg jpeg; image/webp webp; }}
  default_type application/octet-stream;
  sendfile on; tcp_nopush on; tcp_nodelay on; keepalive_requests 1000000; keepalive_timeout 75s;
{body}
}}
"""
    path = os.path.join(prefix, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    subprocess.run(["nginx", "-p", prefix, "-c", path, "-e", os.path.join(prefix, "logs/error.log")], check=True)
    nginx_pids[name] = prefix


def start_peers():
    www = os.path.join(w, "www")
    static = os.path.join(w, "static")
    # The origin: one file on disk, any /src/NAME.jpg path, a distinct strong ETag per NAME.
    nginx_conf("origin", f"""
  log_format origin '$status $request_uri $body_bytes_sent';
  server {{
    listen {HOST}:{ORIGIN}; root {www};
    access_log {w}/origin.log origin;
    location ~ ^/src/([A-Za-z0-9_.-]+)\\.jpg$ {{
      set $src $1;
      etag off;
      add_header ETag "\\"$src\\"" always;
      add_header Cache-Control "max-age=3600" always;
      rewrite ^ /photo.jpg break;
    }}
  }}""")
    # Static: the cached variant's bytes as a plain file.
    nginx_conf("static", f"""
  open_file_cache max=1000 inactive=60s; open_file_cache_valid 60s;
  server {{
    listen {HOST}:{STATIC}; root {static}; access_log off; etag on;
  }}""")
    # image_filter in front of the same origin.
    nginx_conf("filter", f"""
  upstream origin {{ server {HOST}:{ORIGIN}; keepalive 16; }}
  server {{
    listen {HOST}:{FILTER}; access_log off;
    location /if/ {{
      proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_pass http://origin/;
      image_filter resize {COLD_WIDTH} -;
      image_filter_buffer 20M;
      image_filter_jpeg_quality {QUALITY};
    }}
  }}""", modules="load_module /usr/lib/nginx/modules/ngx_http_image_filter_module.so;")
    # thumbor: Pillow engine, originals and results stored nowhere, unsafe URLs allowed, every
    # source host allowed (the default: an empty ALLOWED_SOURCES), one process per core.
    conf = os.path.join(w, "thumbor.conf")
    with open(conf, "w") as f:
        f.write(f"""
ENGINE = 'thumbor.engines.pil'
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ALLOW_UNSAFE_URL = True
ALLOWED_SOURCES = []
QUALITY = {QUALITY}
WEBP_QUALITY = {QUALITY}
AUTO_WEBP = False
HTTP_LOADER_MAX_CLIENTS = 64
""")
    procs["thumbor"] = subprocess.Popen(
        ["thumbor", "--ip", HOST, "--port", str(THUMBOR), "--conf", conf, "--log-level", "error",
         "--processes", str(CORES)],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(w, "thumbor.log"), "w"), start_new_session=True)
    for port, path in ((ORIGIN, "/src/probe.jpg"), (STATIC, "/"), (FILTER, "/if/src/probe.jpg"), (THUMBOR, "/healthcheck")):
        wait_http(port, path, f"peer on port {port}")


def wait_http(port, path, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=10)
            c.request("GET", path)
            c.getresponse().read()
            c.close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"92-image-service: {what} did not answer within {timeout} s")


def serve_help():
    return subprocess.run([ASSETPIPE, "serve", "--help"], capture_output=True, text=True).stdout


def start_ours(name, cache_dir):
    """Starts `assetpipe serve` on a port the system picks and reads the port from its log line
    'assetpipe serve listening on http://127.0.0.1:PORT'; waits for /readyz."""
    os.makedirs(cache_dir, exist_ok=True)
    argv = [ASSETPIPE, "serve", "--host", HOST, "--port", "0", "--allow-private", "--cache-dir", cache_dir,
            "--log-level", "notice"]
    if "--max-connections" in serve_help():
        argv += ["--max-connections", "4096"]
    logpath = os.path.join(w, f"{name}.log")
    procs[name] = subprocess.Popen(argv, stdout=open(logpath + ".out", "w"), stderr=open(logpath, "w"))
    deadline = time.time() + 60
    port = None
    while time.time() < deadline and port is None:
        if procs[name].poll() is not None:
            raise SystemExit(f"92-image-service: {name} exited with {procs[name].returncode}: "
                             + open(logpath).read()[-2000:])
        for p in (logpath, logpath + ".out"):
            m = re.search(r"listening on http://[^\s:]+:(\d+)", open(p).read())
            if m:
                port = int(m.group(1))
        time.sleep(0.1)
    if port is None:
        raise SystemExit(f"92-image-service: {name} logged no port within 60 s")
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=5)
            c.request("GET", "/readyz")
            if c.getresponse().status == 200:
                c.close()
                return port, argv
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"92-image-service: {name} /readyz was not 200 within 30 s")


def stop(name):
    p = procs.pop(name, None)
    if p is None:
        return
    try:
        if name == "thumbor":
            os.killpg(p.pid, signal.SIGTERM)   # its own session: the master and its forks
        else:
            p.terminate()
        p.wait(timeout=15)
    except Exception:
        try:
            if name == "thumbor":
                os.killpg(p.pid, signal.SIGKILL)
            else:
                p.kill()
        except Exception:
            pass


def stop_all():
    for prefix in nginx_pids.values():
        try:
            os.kill(int(open(os.path.join(prefix, "nginx.pid")).read()), signal.SIGTERM)
        except Exception:
            pass
    for name in list(procs):
        stop(name)
    time.sleep(0.3)
    shutil.rmtree(w, ignore_errors=True)


def peak_kib(pids):
    total = 0
    for pid in pids:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def nginx_processes(name):
    master = int(open(os.path.join(nginx_pids[name], "nginx.pid")).read())
    out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
    return [master] + [int(p) for p in out]


# --- requests ----------------------------------------------------------------------------------
def source_url(name):
    return f"http://{HOST}:{ORIGIN}/src/{name}.jpg"


def ours_path(name, width):
    return (f"/v1/image?url={urllib.parse.quote(source_url(name), safe='')}"
            f"&w={width}&format=webp&q={QUALITY}")


def cold_target(contender, name, ours_port):
    if contender == "ours":
        return ours_port, ours_path(name, COLD_WIDTH)
    if contender == "thumbor":
        return THUMBOR, f"/unsafe/{COLD_WIDTH}x0/filters:format(webp):quality({QUALITY})/{HOST}:{ORIGIN}/src/{name}.jpg"
    return FILTER, f"/if/src/{name}.jpg"


def fetch(port, path, headers=None, conn=None):
    """One GET; returns (status, headers dict (lower-case names), body, seconds to the last byte)."""
    own = conn is None
    start = time.perf_counter()
    if own:
        conn = http.client.HTTPConnection(HOST, port, timeout=300)
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    body = r.read()
    elapsed = time.perf_counter() - start
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    if own:
        conn.close()
    return r.status, hdrs, body, elapsed


def image_info(body):
    from PIL import Image
    try:
        with Image.open(io.BytesIO(body)) as im:
            return im.format, im.size
    except Exception:
        return None, None


# --- wrk ---------------------------------------------------------------------------------------
def wrk(url, connections, seconds):
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    subprocess.run(["sync"])
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    if not m:
        raise SystemExit(f"92-image-service: wrk printed no rate for {url}:\n{out}")
    rps = float(m.group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)

    def latency(p):
        m = re.search(rf"^\s+{p}%\s+([0-9.]+)(us|ms|s|m)\b", out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return {"us": value / 1000, "ms": value, "s": value * 1000, "m": value * 60000}[unit]

    bad = int(non2xx.group(1)) if non2xx else 0
    if errors:
        bad += sum(int(x) for x in errors.groups())
    return rps, latency(50), latency(99), bad


# --- the cold runs -----------------------------------------------------------------------------
def origin_count(prefix):
    with open(os.path.join(w, "origin.log")) as f:
        return sum(1 for line in f if f"/src/{prefix}" in line)


EXPECT = {"ours": "WEBP", "thumbor": "WEBP", "nginx image_filter": "JPEG"}
MIME = {"WEBP": "image/webp", "JPEG": "image/jpeg"}
header_notes = {}   # contender -> {note: count}: answers whose headers disagree with their body


def check(contender, status, body, problems, headers=None):
    fmt, size = image_info(body) if status == 200 else (None, None)
    if headers is not None and status == 200 and fmt:
        notes = []
        if headers.get("content-type", "").split(";")[0].strip() != MIME.get(fmt):
            notes.append(f"Content-Type {headers.get('content-type')!r} on a {fmt} body")
        if headers.get("content-length") not in (None, str(len(body))):
            notes.append(f"Content-Length {headers.get('content-length')} for {len(body)} bytes")
        if contender == "ours" and size:
            for key, value in (("x-image-width", size[0]), ("x-image-height", size[1])):
                if headers.get(key) != str(value):
                    notes.append(f"{key}: {headers.get(key)!r} for a {size[0]}x{size[1]} image")
        for note in notes:
            bucket = header_notes.setdefault(contender, {})
            bucket[note] = bucket.get(note, 0) + 1
    if status != 200 or fmt != EXPECT[contender] or size is None or size[0] != COLD_WIDTH:
        problems.append(f"status {status}, {fmt} {size}, {len(body)} B: {body[:200]!r}" if status != 200 or fmt is None
                        else f"status {status}, {fmt} {size}")
        return None
    return size, len(body)


def first_requests(contender, tag, ours_port, problems):
    times, outputs = [], []
    for i in range(FIRST):
        name = f"{tag}-first{i}"
        port, path = cold_target(contender, name, ours_port)
        subprocess.run(["sync"])
        status, hdrs, body, seconds = fetch(port, path)
        got = check(contender, status, body, problems, hdrs)
        if got:
            times.append(seconds)
            outputs.append(got)
    return times, outputs


def throughput(contender, tag, ours_port, problems):
    names = [f"{tag}-tp{i}" for i in range(SOURCES)]
    lock = threading.Lock()
    queue = list(reversed(names))
    latencies, outputs, failures = [], [], []

    def client():
        port = cold_target(contender, "x", ours_port)[0]
        conn = http.client.HTTPConnection(HOST, port, timeout=300)
        while True:
            with lock:
                if not queue:
                    break
                name = queue.pop()
            path = cold_target(contender, name, ours_port)[1]
            try:
                status, hdrs, body, seconds = fetch(port, path, conn=conn)
            except (OSError, http.client.HTTPException) as error:
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=300)
                with lock:
                    failures.append(f"{type(error).__name__}: {error}")
                continue
            local = []
            got = check(contender, status, body, local, hdrs)
            with lock:
                if got:
                    latencies.append(seconds)
                    outputs.append(got)
                else:
                    failures.extend(local)
        conn.close()

    subprocess.run(["sync"])
    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    problems.extend(failures)
    return len(latencies) / wall, wall, latencies, outputs, len(failures)


# --- the run -----------------------------------------------------------------------------------
def main():
    started = time.time()
    load_before = open("/proc/loadavg").read().split()[0]
    photo, source = make_source()
    source_bytes = os.path.getsize(source)
    os.makedirs(os.path.join(w, "static"))
    subprocess.run(["chmod", "a+rx", os.path.join(w, "static")])
    start_peers()
    log(f"peers up: origin {ORIGIN}, static {STATIC}, image_filter {FILTER}, thumbor {THUMBOR}")

    # Probe: choose the cached variant's width (WebP near 30 KB) on a throwaway process, whose
    # cache directory the cached-run process then opens.
    probe_cache = os.path.join(w, "ours-cached-cache")
    probe_port, ours_argv = start_ours("ours-probe", probe_cache)
    tried = {}
    width = 512
    for _ in range(6):
        status, hdrs, body, _ = fetch(probe_port, ours_path("cached", width))
        if status != 200:
            raise SystemExit(f"92-image-service: probe w={width}: status {status}: {body[:300]!r}")
        tried[width] = len(body)
        nxt = int(round(width * (TARGET_BYTES / len(body)) ** 0.5 / 8) * 8)
        nxt = max(64, min(4000, nxt))
        if nxt in tried:
            break
        width = nxt
    width = min(tried, key=lambda k: abs(tried[k] - TARGET_BYTES))
    log("probe widths -> bytes: " + ", ".join(f"{k}: {v}" for k, v in sorted(tried.items())) + f"; chose {width}")
    status, probe_headers, variant, _ = fetch(probe_port, ours_path("cached", width))
    fmt, size = image_info(variant)
    if status != 200 or fmt != "WEBP":
        raise SystemExit(f"92-image-service: the cached variant is {status} {fmt}")
    static_file = os.path.join(w, "static", "thumb.webp")
    with open(static_file, "wb") as f:
        f.write(variant)
    os.chmod(static_file, 0o644)
    # Conditional request, and whether the probe process left the variant on disk.
    etag = probe_headers.get("etag")
    cond_status = fetch(probe_port, ours_path("cached", width), headers={"If-None-Match": etag})[0] if etag else None
    time.sleep(0.5)
    stop("ours-probe")
    ours_port, _ = start_ours("ours-cached", probe_cache)
    cached_path = ours_path("cached", width)
    warm = []
    for _ in range(3):
        st, h, b, _ = fetch(ours_port, cached_path)
        warm.append((st, h.get("x-assetpipe-cache"), b == variant))
    _, cached_headers, _, _ = fetch(ours_port, cached_path)
    st, nh, nb, _ = fetch(STATIC, "/thumb.webp")
    if st != 200 or nb != variant:
        raise SystemExit(f"92-image-service: nginx static answered {st} with {len(nb)} bytes")
    log("cached variant: " + ", ".join(f"{s} {c} same={same}" for s, c, same in warm))
    cold_port, _ = start_ours("ours-cold", os.path.join(w, "ours-cold-cache"))

    cached_names = ["ours", "nginx static"]
    cold_names = ["ours", "thumbor", "nginx image_filter"]
    urls = {"ours": f"http://{HOST}:{ours_port}{cached_path}", "nginx static": f"http://{HOST}:{STATIC}/thumb.webp"}
    for name in cached_names:   # untimed warm-up of each server and of wrk's path
        wrk(urls[name], CONNECTIONS[0], 1)
    # Each cold contender: one untimed request first (imports, code paths, the origin's file).
    problems = {n: [] for n in cold_names}
    for name in cold_names:
        port, path = cold_target(name, f"warmup-{name.split()[-1]}", cold_port)
        status, _, body, _ = fetch(port, path)
        check(name, status, body, problems[name])

    cached = {}    # (connections, name) -> [(rps, p50, p99, bad)]
    firsts = {}    # name -> [seconds]
    rates = {}     # name -> [(images/s, wall, origin requests, failures)]
    latencies = {}  # name -> [seconds] of the throughput runs
    outputs = {n: [] for n in cold_names}
    for r in range(ROUNDS):
        order = cached_names[r % 2:] + cached_names[:r % 2]
        for c in CONNECTIONS:
            for name in order:
                result = wrk(urls[name], c, SECONDS)
                cached.setdefault((c, name), []).append(result)
                log(f"round {r + 1} cached c={c} {name}: {result[0]:,.0f} req/s, p99 {result[2]:.2f} ms, errors {result[3]}")
        shift = r % len(cold_names)
        order = cold_names[shift:] + cold_names[:shift]
        for name in order:
            short = {"ours": "ours", "thumbor": "thumbor", "nginx image_filter": "filter"}[name]
            tag = f"r{r}-{short}"
            times, outs = first_requests(name, tag, cold_port, problems[name])
            firsts.setdefault(name, []).extend(times)
            outputs[name].extend(outs)
            log(f"round {r + 1} first request {name}: " + ", ".join(f"{t * 1000:.0f}" for t in times) + " ms")
            before = origin_count(f"{tag}-tp")
            rate, wall, lats, outs, failed = throughput(name, tag, cold_port, problems[name])
            time.sleep(0.2)
            rates.setdefault(name, []).append((rate, wall, origin_count(f"{tag}-tp") - before, failed))
            latencies.setdefault(name, []).extend(lats)
            outputs[name].extend(outs)
            log(f"round {r + 1} throughput {name}: {rate:.2f} images/s ({SOURCES} sources in {wall:.1f} s, {failed} failed)")
    peaks = {"ours": peak_kib([procs["ours-cached"].pid]), "nginx static": peak_kib(nginx_processes("static")),
             "nginx workers": len(nginx_processes("static")) - 1}
    metrics = ""
    try:
        metrics = fetch(cold_port, "/metrics")[2].decode(errors="replace")
    except Exception:
        pass
    load_after = open("/proc/loadavg").read().split()[0]
    report(dict(photo=photo, source_bytes=source_bytes, width=width, size=size, variant_bytes=len(variant),
                tried=tried, ours_argv=ours_argv, probe_headers=probe_headers, cached_headers=cached_headers,
                nginx_headers=nh, cond_status=cond_status, warm=warm, cached=cached, firsts=firsts, rates=rates,
                latencies=latencies, outputs=outputs, problems=problems, peaks=peaks, metrics=metrics,
                load_before=load_before, load_after=load_after, elapsed=time.time() - started,
                cached_names=cached_names, cold_names=cold_names))


# --- the section -------------------------------------------------------------------------------
def med(values):
    return statistics.median(values) if values else float("nan")


def spread(values, fmt="{:,.0f}"):
    return (fmt.format(min(values)) + "–" + fmt.format(max(values))) if values else ""


def verdict(ok):
    return "**met**" if ok else "**not met**"


def tool_versions():
    def run(cmd):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
            return (p.stdout + p.stderr).strip()
        except Exception:
            return "?"
    nginx = run(["nginx", "-v"]).split("/")[-1]
    try:
        from importlib.metadata import version
        thumbor = version("thumbor")
    except Exception:
        thumbor = "?"
    wrk_v = run(["dpkg-query", "-W", "-f", "${Version}", "wrk"]) or "?"
    try:
        import PIL
        pillow = PIL.__version__
    except Exception:
        pillow = "?"
    gd = run(["dpkg-query", "-W", "-f", "${Version}", "libgd3"])
    ours = run([ASSETPIPE, "--version"]).splitlines()[0] if run([ASSETPIPE, "--version"]) else "?"
    return nginx, thumbor, wrk_v, pillow, gd, ours


def report(d):
    nginx_v, thumbor_v, wrk_v, pillow_v, gd_v, ours_v = tool_versions()
    cached, firsts, rates = d["cached"], d["firsts"], d["rates"]
    argv = " ".join(a if a != d["ours_argv"][0] else "$ASSETPIPE" for a in d["ours_argv"])
    argv = re.sub(r"--cache-dir \S+", "--cache-dir DIR", argv)
    print("## Image service")
    print()
    print(f"Command: `scripts/bench image-service` (`scripts/bench.d/92-image-service.sh`, driver"
          f" `scripts/bench-image-service-peers.py`; IMG_ROUNDS={ROUNDS}, IMG_SECONDS={SECONDS},"
          f" IMG_CONNECTIONS=\"{' '.join(map(str, CONNECTIONS))}\", IMG_SOURCES={SOURCES}, IMG_FIRST={FIRST},"
          f" IMG_CLIENTS={CLIENTS}; {d['elapsed']:.0f} s). Ours: `{argv}` ({ours_v}, release build), the"
          " image face `/v1/image?url=...&w=W&format=webp&q=80`. Everything on 127.0.0.1; the load generators share the"
          f" {CORES} cores with the servers, so read the ratios more than the absolute figures. {ROUNDS} round(s), each"
          " the cached runs then the cold runs, the contenders' order rotated by one every round, `sync` before every"
          " timed run; medians with the spread (min–max) over the rounds. Load average (1 min) before and after:"
          f" {d['load_before']} / {d['load_after']} on {CORES} cores.")
    print()
    print(f"Source: a real photo (`{os.path.relpath(d['photo'], ROOT) if d['photo'].startswith(ROOT) else d['photo']}`,"
          " 700x525, lottie-ios) upscaled at run time by `vips thumbnail` to 4000x3000 (12 MP), JPEG q90 4:2:0,"
          f" {d['source_bytes']:,} bytes, into a temporary folder (nothing committed). An nginx {nginx_v} origin on"
          " loopback serves that one file under any path `/src/NAME.jpg`, each path with its own strong ETag"
          " (`\"NAME\"`) and `Cache-Control: max-age=3600`: every source URL below is distinct, so no contender has"
          " seen it before (no contender caches by content).")
    print()
    print("Which peer does what:")
    print()
    print(f"- **ours**: fetches the source from the origin, decodes, resizes to the width, encodes WebP q80; keeps the"
          " source and the variant in its caches (memory and disk).")
    print(f"- **nginx static** ({nginx_v}, `worker_processes auto`, `sendfile`, `open_file_cache`, `etag on`, no access log):"
          " the cached variant's exact bytes (fetched once from ours) as a file; the floor for serving stored bytes.")
    print(f"- **thumbor** {thumbor_v} (PyPI; Pillow {pillow_v} engine, `--processes {CORES}`, Lanczos, `STORAGE ="
          " no_storage`, `RESULT_STORAGE = None`, so every request loads and transforms; `ALLOWED_SOURCES = []`"
          f" allows the loopback origin): `/unsafe/{COLD_WIDTH}x0/filters:format(webp):quality({QUALITY})/{HOST}:PORT/src/NAME.jpg`;"
          " WebP q80, the same output as ours. Its Pillow engine asks libjpeg for a reduced-size decode (`draft`).")
    print(f"- **nginx image_filter** ({nginx_v}, Debian's libnginx-mod-http-image-filter, libgd {gd_v},"
          f" `worker_processes auto`): `proxy_pass` to the same origin with `image_filter resize {COLD_WIDTH} -;"
          f" image_filter_buffer 20M; image_filter_jpeg_quality {QUALITY};`. It outputs **JPEG**, not WebP (libgd keeps"
          " the input's format), decodes the whole 12 MP image, and caches nothing.")
    print()

    # 1. cached
    vw, vh = d["size"]
    print(f"**1. A cached variant**: `w={d['width']}&format=webp&q={QUALITY}` of the 12 MP source, {vw}x{vh} WebP,"
          f" **{d['variant_bytes']:,} bytes** (width chosen at run time for a WebP near 30 KB; tried: "
          + ", ".join(f"w={k}: {v:,} B" for k, v in sorted(d["tried"].items())) + ")."
          f" `wrk -t2 -cN -d{SECONDS}s --latency` (wrk {wrk_v}) on one URL. Our process for these runs opened the cache"
          " directory that a first process filled (that one chose the width and stopped), so it transformed nothing;"
          " its first three answers said `X-Assetpipe-Cache: "
          + ", ".join(str(c) for _, c, _ in d["warm"]) + "`. Ratios are ours / nginx.")
    print()
    print("| connections | contender | requests/s (median, spread) | p50 ms | p99 ms (median, spread) | errors | ours / nginx req/s | ours / nginx p99 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    goals = []
    for c in CONNECTIONS:
        o = cached[(c, "ours")]
        n = cached[(c, "nginx static")]
        o_rps, n_rps = med([x[0] for x in o]), med([x[0] for x in n])
        o_p99, n_p99 = med([x[2] for x in o]), med([x[2] for x in n])
        for name, runs in (("ours", o), ("nginx static", n)):
            rps = [x[0] for x in runs]
            p99 = [x[2] for x in runs]
            ratio = (f"{o_rps / n_rps:.2f}x", f"{o_p99 / n_p99:.2f}x") if name == "ours" else ("", "")
            label = "**ours**" if name == "ours" else name
            print(f"| {c} | {label} | {med(rps):,.0f} ({spread(rps)}) | {med([x[1] for x in runs]):.2f} | "
                  f"{med(p99):.2f} ({spread(p99, '{:.2f}')}) | {sum(x[3] for x in runs)} | {ratio[0]} | {ratio[1]} |")
        goals.append((f"cached, {c} connections: requests/s at or above nginx's", f"{o_rps:,.0f}", f"{n_rps:,.0f}",
                      f"{o_rps / n_rps:.2f}x", verdict(o_rps >= n_rps)))
        goals.append((f"cached, {c} connections: p99 at most 1.5x nginx's", f"{o_p99:.2f} ms", f"{n_p99:.2f} ms",
                      f"{o_p99 / n_p99:.2f}x", verdict(o_p99 <= 1.5 * n_p99)))
    print()
    po, pn = d["peaks"]["ours"] / 1024, d["peaks"]["nginx static"] / 1024
    print(f"Peak RSS over the cached runs (VmHWM at the end): ours {po:.1f} MiB (the one process, which served only"
          f" this variant), nginx {pn:.1f} MiB (master and {d['peaks']['nginx workers']} workers summed).")
    goals.append(("peak RSS of the cached runs at or below nginx's (nice to have)", f"{po:.1f} MiB", f"{pn:.1f} MiB",
                  f"{po / pn:.2f}x" if pn else "", verdict(po <= pn) if pn else "not measured"))
    print()

    # 2. cold
    print(f"**2. Cold: the 12 MP JPEG to a {COLD_WIDTH} px wide image.** First request: a new connection, one request at"
          f" a time, a source never seen, from the request to its last byte; {FIRST} sources per contender per round"
          f" ({FIRST * ROUNDS} in all; median and spread over all of them). Throughput: {SOURCES} distinct sources per"
          f" contender per round, fetched by {CLIENTS} concurrent keep-alive clients (a Python thread each), images"
          " per second = good answers / wall time; median and spread over the rounds. Every contender got one untimed"
          " request (its own source) before the rounds. Every answer is checked: status 200, the expected format,"
          f" {COLD_WIDTH} px wide. Origin requests: the origin's log lines for that run's sources (one each is the"
          " floor).")
    print()
    print("| contender | output | output bytes (median) | first request ms (median, spread) | images/s (median, spread) | request latency under load ms (p50 / p99) | origin requests per run | failed |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in d["cold_names"]:
        f = [x * 1000 for x in firsts.get(name, [])]
        rr = [x[0] for x in rates.get(name, [])]
        lat = sorted(x * 1000 for x in d["latencies"].get(name, []))
        outs = d["outputs"][name]
        sizes = sorted({f"{s[0]}x{s[1]}" for s, _ in outs})
        fmt = EXPECT[name] if name != "ours" else "WEBP"
        out_desc = f"{'WebP' if fmt == 'WEBP' else 'JPEG'} {', '.join(sizes) or '?'}"
        nbytes = med([b for _, b in outs]) if outs else float("nan")
        p99 = lat[min(len(lat) - 1, int(round(0.99 * (len(lat) - 1))))] if lat else float("nan")
        label = "**ours**" if name == "ours" else name
        print(f"| {label} | {out_desc} | {nbytes:,.0f} | {med(f):,.0f} ({spread(f)}) | {med(rr):.2f} ({spread(rr, '{:.2f}')}) | "
              f"{med(lat):,.0f} / {p99:,.0f} | {', '.join(str(x[2]) for x in rates.get(name, []))} | "
              f"{len(d['problems'][name])} |")
    print()
    of = med([x * 1000 for x in firsts.get("ours", [])])
    orate = med([x[0] for x in rates.get("ours", [])])
    for peer in ("thumbor", "nginx image_filter"):
        pf = med([x * 1000 for x in firsts.get(peer, [])])
        prate = med([x[0] for x in rates.get(peer, [])])
        goals.append((f"cold first request at or below {peer}'s (ms, lower is better)", f"{of:,.0f}", f"{pf:,.0f}",
                      f"{of / pf:.2f}x the time", verdict(of <= pf)))
        goals.append((f"cold throughput at or above {peer}'s (images/s)", f"{orate:.2f}", f"{prate:.2f}",
                      f"{orate / prate:.2f}x", verdict(orate >= prate)))
    print("| goal | ours | peer | ratio | verdict |")
    print("|---|---:|---:|---:|---|")
    for g in goals:
        print("| " + " | ".join(g) + " |")
    met = sum(1 for g in goals if g[4] == "**met**")
    print()
    print(f"{met} of {len(goals)} goals met.")
    print()
    h = d["cached_headers"]
    keys = ["content-type", "content-length", "etag", "last-modified", "cache-control", "age", "vary",
            "x-assetpipe-cache", "x-image-width", "x-image-height"]
    print("Our cached answer's headers: " + "; ".join(f"`{k}: {h[k]}`" for k in keys if k in h)
          + (f"; missing: {', '.join(k for k in keys if k not in h and k != 'vary')}" if any(k not in h for k in keys if k != 'vary') else "")
          + (f". `If-None-Match` with its ETag: {d['cond_status']}." if d["cond_status"] is not None else "."))
    m = d["metrics"]
    total = re.search(r"^assetpipe_image_transform_duration_seconds_sum(?:\{[^}]*\})?\s+([0-9.eE+-]+)", m, re.M)
    count = re.search(r"^assetpipe_image_transform_duration_seconds_count(?:\{[^}]*\})?\s+([0-9.eE+-]+)", m, re.M)
    lookups = re.findall(r'^assetpipe_image_variant_lookups_total\{result="(\w+)"\}\s+([0-9.eE+-]+)', m, re.M)
    refusals = re.findall(r'^assetpipe_image_refusals_total\{code="(\w+)"\}\s+([0-9.eE+-]+)', m, re.M)
    if total and count and float(count.group(1)) > 0:
        print()
        print(f"Our cold process's `/metrics` at the end: {float(count.group(1)):.0f} transforms, mean"
              f" `assetpipe_image_transform_duration_seconds` {1000 * float(total.group(1)) / float(count.group(1)):.0f} ms"
              + (("; variant lookups " + ", ".join(f"{k} {float(v):.0f}" for k, v in lookups)) if lookups else "")
              + (("; refusals " + ", ".join(f"{k} {float(v):.0f}" for k, v in refusals)) if refusals else "; no refusals")
              + ".")
    notes = []
    for name in d["cold_names"]:
        if d["problems"][name]:
            seen = {}
            for p in d["problems"][name]:
                seen[p] = seen.get(p, 0) + 1
            notes.append(f"{name}: " + "; ".join(f"{k} (x{v})" for k, v in list(seen.items())[:3]))
    for name, bucket in header_notes.items():
        notes.append(f"{name} (headers): " + "; ".join(f"{k} (x{v})" for k, v in list(bucket.items())[:3]))
    if notes:
        print()
        print("Failed or inconsistent answers: " + " | ".join(n.replace("|", "/") for n in notes) + ".")


if __name__ == "__main__":
    try:
        main()
    finally:
        stop_all()
