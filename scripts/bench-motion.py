#!/usr/bin/env python3
"""MP4 output and video previews beside ffmpeg (issue 31): the same work, one core each.

    scripts/bench-motion.py ASSETPIPE OUTDIR [ROUNDS]

Jobs, each the same work for both contenders (same input, output size, encoder and settings:
libx264 through libavcodec, preset medium, CRF 23, yuv420p, `+faststart`, one x264 thread):
  gif-mp4     the 100-frame 480x270 GIF of scripts/bench-animation.py to a 240 px wide MP4:
              `assetpipe convert SRC -o OUT.mp4 --width 240` beside
              `ffmpeg -i SRC -vf scale=240:-2:flags=lanczos -c:v libx264 ...`
  preview     an animated preview, 3 s from 8.5 s at 10 fps, 320 px wide MP4, of a video on an nginx
              origin on loopback (the 17 s 640x360 H.264 clip of the fixtures, its index at the end),
              from a cold cache: `assetpipe convert URL --animate --from 8.5s --to 11.5s --fps 10
              --width 320 -o OUT.mp4 --cache-dir NEW` beside `ffmpeg -ss 8.5 -t 3 -i URL -vf
              fps=10,scale=320:-2:flags=lanczos -c:v libx264 ...`; the origin's body bytes too.
  preview-1g  the same of the 1 GiB MP4 of scripts/bench-storyboard.py (index at the end), 3 s from
              100 s, when that file is at STORYBOARD_CACHE (default /tmp/assetpipe-bench-storyboard).
Every row pinned to one core (taskset -c 0): the judged figure. Rounds with the order rotated,
`sync` before every run; medians and min-max. Each output is read back by ffprobe: H.264, yuv420p,
its size, frame count and duration, and `moov` before `mdat`. Prints one Markdown section.
Nothing leaves the machine.
"""
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
X264 = ["-c:v", "libx264", "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-threads", "1"]


def bench_animation():
    spec = importlib.util.spec_from_file_location("bench_animation", os.path.join(ROOT, "scripts/bench-animation.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Origin:
    """nginx on loopback serving `files` (name -> path), logging each response's body bytes."""

    def __init__(self, work, files):
        self.work = work
        www = os.path.join(work, "www")
        os.makedirs(www)
        os.makedirs(os.path.join(work, "t"))
        for name, path in files.items():
            target = os.path.join(www, name)
            if os.stat(path).st_dev == os.stat(www).st_dev:
                os.link(path, target)
            else:
                shutil.copy(path, target)
        subprocess.run(["chmod", "-R", "a+rX", work], check=True)
        self.port = free_port()
        self.log = os.path.join(work, "origin.log")
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""
worker_processes 1;  pid {work}/nginx.pid;  error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
  client_body_temp_path {work}/t/b; proxy_temp_path {work}/t/p; fastcgi_temp_path {work}/t/f;
  uwsgi_temp_path {work}/t/u; scgi_temp_path {work}/t/s;
  default_type application/octet-stream; sendfile on;
  log_format origin '$status $body_bytes_sent';
  server {{ listen 127.0.0.1:{self.port}; root {www}; etag on; expires 1h; access_log {self.log} origin; }}
}}
""")
        subprocess.run(["nginx", "-p", work, "-c", conf, "-e", os.path.join(work, "error.log")], check=True)

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def logged(self):
        """The log's lines so far (nginx writes one when a response is done: read after the client
        has exited, the lines of its requests are there once their count stops growing)."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [line for line in f.read().splitlines() if line]

    def stop(self):
        subprocess.run(["nginx", "-p", self.work, "-c", os.path.join(self.work, "nginx.conf"), "-s", "stop"], check=False)


def probe(path):
    text = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                           "stream=codec_name,pix_fmt,width,height,nb_read_frames:format=duration", "-of", "json", path],
                          check=True, capture_output=True, text=True).stdout
    facts = json.loads(text)
    stream = facts["streams"][0]
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    boxes, offset = [], 0
    while offset + 8 <= len(data) and len(boxes) < 4:
        size = int.from_bytes(data[offset:offset + 4], "big")
        boxes.append(data[offset + 4:offset + 8].decode("latin-1"))
        if size < 8:
            break
        offset += size
    faststart = "moov" in boxes and (boxes.index("moov") < boxes.index("mdat") if "mdat" in boxes else True)
    return {"codec": stream["codec_name"], "pix_fmt": stream["pix_fmt"], "size": f"{stream['width']}x{stream['height']}",
            "frames": int(stream["nb_read_frames"]), "duration": float(facts["format"]["duration"]), "faststart": faststart,
            "bytes": os.path.getsize(path)}


