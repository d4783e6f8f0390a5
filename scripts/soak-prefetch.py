#!/usr/bin/env python3
"""A prefetch of a million URLs against nginx on loopback, sampling the process as it runs.

    scripts/soak-prefetch.py [--urls N] [--binary PATH] [--interval SECONDS] [--json FILE]

nginx (Debian's nginx-light, as scripts/bench.d/70-prefetch.sh uses it) serves one 2 KB file on
127.0.0.1; the list asks for it under N distinct query strings (`/s/a.bin?i=0`, `?i=1`...), so that
every line is a distinct URL, a distinct cache key and a real request. The answers carry
`Cache-Control: no-store`: the run measures the loading path (the list feed, the duplicate filter,
the host limiter, the loader, the connection pool, the report), not the disk cache's index, which
grows with what it stores by design. `assetpipe prefetch --report` writes one item per URL.

Every --interval seconds it samples the prefetch process: resident memory (VmRSS), open descriptors
(/proc/PID/fd) and nginx's request count (its access log). Prints a Markdown table of the samples on
standard output (and the JSON with --json) and exits 1 when the run fails, when an item failed, or
when memory or descriptors grow between the first tenth of the run and its end (by more than 32 MiB
or 16 descriptors). Without --binary it builds `assetpipe` in release mode.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--urls", type=int, default=1_000_000)
p.add_argument("--binary")
p.add_argument("--interval", type=float, default=5.0)
p.add_argument("--json")
p.add_argument("--concurrency", type=int, default=32)
args = p.parse_args()
PORT = 18500 + os.getpid() % 400


def log(*parts):
    print("soak:", *parts, file=sys.stderr, flush=True)


binary = args.binary or os.environ.get("ASSETPIPE")
if not binary:
    subprocess.run(["swift", "build", "-c", "release", "--product", "assetpipe"], cwd=ROOT, check=True, stdout=sys.stderr)
    binary = os.path.join(subprocess.check_output(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, text=True).strip(), "assetpipe")

w = tempfile.mkdtemp(prefix="assetpipe-soak.")
os.chmod(w, 0o755)
os.makedirs(os.path.join(w, "www", "s"))
os.makedirs(os.path.join(w, "t"))
with open(os.path.join(w, "www", "s", "a.bin"), "wb") as f:
    f.write(os.urandom(2048))
conf = f"""
worker_processes 1;  pid {w}/nginx.pid;  error_log {w}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  client_body_temp_path {w}/t/b; proxy_temp_path {w}/t/p; fastcgi_temp_path {w}/t/f;
  uwsgi_temp_path {w}/t/u; scgi_temp_path {w}/t/s;
  default_type application/octet-stream;
  log_format origin '$status';
  keepalive_requests 10000000;
  server {{
    listen 127.0.0.1:{PORT}; root {w}/www; etag on;
    access_log {w}/origin.log origin buffer=64k flush=1s;
    add_header Cache-Control "no-store";
  }}
}}
"""
open(os.path.join(w, "nginx.conf"), "w").write(conf)
subprocess.run(["nginx", "-p", w, "-c", os.path.join(w, "nginx.conf"), "-e", os.path.join(w, "error.log")], check=True)


def stop_nginx():
    try:
        os.kill(int(open(os.path.join(w, "nginx.pid")).read()), 15)
    except Exception:
        pass


def origin_requests():
    try:
        with open(os.path.join(w, "origin.log"), "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def sample(pid):
    rss = 0
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return None
    return rss, fds


status = 1
try:
    base = f"http://127.0.0.1:{PORT}/s/a.bin"
    for _ in range(100):
        if subprocess.run(["curl", "-s", "-o", "/dev/null", base]).returncode == 0:
            break
        time.sleep(0.05)
    listing = os.path.join(w, "urls.txt")
    with open(listing, "w") as f:
        for i in range(args.urls):
            f.write(f"{base}?i={i}\n")
    report = os.path.join(w, "report.json")
    command = [binary, "prefetch", listing, "--cache-dir", os.path.join(w, "cache"), "--quiet", "--report", report,
               "--concurrency", str(args.concurrency), "--per-host", str(args.concurrency)]
    log(f"prefetching {args.urls:,} URLs from nginx on 127.0.0.1:{PORT}, sampling every {args.interval:g} s...")
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples = []
    while proc.poll() is None:
        s = sample(proc.pid)
        if s:
            samples.append({"seconds": round(time.monotonic() - start, 1), "rssKiB": s[0], "fds": s[1], "requests": origin_requests()})
        time.sleep(args.interval)
    err = proc.stderr.read().decode(errors="replace")
    seconds = time.monotonic() - start
    time.sleep(1.5)  # nginx flushes its log
    requests = origin_requests()
    summary = json.load(open(report))["summary"] if os.path.exists(report) else {}
    log(err.strip().splitlines()[-1] if err.strip() else f"exit status {proc.returncode}")
    tenth = next((x for x in samples if x["requests"] >= args.urls // 10), samples[0] if samples else None)
    last = samples[-1] if samples else None
    result = {
        "urls": args.urls, "seconds": round(seconds, 1), "exitStatus": proc.returncode, "originRequests": requests,
        "summary": summary, "samples": samples, "concurrency": args.concurrency,
    }
    flat = bool(tenth and last and last["rssKiB"] - tenth["rssKiB"] <= 32 * 1024 and last["fds"] - tenth["fds"] <= 16)
    result["flat"] = flat
    if args.json:
        json.dump(result, open(args.json, "w"), indent=1)
    # the table: about a dozen samples spread over the run
    picks = samples[:: max(1, len(samples) // 12)]
    if samples and picks[-1] is not samples[-1]:
        picks.append(samples[-1])
    print(f"| elapsed (s) | origin requests | resident (MiB) | open descriptors |")
    print(f"|---:|---:|---:|---:|")
    for x in picks:
        print(f"| {x['seconds']:.0f} | {x['requests']:,} | {x['rssKiB'] / 1024:.1f} | {x['fds']} |")
    print()
    print(f"{args.urls:,} URLs in {seconds:.0f} s ({args.urls / seconds:,.0f}/s), exit status {proc.returncode}; "
          f"{summary.get('downloaded', 0):,} downloaded, {summary.get('failed', 0):,} failed; nginx logged {requests:,} requests. "
          + (f"From the first tenth (at {tenth['seconds']:.0f} s) to the end: resident {tenth['rssKiB'] / 1024:.1f} -> {last['rssKiB'] / 1024:.1f} MiB, "
             f"descriptors {tenth['fds']} -> {last['fds']}: {'flat' if flat else 'NOT flat'}." if tenth and last else ""))
    status = 0 if proc.returncode == 0 and summary.get("failed", 1) == 0 and flat else 1
finally:
    stop_nginx()
    time.sleep(0.3)
    shutil.rmtree(w, ignore_errors=True)
sys.exit(status)
