#!/usr/bin/env python3
"""Storyboards: a tile every 10 s, 160 px wide, of a 1 GiB MP4 whose index is at the end, from a
cold cache, through `assetpipe storyboard URL --interval 10s --width 160` (VideoStoryboards: the
index and each tile's key frame read by range through the chunk store) beside
`ffmpeg -i URL -vf fps=1/10,scale=160:-2,tile=COLSxROWS -frames:v 1` reading the same URL from
the origin directly, and the same with `-skip_frame nokey` (key frames only, as ours). An nginx
origin on loopback serves the file and sends a log line of every response's body bytes to this
script (syslog over UDP); a run's lines are those before the line of a marker request made once
the run has ended (awaited as it arrives, not read from a file after a sleep).

Prints one Markdown section: whole-process time (median and spread of the rounds, the
contenders' order rotated each round, `sync` before each run), bytes and requests from the
origin, and the goals of issue 31 met or not; then the service's answers, each from a cold cache of its own (`assetpipe
serve`): the poster `/v1/image?url=…&frame=0&w=320` and `/v1/storyboard?url=…&interval=10s&w=160`. Needs ASSETPIPE (the assetpipe executable; a release
build for figures that mean anything). STORYBOARD_ROUNDS (default 3), STORYBOARD_BYTES (default
1 GiB), STORYBOARD_CACHE (where the generated file is kept, default /tmp/assetpipe-bench-storyboard;
it is made once with ffmpeg's test source, x264 and AAC, the index at the end).
"""
import http.client, json, math, os, re, shutil, socket, statistics, subprocess, sys, tempfile, threading, time, urllib.parse

ASSETPIPE = os.environ["ASSETPIPE"]
ROUNDS = int(os.environ.get("STORYBOARD_ROUNDS", "3"))
TARGET = int(os.environ.get("STORYBOARD_BYTES", str(1 << 30)))
CACHE = os.environ.get("STORYBOARD_CACHE", "/tmp/assetpipe-bench-storyboard")
INTERVAL, WIDTH, COLUMNS = 10, 160, 10
os.makedirs(CACHE, exist_ok=True)

# 1280x720 at 30 fps and a constant 40 Mbit/s (x264's CBR filler keeps the rate on a simple test
# source): 1 GiB is about 214 s; x264's default key frame interval (250 frames, 8.3 s)
seconds = max(10, int(TARGET * 8 / 40_000_000))
video = os.path.join(CACHE, f"storyboard-{TARGET >> 20}MiB-moov-at-end.mp4")
if not os.path.exists(video):
    print(f"making {video} ({seconds} s)...", file=sys.stderr)
    partial = video.replace(".mp4", ".part.mp4")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
                    "-b:v", "40M", "-minrate", "40M", "-maxrate", "40M", "-bufsize", "20M", "-x264-params", "nal-hrd=cbr",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", partial], check=True)
    os.rename(partial, video)
size = os.path.getsize(video)
with open(video, "rb") as f:
    boxes = []
    while True:
        head = f.read(8)
        if len(head) < 8:
            break
        n, kind = int.from_bytes(head[:4], "big"), head[4:].decode("latin-1")
        if n == 1:
            n = int.from_bytes(f.read(8), "big")
            f.seek(n - 16, 1)
        else:
            f.seek(n - 8, 1)
        boxes.append(kind)
layout = ",".join(boxes)
duration = float(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=duration", "-of", "csv=p=0", video],
                                capture_output=True, text=True, check=True).stdout.strip())
tiles = math.ceil(duration / INTERVAL - 1e-9)
rows = math.ceil(tiles / COLUMNS)


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


work = tempfile.mkdtemp(prefix="assetpipe-storyboard-")
www = os.path.join(work, "www"); os.makedirs(www)
target = os.path.join(www, "big.mp4")
if os.stat(video).st_dev == os.stat(www).st_dev:
    os.link(video, target)
else:
    shutil.copy(video, target)