def main():
    assetpipe, outdir = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="assetpipe-motion-")
    gif = os.path.join(outdir, "bench-animation-source.gif")
    bench_animation().make_source(gif)
    clip = os.path.join(ROOT, "Fixtures/video/sample_with_increasing_timestamps_360p.mp4")
    big = os.path.join(os.environ.get("STORYBOARD_CACHE", "/tmp/assetpipe-bench-storyboard"), "storyboard-1024MiB-moov-at-end.mp4")
    files = {"clip.mp4": clip}
    if os.path.exists(big):
        files["big.mp4"] = big
    origin = Origin(work, files)
    jobs = {
        "gif-mp4": (None, lambda out, cache: [assetpipe, "convert", gif, "-o", out, "--width", "240"],
                    lambda out: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", gif, "-vf", "scale=240:-2:flags=lanczos"] + X264 + [out]),
        "preview": ("clip.mp4",) + tuple(previews(assetpipe, origin.url("clip.mp4"), 8.5)),
    }
    if "big.mp4" in files:
        jobs["preview-1g"] = ("big.mp4",) + tuple(previews(assetpipe, origin.url("big.mp4"), 100))
    results = {}
    try:
        for job, (source, ours, theirs) in jobs.items():
            times = {"ours": [], "ffmpeg": []}
            fetched = {"ours": [], "ffmpeg": []}
            outputs = {}
            for n in range(rounds):
                order = ["ours", "ffmpeg"] if n % 2 == 0 else ["ffmpeg", "ours"]
                for name in order:
                    out = os.path.join(outdir, f"motion-{job}-{name}.mp4")
                    cache = os.path.join(work, f"cache-{job}-{name}-{n}")
                    command = ours(out, cache) if name == "ours" else theirs(out)
                    before = len(origin.logged())
                    subprocess.run(["sync"])
                    start = time.monotonic()
                    result = subprocess.run(["taskset", "-c", "0"] + command, capture_output=True, text=True)
                    elapsed = time.monotonic() - start
                    if result.returncode != 0:
                        sys.exit(f"{job} {name} failed: {result.stderr}")
                    times[name].append(elapsed)
                    if source:
                        lines = settle(origin, before)
                        fetched[name].append(sum(int(line.split()[1]) for line in lines))
                    outputs[name] = out
                    shutil.rmtree(cache, ignore_errors=True)
            results[job] = (source, times, fetched, {name: probe(path) for name, path in outputs.items()})
    finally:
        origin.stop()
    report(results, files, rounds)


def previews(assetpipe, url, start):
    ours = lambda out, cache: [assetpipe, "convert", url, "--animate", "--from", f"{start}s", "--to", f"{start + 3}s", "--fps", "10",
                               "--width", "320", "-o", out, "--cache-dir", cache]
    theirs = lambda out: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", str(start), "-t", "3", "-i", url, "-an", "-vf",
                          "fps=10,scale=320:-2:flags=lanczos"] + X264 + [out]
    return ours, theirs


def settle(origin, before):
    """The log lines written since `before`, once no more arrive (nginx logs a response when it
    is done, which can be just after the client exits)."""
    lines, quiet = origin.logged(), 0
    while quiet < 3:
        time.sleep(0.05)
        again = origin.logged()
        quiet = quiet + 1 if len(again) == len(lines) else 0
        lines = again
    return lines[before:]


def report(results, files, rounds):
    ffmpeg_version = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.split()[2]
    print("## MP4 output and video previews\n")
    print(f"Written by `scripts/bench motion` (`scripts/bench-motion.py`), {rounds} rounds, order rotated, `sync` before each run, "
          f"every run pinned to one core (`taskset -c 0`), x264 with one thread in both (libx264 through libavcodec, preset medium, "
          f"CRF 23, yuv420p, `+faststart`). ffmpeg {ffmpeg_version} (the peer: libvips writes no MP4). Load average at the end: {os.getloadavg()[0]:.2f}.\n")
    print("| job | ours (median, min-max) | ffmpeg | ffmpeg / ours | origin bytes, ours / ffmpeg | output, ours | output, ffmpeg | goal |")
    print("|---|---|---|---|---|---|---|---|")
    for job, (source, times, fetched, facts) in results.items():
        ours, theirs = statistics.median(times["ours"]), statistics.median(times["ffmpeg"])
        spread = lambda values: f"{min(values) * 1000:.0f}-{max(values) * 1000:.0f}"
        moved = "-"
        if source:
            size = os.path.getsize(files[source])
            a, b = statistics.median(fetched["ours"]), statistics.median(fetched["ffmpeg"])
            moved = f"{a:,.0f} ({100 * a / size:.2f}%) / {b:,.0f} ({100 * b / size:.2f}%)"
        describe = lambda f: (f"{f['codec']} {f['pix_fmt']} {f['size']}, {f['frames']} frames, {f['duration']:.2f} s, "
                              f"{f['bytes']:,} B{', faststart' if f['faststart'] else ', index at the end'}")
        met = "met" if ours <= theirs else "not met"
        print(f"| {job} | {ours * 1000:.0f} ms ({spread(times['ours'])}) | {theirs * 1000:.0f} ms ({spread(times['ffmpeg'])}) | "
              f"{theirs / ours:.2f}x | {moved} | {describe(facts['ours'])} | {describe(facts['ffmpeg'])} | time at or below ffmpeg's: {met} |")


if __name__ == "__main__":
    main()
