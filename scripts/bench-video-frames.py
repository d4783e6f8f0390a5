#!/usr/bin/env python3
"""Video frames: the frame at 50% of a 1 GB MP4 whose index is at the end, from a cold cache,
through `assetpipe convert URL --frame 50%` (VideoUtil.frame: FFmpeg's demuxer and decoder reading
the chunk store's ranges) beside `ffmpeg -ss T -i URL -frames:v 1` reading the same URL from the
origin directly. An nginx origin on loopback serves the file and logs every response's body bytes.

Prints one Markdown section: time to the frame (whole process, median and spread of the rounds,
the contenders' order rotated each round, `sync` before each run), bytes from the origin, and
whether the two frames are the same pixels (ours as RGBA, ffmpeg's as RGB with the same
bicubic scaler, both written as PNG). Needs ASSETPIPE (a release build). VIDEO_FRAME_ROUNDS (default 3),
VIDEO_FRAME_BYTES (default 1 GiB), VIDEO_FRAME_CACHE (where the generated file is kept, default
.bench-cache/ under the package; it is made once with ffmpeg's test source, x264 and AAC).
"""
import os, shutil, socket, statistics, subprocess, sys, tempfile, time

ASSETPIPE = os.environ["ASSETPIPE"]
ROOT = os.environ.get("ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUNDS = int(os.environ.get("VIDEO_FRAME_ROUNDS", "3"))
TARGET = int(os.environ.get("VIDEO_FRAME_BYTES", str(1 << 30)))
CACHE = os.environ.get("VIDEO_FRAME_CACHE", os.path.join(ROOT, ".bench-cache"))
os.makedirs(CACHE, exist_ok=True)

# 1280x720 at 30 fps and a constant 40 Mbit/s (x264's CBR filler keeps the rate on a simple test
# source): 1 GiB is about 210 s; x264's default key frame interval (250)
seconds = max(10, int(TARGET * 8 / 40_000_000))
video = os.path.join(CACHE, f"frames-{TARGET >> 20}MiB-moov-at-end.mp4")
if not os.path.exists(video):
    print(f"making {video} ({seconds} s)...", file=sys.stderr)
    partial = video + ".part.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
                    "-b:v", "40M", "-minrate", "40M", "-maxrate", "40M", "-bufsize", "20M", "-x264-params", "nal-hrd=cbr",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k",
                    partial], check=True)
    os.rename(partial, video)
size = os.path.getsize(video)
layout = subprocess.run(["python3", "-c", f"""
import struct
f = open({video!r}, 'rb'); boxes = []
while True:
    h = f.read(8)
    if len(h) < 8: break
    n, t = struct.unpack('>I4s', h)
    if n == 1: n = struct.unpack('>Q', f.read(8))[0]; f.seek(n - 16, 1)
    else: f.seek(n - 8, 1)
    boxes.append(t.decode())
print(','.join(boxes))"""], capture_output=True, text=True).stdout.strip()
probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=duration", "-of", "csv=p=0", video],
                       capture_output=True, text=True, check=True).stdout.strip()
half = float(probe) / 2


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


work = tempfile.mkdtemp(prefix="assetpipe-video-frames-")
www = os.path.join(work, "www"); os.makedirs(www)
os.link(video, os.path.join(www, "big.mp4")) if os.stat(video).st_dev == os.stat(www).st_dev else shutil.copy(video, os.path.join(www, "big.mp4"))
for d in ("t",):
    os.makedirs(os.path.join(work, d))
subprocess.run(["chmod", "-R", "a+rX", work])
PORT = free_port()
conf = f"""
worker_processes 1;  pid {work}/nginx.pid;  error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
  client_body_temp_path {work}/t/b; proxy_temp_path {work}/t/p; fastcgi_temp_path {work}/t/f;
  uwsgi_temp_path {work}/t/u; scgi_temp_path {work}/t/s;
  default_type application/octet-stream; sendfile on;
  log_format origin '$status "$http_range" $body_bytes_sent';
  server {{ listen 127.0.0.1:{PORT}; root {www}; etag on; expires 1h; access_log {work}/origin.log origin; }}
}}
"""
open(os.path.join(work, "nginx.conf"), "w").write(conf)
subprocess.run(["nginx", "-p", work, "-c", os.path.join(work, "nginx.conf"), "-e", os.path.join(work, "error.log")], check=True)
url = f"http://127.0.0.1:{PORT}/big.mp4"
log = os.path.join(work, "origin.log")


