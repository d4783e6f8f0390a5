#!/usr/bin/env python3
"""The prefetch benchmark (run by scripts/bench.d/70-prefetch.sh): prints one Markdown section.

nginx on 127.0.0.1:18090 serves 2,000 files of 50 KB and 200 files of 2 MB (`expires 1h`, ETags).
Every downloader gets the same list and the same concurrency and writes every file to a directory
on the same disk (ours into its cache). Peak memory is the largest resident set of the command and
its children (wait4's ru_maxrss); origin requests are lines of nginx's access log.
"""
import os, shutil, subprocess, sys, tempfile, time

ASSETPIPE = os.environ["ASSETPIPE"]
C = int(os.environ.get("PREFETCH_CONCURRENCY", "16"))
SMALL = int(os.environ.get("PREFETCH_SMALL", "2000"))
LARGE = int(os.environ.get("PREFETCH_LARGE", "200"))
TINY = int(os.environ.get("PREFETCH_TINY", "20000"))
PORT = 18095

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
    rows = []
    ours_cache = fresh_dir("ours-cache")
    ours = [ASSETPIPE, "prefetch", lst, "--cache-dir", ours_cache, "--concurrency", str(C), "--per-host", str(C), "--quiet"]
    res = {}
    res["ours cold"] = run(ours)
    res["ours warm"] = run(ours)

    aria_dir = fresh_dir("aria2")
    aria = ["aria2c", "-q", f"-j{C}", "-x1", "-i", lst, "-d", aria_dir, "--allow-overwrite=true", "--auto-file-renaming=false"]
    res["aria2c cold"] = run(aria)
    res["aria2c warm (--conditional-get)"] = run(aria + ["--conditional-get=true"])

    curl_dir = fresh_dir("curl")
    cfg = os.path.join(w, "curl.cfg")
    with open(cfg, "w") as f:
        for i, u in enumerate(urls):
            f.write(f'url = "{u}"\noutput = "{curl_dir}/{i}.bin"\n')
    curl = ["curl", "-s", "--parallel", "--parallel-max", str(C), "-K", cfg]
    res["curl cold"] = run(curl)
    res["curl warm (downloads again)"] = run(curl)

    # wget has no concurrency of its own: C processes, each with its share of the list.
    wget_dir = fresh_dir("wget")
    parts = []
    for k in range(C):
        part = os.path.join(w, f"wget-{k}.txt")
        open(part, "w").write("\n".join(urls[k::C]) + "\n")
        parts.append(part)
    script = " & ".join(f"wget -q -nd -i {p} -P {wget_dir}" for p in parts) + " & wait"
    res["wget cold"] = run(["sh", "-c", script])
    script_n = " & ".join(f"wget -q -N -nd -i {p} -P {wget_dir}" for p in parts) + " & wait"
    res["wget warm (-N)"] = run(["sh", "-c", script_n])

    # Peak memory against list length: the same tiny file (no-store, so that the cache's own index,
    # which grows with what it holds, stays out of it) under 2,000 and 20,000 distinct URLs.
    def tiny_run(count):
        path = os.path.join(w, f"tiny-{count}.txt")
        open(path, "w").write("".join(f"{base}/tiny/t.bin?n={i}\n" for i in range(count)))
        cache = fresh_dir(f"tiny-cache-{count}")
        return run([ASSETPIPE, "prefetch", path, "--cache-dir", cache, "--concurrency", str(C), "--per-host", str(C), "--quiet"])
    tiny_small = tiny_run(TINY // 10)
    tiny_large = tiny_run(TINY)

    print("## Prefetch")
    print()
    print(f"{SMALL:,} files of 50 KB and {LARGE} files of 2 MB ({(SMALL * 50 * 1024 + LARGE * (2 << 20)) / 2**20:.0f} MiB) from nginx on loopback")
    print(f"(`expires 1h`, ETags), concurrency {C} for everyone, each downloader writing every file to a directory on")
    print(f"the same disk. Ours: `assetpipe prefetch urls.txt --cache-dir DIR --concurrency {C} --per-host {C} --quiet`")
    print(f"(release build); `aria2c -q -j{C} -x1 -i urls.txt -d DIR` (warm: `--conditional-get=true`);")
    print(f"`curl -s --parallel --parallel-max {C} -K list.cfg`; wget: {C} processes of `wget -q -nd -i PART -P DIR`")
    print(f"(warm: `-N`). Peak memory: the largest resident set of one process (wait4's ru_maxrss; for wget, the largest of")
    print(f"its {C} processes, so its total is about {C} times that). Origin requests: nginx's access log.")
    print(f"Load average at the start: {open('/proc/loadavg').read().split()[0]}.")
    print()
    print("| run | wall s | files/s | peak MiB | origin requests |")
    print("|---|---:|---:|---:|---:|")
    for name, (secs, rss, reqs) in res.items():
        print(f"| {name} | {secs:.3f} | {n / secs:.0f} | {rss / 2**20:.1f} | {reqs} |")
    print()
    peers = {k: v for k, v in res.items() if k.endswith("cold") and not k.startswith("ours")}
    fastest = min(peers, key=lambda k: peers[k][0])
    ours_cold = res["ours cold"][0]
    print(f"Cold: ours / fastest peer ({fastest.replace(' cold', '')}) **{peers[fastest][0] / ours_cold:.2f}x** the throughput; "
          + ", ".join(f"ours / {k.replace(' cold', '')} {v[0] / ours_cold:.2f}x" for k, v in peers.items())
          + " (goal: at or above the fastest peer).")
    print(f"Warm: **{100 * res['ours warm'][0] / ours_cold:.1f}%** of our cold time with {res['ours warm'][2]} origin requests "
          "(goal: under 10%, zero requests).")
    print(f"Peak memory against list length (a 1 KB `no-store` body under distinct URLs): {TINY // 10:,} URLs {tiny_small[1] / 2**20:.1f} MiB, {TINY:,} URLs "
          f"{tiny_large[1] / 2**20:.1f} MiB ({tiny_small[0]:.2f} s and {tiny_large[0]:.2f} s; goal: flat).")
finally:
    stop()
