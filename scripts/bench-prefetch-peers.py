#!/usr/bin/env python3
"""The prefetch benchmark (run by scripts/bench.d/70-prefetch.sh): prints one Markdown section.

nginx on 127.0.0.1:18095 serves 2,000 files of 50 KB and 200 files of 2 MB (`expires 1h`, ETags).
Every downloader gets the same list and the same concurrency and writes every file to a directory
on the same disk (ours into its cache). The disk's state moves absolute times by 2-3x, so the cold
runs go in PREFETCH_ROUNDS rounds (default 5), the order of the tools rotated each round, with an
untimed `sync` before every run and each run's output removed right after it (not just before the
next); each tool's median and spread are reported. Peak memory is the largest resident set of the
command and its children (wait4's ru_maxrss); origin requests are lines of nginx's access log.
The index's memory at a million entries: the same small prefetch against an empty cache and
against one holding 1,000,000 entries (filled by `assetpipe-bench fill-cache`).
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

ASSETPIPE = os.environ["ASSETPIPE"]
ASSETPIPE_BENCH = os.environ.get("ASSETPIPE_BENCH")
ROUNDS = int(os.environ.get("PREFETCH_ROUNDS", "5"))
INDEX_ENTRIES = int(os.environ.get("PREFETCH_INDEX_ENTRIES", "1000000"))
C = int(os.environ.get("PREFETCH_CONCURRENCY", "16"))
SMALL = int(os.environ.get("PREFETCH_SMALL", "2000"))
LARGE = int(os.environ.get("PREFETCH_LARGE", "200"))
TINY = int(os.environ.get("PREFETCH_TINY", "20000"))
PORT = 18095

LOAD_START = open("/proc/loadavg").read().split()[0]
w = tempfile.mkdtemp(prefix="assetpipe-bench-prefetch.")
os.chmod(w, 0o755)
www = os.path.join(w, "www")
for d in ("small", "large", "tiny"):
    os.makedirs(os.path.join(www, d))
for i in range(SMALL):
    with open(os.path.join(www, "small", f"f{i}.bin"), "wb") as f: f.write(os.urandom(50 * 1024))
for i in range(LARGE):
    with open(os.path.join(www, "large", f"f{i}.bin"), "wb") as f: f.write(os.urandom(2 << 20))
with open(os.path.join(www, "tiny", "t.bin"), "wb") as f: f.write(os.urandom(1024))
os.makedirs(os.path.join(w, "t"))
conf = f"""
worker_processes 2;  pid {w}/nginx.pid;  error_log {w}/error.log notice;
events {{ worker_connections 4096; }}
http {{
  client_body_temp_path {w}/t/b; proxy_temp_path {w}/t/p; fastcgi_temp_path {w}/t/f;
  uwsgi_temp_path {w}/t/u; scgi_temp_path {w}/t/s;
  default_type application/octet-stream;
  log_format origin '$status $request_method $uri $body_bytes_sent';
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{PORT}; root {www}; etag on; expires 1h;
    access_log {w}/origin.log origin;
    location /tiny/ {{ expires off; add_header Cache-Control "no-store"; }}
  }}
}}
"""
open(os.path.join(w, "nginx.conf"), "w").write(conf)
subprocess.run(["nginx", "-p", w, "-c", os.path.join(w, "nginx.conf"), "-e", os.path.join(w, "error.log")], check=True)

def stop():
    try:
        os.kill(int(open(os.path.join(w, "nginx.pid")).read()), 15)
    except Exception:
        pass
    time.sleep(0.2)
    shutil.rmtree(w, ignore_errors=True)

try:
    base = f"http://127.0.0.1:{PORT}"
    for _ in range(50):
        if subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/small/f0.bin"]).returncode == 0: break
        time.sleep(0.1)
    urls = [f"{base}/small/f{i}.bin" for i in range(SMALL)] + [f"{base}/large/f{i}.bin" for i in range(LARGE)]
    lst = os.path.join(w, "urls.txt")
    open(lst, "w").write("\n".join(urls) + "\n")
    log = os.path.join(w, "origin.log")

    def log_lines():
        with open(log) as f: return sum(1 for _ in f)

    def run(cmd, cwd=None):
        before = log_lines()
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t0
        err = p.stderr.read().decode(errors="replace")
        time.sleep(0.3)  # nginx logs after the response
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            print(f"warning: {cmd[0]} exited {code}: {err[-500:]}", file=sys.stderr)
        return secs, usage.ru_maxrss * 1024, log_lines() - before

    def fresh_dir(name):
        d = os.path.join(w, "out", name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    n = len(urls)
    def ours_cmd(cache):
        return [ASSETPIPE, "prefetch", lst, "--cache-dir", cache, "--concurrency", str(C), "--per-host", str(C), "--quiet"]
    def aria_cmd(d):
        return ["aria2c", "-q", f"-j{C}", "-x1", "-i", lst, "-d", d, "--allow-overwrite=true", "--auto-file-renaming=false"]
    cfg = os.path.join(w, "curl.cfg")
    def curl_cmd(d):
        with open(cfg, "w") as f:
            for i, u in enumerate(urls):
                f.write(f'url = "{u}"\noutput = "{d}/{i}.bin"\n')
        return ["curl", "-s", "--parallel", "--parallel-max", str(C), "-K", cfg]
    # wget has no concurrency of its own: C processes, each with its share of the list.
    parts = []
    for k in range(C):
        part = os.path.join(w, f"wget-{k}.txt")
        open(part, "w").write("\n".join(urls[k::C]) + "\n")
        parts.append(part)
    def wget_cmd(d, flags="-q -nd"):
        return ["sh", "-c", " & ".join(f"wget {flags} -i {p} -P {d}" for p in parts) + " & wait"]

    def timed(cmd):
        subprocess.run(["sync"], check=True)  # untimed: every run starts with the disk's dirty pages written
        return run(cmd)

    tools = ["ours", "curl", "wget", "aria2c"]
    cold = {t: [] for t in tools}
    warm = []
    peer_warm = {}
    orders = []
    for r in range(ROUNDS):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        orders.append(order)
        for tool in order:
            d = fresh_dir(tool)
            if tool == "ours":
                cold[tool].append(timed(ours_cmd(d)))
                warm.append(timed(ours_cmd(d)))
            elif tool == "curl":
                cold[tool].append(timed(curl_cmd(d)))
                if r == 0: peer_warm["curl warm (downloads again)"] = timed(curl_cmd(d))
            elif tool == "wget":
                cold[tool].append(timed(wget_cmd(d)))
                if r == 0: peer_warm["wget warm (-N)"] = timed(wget_cmd(d, "-q -N -nd"))
            else:
                cold[tool].append(timed(aria_cmd(d)))
                if r == 0: peer_warm["aria2c warm (--conditional-get)"] = timed(aria_cmd(d) + ["--conditional-get=true"])
            shutil.rmtree(d, ignore_errors=True)  # removed now, so that the deletion is not just before a run

    def med(values): return statistics.median(values)

    # Peak memory against list length: the same tiny file (no-store, so that the cache's own index,
    # which grows with what it holds, stays out of it) under 2,000 and 20,000 distinct URLs.
    def tiny_list(count):
        path = os.path.join(w, f"tiny-{count}.txt")
        open(path, "w").write("".join(f"{base}/tiny/t.bin?n={i}\n" for i in range(count)))
        return path
    def tiny_run(path, cache):
        return run([ASSETPIPE, "prefetch", path, "--cache-dir", cache, "--concurrency", str(C), "--per-host", str(C), "--quiet"])
    tiny_small = tiny_run(tiny_list(TINY // 10), fresh_dir("tiny-small"))
    tiny_large = tiny_run(tiny_list(TINY), fresh_dir("tiny-large"))

    # The index at a million entries: the 2,000-URL tiny run against an empty cache and against a
    # cache of INDEX_ENTRIES entries (opened from its snapshot, as after a clean close).
    index_rows = None
    if ASSETPIPE_BENCH and INDEX_ENTRIES > 0:
        filled = fresh_dir("filled")
        fill = subprocess.run([ASSETPIPE_BENCH, "fill-cache", "--directory", filled, "--entries", str(INDEX_ENTRIES)],
                              check=True, capture_output=True, text=True).stdout.strip()
        empty_runs = [tiny_run(tiny_list(TINY // 10), fresh_dir("tiny-empty")) for _ in range(3)]
        full_runs = [tiny_run(tiny_list(TINY // 10), filled) for _ in range(3)]
        empty_rss = med([x[1] for x in empty_runs])
        full_rss = med([x[1] for x in full_runs])
        index_rows = (fill, empty_rss, full_rss, med([x[0] for x in empty_runs]), med([x[0] for x in full_runs]))
        shutil.rmtree(filled, ignore_errors=True)

    print("## Prefetch")
    print()
    print(f"{SMALL:,} files of 50 KB and {LARGE} files of 2 MB ({(SMALL * 50 * 1024 + LARGE * (2 << 20)) / 2**20:.0f} MiB) from nginx on loopback")
    print(f"(`expires 1h`, ETags), concurrency {C} for everyone, each downloader writing every file to a directory on")
    print(f"the same disk. Ours: `assetpipe prefetch urls.txt --cache-dir DIR --concurrency {C} --per-host {C} --quiet`")
    print(f"(release build); `aria2c -q -j{C} -x1 -i urls.txt -d DIR` (warm: `--conditional-get=true`);")
    print(f"`curl -s --parallel --parallel-max {C} -K list.cfg`; wget: {C} processes of `wget -q -nd -i PART -P DIR`")
    print(f"(warm: `-N`). {ROUNDS} rounds, the order rotated each round ({'; '.join(', '.join(o) for o in orders)}),")
    print("an untimed `sync` before every run, each run's files removed right after it. Peak memory: the largest resident")
    print(f"set of one process (wait4's ru_maxrss; for wget, the largest of its {C} processes). Origin requests: nginx's access log.")
    print(f"Load average (1 min) at the start and the end: {LOAD_START} / {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} cores.")
    print()
    print("| run | median wall s | spread (min-max) s | median files/s | peak MiB | origin requests per run |")
    print("|---|---:|---:|---:|---:|---:|")
    def row(name, runs):
        secs = [x[0] for x in runs]
        print(f"| {name} | {med(secs):.3f} | {min(secs):.3f}-{max(secs):.3f} | {n / med(secs):.0f} | "
              f"{med([x[1] for x in runs]) / 2**20:.1f} | {'/'.join(sorted(set(str(x[2]) for x in runs)))} |")
    row("ours cold", cold["ours"])
    row("ours warm (after each cold run)", warm)
    for t in ["curl", "wget", "aria2c"]:
        row(f"{t} cold", cold[t])
    for name, result in peer_warm.items():
        row(name + ", round 1", [result])
    print()
    peers = {t: med([x[0] for x in cold[t]]) for t in ["curl", "wget", "aria2c"]}
    fastest = min(peers, key=peers.get)
    ours_cold = med([x[0] for x in cold["ours"]])
    ratio = peers[fastest] / ours_cold
    print(f"Cold: ours / fastest peer ({fastest}) **{ratio:.2f}x** the throughput (medians; "
          + ", ".join(f"ours / {t} {v / ours_cold:.2f}x" for t, v in peers.items())
          + f"); per round, ours / {fastest}: " + ", ".join(f"{cold[fastest][i][0] / cold['ours'][i][0]:.2f}x" for i in range(ROUNDS))
          + f". Goal: at or above the fastest peer: **{'met' if ratio >= 1 else 'not met'}**.")
    warm_pct = 100 * med([x[0] for x in warm]) / ours_cold
    warm_requests = sum(x[2] for x in warm)
    print(f"Warm: **{warm_pct:.1f}%** of our cold time (medians) with {warm_requests} origin requests in {len(warm)} runs "
          f"(goal: under 10%, zero requests: **{'met' if warm_pct < 10 and warm_requests == 0 else 'not met'}**).")
    print(f"Peak memory against list length (a 1 KB `no-store` body under distinct URLs): {TINY // 10:,} URLs {tiny_small[1] / 2**20:.1f} MiB, {TINY:,} URLs "
          f"{tiny_large[1] / 2**20:.1f} MiB ({tiny_small[0]:.2f} s and {tiny_large[0]:.2f} s; goal: flat).")
    if index_rows:
        fill, empty_rss, full_rss, empty_s, full_s = index_rows
        per_entry = (full_rss - empty_rss) / INDEX_ENTRIES
        print(f"Index memory: the {TINY // 10:,}-URL run's peak against an empty cache {empty_rss / 2**20:.1f} MiB ({empty_s:.2f} s), "
              f"against a cache of {INDEX_ENTRIES:,} entries {full_rss / 2**20:.1f} MiB ({full_s:.2f} s, opening included; medians of 3): "
              f"**{per_entry:.0f} bytes per entry** (goal: at most 200: **{'met' if per_entry <= 200 else 'not met'}**). Fill: `{fill}`.")
finally:
    stop()