def origin_bytes_since(offset):
    with open(log) as f:
        f.seek(offset)
        lines = [l for l in f.read().splitlines() if l]
    return sum(int(l.rsplit(" ", 1)[1]) for l in lines), len(lines)


def run(name, n):
    out = os.path.join(work, f"{name}-{n}")
    if name == "ours":
        cache = os.path.join(work, f"cache-{n}")
        command = [ASSETPIPE, "convert", url, "--frame", "50%", "--cache-dir", cache, "--output", out + ".png"]
    else:
        command = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", repr(half), "-i", url, "-frames:v", "1",
                   "-sws_flags", "bicubic", out + ".png"]
    subprocess.run(["sync"])
    offset = os.path.getsize(log) if os.path.exists(log) else 0
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    time.sleep(0.2)  # nginx writes its log line once the response is done
    if result.returncode != 0:
        sys.exit(f"{name} failed: {result.stderr}")
    fetched, requests = origin_bytes_since(offset)
    if name == "ours":
        shutil.rmtree(cache, ignore_errors=True)
    return elapsed, fetched, requests, out


times = {"ours": [], "ffmpeg": []}
fetched = {"ours": [], "ffmpeg": []}
requests = {"ours": [], "ffmpeg": []}
outputs = {}
order = ["ours", "ffmpeg"]
try:
    for n in range(ROUNDS):
        for name in order[n % 2:] + order[:n % 2]:
            elapsed, got, count, out = run(name, n)
            times[name].append(elapsed); fetched[name].append(got); requests[name].append(count); outputs[name] = out
    from PIL import Image
    # both PNG: ours RGBA (alpha 255), ffmpeg's RGB24 from the same bicubic conversion
    ours = Image.open(outputs["ours"] + ".png").convert("RGB").tobytes()
    theirs = Image.open(outputs["ffmpeg"] + ".png").convert("RGB").tobytes()
    same = ours == theirs
finally:
    try:
        os.kill(int(open(os.path.join(work, "nginx.pid")).read()), 15)
    except Exception:
        pass

med = {k: statistics.median(v) for k, v in times.items()}
mib = lambda b: b / (1 << 20)
print("## Video frames\n")
print(f"`scripts/bench video-frames`: the frame at 50% ({half:.2f} s) of a {mib(size):,.0f} MiB MP4 ({layout}: the index at the end,")
print(f"1280x720 H.264 at 40 Mbit/s with AAC, x264's default key frame interval) on an nginx origin on loopback, from a cold cache.")
print(f"Ours: `assetpipe convert URL --frame 50% --cache-dir NEW -o f.png` (1 MiB chunks). Peer: `ffmpeg -ss {half:.2f} -i URL -frames:v 1 f.png`")
print(f"(FFmpeg {subprocess.run(['ffmpeg', '-version'], capture_output=True, text=True).stdout.split()[2]}), reading the origin itself. {ROUNDS} rounds, order rotated, `sync` before each run; whole-process times.\n")
print("| | ours | ffmpeg | ratio (ffmpeg / ours) |")
print("|---|---:|---:|---:|")
spread = lambda v: f"{min(v):.2f}-{max(v):.2f}"
print(f"| time to the frame, median (spread) | {med['ours']:.2f} s ({spread(times['ours'])}) | {med['ffmpeg']:.2f} s ({spread(times['ffmpeg'])}) | {med['ffmpeg'] / med['ours']:.2f}x |")
fo, ff = statistics.median(fetched["ours"]), statistics.median(fetched["ffmpeg"])
print(f"| bytes from the origin | {mib(fo):.1f} MiB ({100 * fo / size:.2f}% of the file) | {mib(ff):.1f} MiB ({100 * ff / size:.2f}%) | |")
print(f"| origin requests | {statistics.median(requests['ours']):.0f} | {statistics.median(requests['ffmpeg']):.0f} | |")
print(f"| same pixels as ffmpeg's frame | {'yes' if same else 'no'} | | |")
print()
goals = [
    ("fetches at most 5% of the file", fo <= 0.05 * size),
    ("the frame equals ffmpeg -ss's, pixel for pixel", same),
    ("time to the frame at or below ffmpeg's", med["ours"] <= med["ffmpeg"]),
]
print("| goal (issue 24) | |")
print("|---|---|")
for goal, met in goals:
    print(f"| {goal} | {'met' if met else 'not met'} |")
print()
shutil.rmtree(work, ignore_errors=True)