os.makedirs(os.path.join(work, "t"))
subprocess.run(["chmod", "-R", "a+rX", work])
class OriginLog:
    """The origin's log lines as nginx sends them (syslog over UDP on loopback), each `(uri, body
    bytes)`, and ``settle()``: the lines since the last settle, up to a marker request's line."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.lines, self.taken, self.marks = [], 0, 0
        self.arrived = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        while True:
            text = self.socket.recv(65536).decode("latin-1")
            found = re.search(r"(\S+) (\d{3}) (\d+)\s*$", text)
            if found:
                with self.arrived:
                    self.lines.append((found.group(1), int(found.group(3))))
                    self.arrived.notify_all()

    def settle(self):
        """Asks the origin for a marker path once a run has ended (nginx logs a response when it is
        done, and the run's connections are closed by then) and waits for its line: returns the body
        bytes and the count of the lines before it since the last settle."""
        self.marks += 1
        marker = f"/assetpipe-bench-mark-{self.marks}"
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        connection.request("GET", marker)
        connection.getresponse().read()
        connection.close()
        with self.arrived:
            if not self.arrived.wait_for(lambda: any(uri == marker for uri, _ in self.lines[self.taken:]), timeout=30):
                sys.exit("the origin's log line of the marker request did not arrive")
            end = next(i for i in range(self.taken, len(self.lines)) if self.lines[i][0] == marker)
            run, self.taken = self.lines[self.taken:end], end + 1
        return sum(n for _, n in run), len(run)


origin_log = OriginLog()
LOG_PORT = origin_log.port
PORT = free_port()
conf = f"""
worker_processes 1;  pid {work}/nginx.pid;  error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
  client_body_temp_path {work}/t/b; proxy_temp_path {work}/t/p; fastcgi_temp_path {work}/t/f;
  uwsgi_temp_path {work}/t/u; scgi_temp_path {work}/t/s;
  default_type application/octet-stream; sendfile on;
  log_format origin '$uri $status $body_bytes_sent';
  server {{ listen 127.0.0.1:{PORT}; root {www}; etag on; expires 1h;
            access_log syslog:server=127.0.0.1:{LOG_PORT},tag=origin,nohostname origin; }}
}}
"""
open(os.path.join(work, "nginx.conf"), "w").write(conf)
subprocess.run(["nginx", "-p", work, "-c", os.path.join(work, "nginx.conf"), "-e", os.path.join(work, "error.log")], check=True)
url = f"http://127.0.0.1:{PORT}/big.mp4"


def run(name, n):
    out = os.path.join(work, f"{name}-{n}")
    cache = os.path.join(work, f"cache-{n}")
    if name == "ours":
        command = [ASSETPIPE, "storyboard", url, "--interval", f"{INTERVAL}s", "--width", str(WIDTH), "--columns", str(COLUMNS),
                   "--output", out, "--cache-dir", cache, "--json"]
    else:
        command = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
        if name == "ffmpeg-nokey":
            command += ["-skip_frame", "nokey"]
        command += ["-i", url, "-vf", f"fps=1/{INTERVAL},scale={WIDTH}:-2,tile={COLUMNS}x{rows}", "-frames:v", "1",
                    "-q:v", "5", out + ".jpg"]
    subprocess.run(["sync"])
    origin_log.settle()
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"{name} failed: {result.stderr}")
    fetched, requests = origin_log.settle()
    facts = json.loads(result.stdout) if name == "ours" else None
    shutil.rmtree(cache, ignore_errors=True)
    return elapsed, fetched, requests, facts


def serve_once(paths):
    """Starts `assetpipe serve` over a new cache, GETs each of `paths` in turn, and returns for each
    its status, time and the origin's body bytes meanwhile."""
    cache = os.path.join(work, "serve-cache")
    server = subprocess.Popen([ASSETPIPE, "serve", "--host", "127.0.0.1", "--port", "0", "--allow-private", "--cache-dir", cache,
                               "--log-level", "notice"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    # its "listening on" line, read as it is written (a blocking read on a thread, bounded by 60 s)
    found, lines, listening = [], [], threading.Event()

    def read():
        for line in server.stdout:
            lines.append(line)
            match = re.search(r"listening on http://[^\s:]+:(\d+)", line)
            if match and not found:
                found.append(int(match.group(1)))
                listening.set()
        listening.set()  # it ended

    threading.Thread(target=read, daemon=True).start()
    try:
        if not listening.wait(60) or not found:
            sys.exit("assetpipe serve did not start: " + "".join(lines)[-2000:])
        port = found[0]
        answers = []
        origin_log.settle()
        for path in paths:
            # each answer's bytes: the origin's lines up to the marker after it (so a request's
            # late read-ahead, if any, counts for the next one, never for none)
            start = time.monotonic()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            elapsed = time.monotonic() - start
            connection.close()
            answers.append((response.status, elapsed, origin_log.settle()[0], len(body)))
        return answers
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(cache, ignore_errors=True)


load_before = os.getloadavg()
names = ["ours", "ffmpeg", "ffmpeg-nokey"]
times = {k: [] for k in names}
fetched = {k: [] for k in names}
requests = {k: [] for k in names}
facts = None
try:
    for n in range(ROUNDS):
        for name in names[n % 3:] + names[:n % 3]:
            elapsed, got, count, made = run(name, n)
            times[name].append(elapsed); fetched[name].append(got); requests[name].append(count)
            facts = made or facts
    quoted = urllib.parse.quote(url, safe="")
    # each from a cold cache of its own: the storyboard after the poster would find the index cached
    served = (serve_once([f"/v1/image?url={quoted}&frame=0&w=320&format=jpeg"])
              + serve_once([f"/v1/storyboard?url={quoted}&interval={INTERVAL}s&w={WIDTH}&columns={COLUMNS}"]))
finally:
    try:
        os.kill(int(open(os.path.join(work, "nginx.pid")).read()), 15)
    except Exception:
        pass

load_after = os.getloadavg()
med = {k: statistics.median(v) for k, v in times.items()}
got = {k: statistics.median(v) for k, v in fetched.items()}
mib = lambda b: b / (1 << 20)
spread = lambda v: f"{min(v):.2f}-{max(v):.2f}"
version = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.split()[2]
print("## Storyboards\n")
print(f"`scripts/bench-storyboard.py`: a tile every {INTERVAL} s, {WIDTH} px wide, {COLUMNS} a row ({tiles} tiles) of a {mib(size):,.0f} MiB MP4")
print(f"({layout}: the index at the end; {duration:.1f} s of 1280x720 H.264 at 40 Mbit/s with AAC, a key frame every 250 frames)")
print(f"on an nginx origin on loopback, from a cold cache. Ours: `assetpipe storyboard URL --interval {INTERVAL}s --width {WIDTH} --cache-dir NEW`")
print(f"(1 MiB chunks; key frames only; JPEG sprite, VTT and JSON written). Peers, FFmpeg {version} reading the origin itself:")
print(f"`ffmpeg -i URL -vf fps=1/{INTERVAL},scale={WIDTH}:-2,tile={COLUMNS}x{rows} -frames:v 1 s.jpg`, and the same with `-skip_frame nokey`.")
print(f"{ROUNDS} rounds, order rotated, `sync` before each run; whole-process times. The machine is shared: load average")
print(f"(1, 5, 15 min) {', '.join(f'{x:.2f}' for x in load_before)} when the runs began, {', '.join(f'{x:.2f}' for x in load_after)} when they ended.\n")
print("| | ours | ffmpeg | ffmpeg -skip_frame nokey |")
print("|---|---:|---:|---:|")
print("| time, median (spread) | " + " | ".join(f"{med[k]:.2f} s ({spread(times[k])})" for k in names) + " |")
print("| bytes from the origin | " + " | ".join(f"{mib(got[k]):.1f} MiB ({100 * got[k] / size:.2f}%)" for k in names) + " |")
print("| origin requests | " + " | ".join(f"{statistics.median(requests[k]):.0f}" for k in names) + " |")
if facts:
    print(f"\nOurs made {facts['tiles']} tiles of {facts['tileWidth']}x{facts['tileHeight']} in a {facts['width']}x{facts['height']} sprite.")
print("\nThe service (`assetpipe serve`), one request each, each from a new, empty cache:\n")
print("| request | status | time | bytes from the origin |")
print("|---|---:|---:|---:|")
for label, (status, elapsed, origin, _) in zip(["poster `/v1/image?url=…&frame=0&w=320&format=jpeg`",
                                                f"`/v1/storyboard?url=…&interval={INTERVAL}s&w={WIDTH}` (VTT)"], served):
    print(f"| {label} | {status} | {elapsed:.2f} s | {mib(origin):.1f} MiB ({100 * origin / size:.2f}%) |")
print()
goals = [
    ("storyboard fetches at most 5% of the file", got["ours"] <= 0.05 * size, f"{100 * got['ours'] / size:.2f}%"),
    ("storyboard time at or below ffmpeg -vf fps,scale,tile's", med["ours"] <= med["ffmpeg"],
     f"{med['ours']:.2f} s vs {med['ffmpeg']:.2f} s"),
    ("the poster via /v1/image costs at most 5% of the file", served[0][0] == 200 and served[0][2] <= 0.05 * size,
     f"{served[0][0]}, {100 * served[0][2] / size:.2f}%"),
]
print("| goal (issue 31) | | figure |")
print("|---|---|---|")
for goal, met, figure in goals:
    print(f"| {goal} | {'met' if met else 'not met'} | {figure} |")
print()
shutil.rmtree(work, ignore_errors=True)
