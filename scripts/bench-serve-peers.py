#!/usr/bin/env python3
"""The service benchmark (run by scripts/bench.d/80-serve.sh): prints one Markdown section.

An nginx origin on loopback serves a 50 KB file, a 100 MiB file and cold files (`expires 1h`,
ETags). In front of it, each on its own port: nginx `proxy_cache` (with `slice 1m` for the large
file and `proxy_cache_lock on`), Varnish (malloc storage) and `assetpipe serve --origin` (ours, in
reverse-proxy mode, and the same process's `/v1/asset?url=` API). wrk (Debian) loads each with the
same connection counts, several rounds, the contenders' order rotated each round and `sync` before
every timed run; medians and spreads are reported. Workloads:

  (a) a cached 50 KB asset;
  (b) a cached 1 MiB range of the 100 MiB file (`Range: bytes=10485760-11534335`);
  (c) a cold burst: 500 concurrent requests for one uncached 2 MiB asset (origin requests and time
      to the last byte of the last response).

Everything runs on 127.0.0.1: the generator shares the 2 cores with the servers, so the ratios
are what to read. Peak memory is each server's VmHWM (all of its processes) at the end.
"""
import asyncio, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time

ASSETPIPE = os.environ["ASSETPIPE"]
ROUNDS = int(os.environ.get("SERVE_ROUNDS", "3"))
SECONDS = int(os.environ.get("SERVE_SECONDS", "5"))
CONNECTIONS = [int(c) for c in os.environ.get("SERVE_CONNECTIONS", "16,64,256").split(",")]
BURST = int(os.environ.get("SERVE_BURST", "500"))
ORIGIN, NGINX, VARNISH, OURS = 18100, 18101, 18102, 18103
BIG_MIB = 100
RANGE = (10 << 20, (11 << 20) - 1)

w = tempfile.mkdtemp(prefix="assetpipe-bench-serve.")
os.chmod(w, 0o755)
www = os.path.join(w, "www")
for d in ("a", "big", "cold"):
    os.makedirs(os.path.join(www, d))
with open(os.path.join(www, "a", "a.bin"), "wb") as f: f.write(os.urandom(50 * 1024))
with open(os.path.join(www, "big", "big.bin"), "wb") as f: f.write(os.urandom(BIG_MIB << 20))
for i in range(ROUNDS * 4):
    with open(os.path.join(www, "cold", f"c{i}.bin"), "wb") as f: f.write(os.urandom(2 << 20))
for d in ("t", "ncache", "varnish", "ours"):
    os.makedirs(os.path.join(w, d))
subprocess.run(["chmod", "-R", "a+rX", www])
subprocess.run(["chown", "-R", "nobody", os.path.join(w, "t"), os.path.join(w, "ncache")])

conf = f"""
worker_processes auto;  pid {w}/nginx.pid;  error_log {w}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  client_body_temp_path {w}/t/b; proxy_temp_path {w}/t/p; fastcgi_temp_path {w}/t/f;
  uwsgi_temp_path {w}/t/u; scgi_temp_path {w}/t/s;
  default_type application/octet-stream;
  sendfile on; tcp_nopush on; keepalive_requests 1000000;
  log_format origin '$status $request_method $uri "$http_range" $body_bytes_sent';
  server {{
    listen 127.0.0.1:{ORIGIN}; root {www}; etag on; expires 1h; max_ranges 1;
    access_log {w}/origin.log origin;
  }}
  proxy_cache_path {w}/ncache levels=1:2 keys_zone=peer:50m max_size=4g inactive=7d use_temp_path=off;
  upstream origin {{ server 127.0.0.1:{ORIGIN}; keepalive 64; }}
  server {{
    listen 127.0.0.1:{NGINX};
    access_log off;
    proxy_http_version 1.1; proxy_set_header Connection "";
    proxy_cache peer; proxy_cache_valid 200 206 1h; proxy_cache_lock on; proxy_cache_revalidate on;
    location /big/ {{
      slice 1m; proxy_cache_key $uri$is_args$args$slice_range; proxy_set_header Range $slice_range;
      proxy_pass http://origin;
    }}
    location / {{ proxy_pass http://origin; }}
  }}
}}
"""
open(os.path.join(w, "nginx.conf"), "w").write(conf)

procs = {}


def start_all():
    subprocess.run(["nginx", "-p", w, "-c", os.path.join(w, "nginx.conf"), "-e", os.path.join(w, "error.log")], check=True)
    procs["varnish"] = subprocess.Popen(
        ["varnishd", "-F", "-a", f"127.0.0.1:{VARNISH}", "-b", f"127.0.0.1:{ORIGIN}", "-n", os.path.join(w, "varnish"),
         "-s", "malloc,1g", "-p", "http_max_hdr=128"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs["ours"] = subprocess.Popen(
        [ASSETPIPE, "serve", "--port", str(OURS), "--origin", f"http://127.0.0.1:{ORIGIN}", "--allow-private",
         "--cache-dir", os.path.join(w, "ours"), "--log-level", "warning", "--max-connections", "4096"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(w, "ours.log"), "w"))
    for port in (ORIGIN, NGINX, VARNISH, OURS):
        for _ in range(100):
            if subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/a/a.bin"]).returncode == 0:
                break
            time.sleep(0.1)


def stop_all():
    try:
        os.kill(int(open(os.path.join(w, "nginx.pid")).read()), signal.SIGTERM)
    except Exception:
        pass
    for p in procs.values():
        p.terminate()
    for p in procs.values():
        try:
            p.wait(timeout=10)
        except Exception:
            p.kill()
    time.sleep(0.3)
    shutil.rmtree(w, ignore_errors=True)


def pids(name):
    """The processes of one server (all of nginx's but the origin's worker can't be told apart,
    so nginx's peak counts its master and workers, which serve both ports)."""
    if name == "nginx":
        master = int(open(os.path.join(w, "nginx.pid")).read())
        out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
        return [master] + [int(p) for p in out]
    if name == "varnish":
        root = procs["varnish"].pid
        out = subprocess.run(["pgrep", "-P", str(root)], capture_output=True, text=True).stdout.split()
        return [root] + [int(p) for p in out]
    return [procs["ours"].pid]


def peak_mib(name):
    total = 0
    for pid in pids(name):
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total / 1024


def origin_lines():
    with open(os.path.join(w, "origin.log")) as f:
        return sum(1 for _ in f)


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(name):
    """User and system CPU seconds so far of one server's processes (all their threads)."""
    user = system = 0
    for pid in pids(name):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            user += int(fields[11])
            system += int(fields[12])
        except (FileNotFoundError, IndexError):
            pass
    return user / TICK, system / TICK


def wrk(url, connections, headers=(), server=None):
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{SECONDS}s", "--latency"]
    for h in headers:
        cmd += ["-H", h]
    subprocess.run(["sync"])
    before = cpu_seconds(server)
    out = subprocess.run(cmd + [url], capture_output=True, text=True).stdout
    after = cpu_seconds(server)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    user_us = (after[0] - before[0]) / max(1, requests) * 1e6
    system_us = (after[1] - before[1]) / max(1, requests) * 1e6
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)

    def latency(p):
        m = re.search(rf"^\s+{p}%\s+([0-9.]+)(us|ms|s)", out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    bad = int(non2xx.group(1)) if non2xx else 0
    if errors:
        bad += sum(int(x) for x in errors.groups())
    return rps, latency(50), latency(99), bad, user_us, system_us


async def one_request(port, path):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, len(data)


async def burst(port, path, count):
    start = time.perf_counter()
    results = await asyncio.gather(*(one_request(port, path) for _ in range(count)), return_exceptions=True)
    elapsed = time.perf_counter() - start
    ok = sum(1 for r in results if not isinstance(r, BaseException) and r[0] == 200 and r[1] > (2 << 20))
    return elapsed, ok


CONTENDERS = {
    "nginx proxy_cache": (NGINX, "{path}"),
    "Varnish": (VARNISH, "{path}"),
    "ours (reverse proxy)": (OURS, "{path}"),
    "ours (/v1/asset)": (OURS, "/v1/asset?url=http%3A%2F%2F127.0.0.1%3A" + str(ORIGIN) + "{path_encoded}"),
}


def server_of(name):
    return "ours" if name.startswith("ours") else name.split(" ")[0].lower()


def url_for(name, path):
    port, template = CONTENDERS[name]
    encoded = path.replace("/", "%2F")
    return port, template.format(path=path, path_encoded=encoded)


def main():
    start_all()
    range_header = f"Range: bytes={RANGE[0]}-{RANGE[1]}"
    names = list(CONTENDERS)
    # warm every cache: the 50 KB file and the range
    for name in names:
        port, target = url_for(name, "/a/a.bin")
        subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}{target}"])
        port, target = url_for(name, "/big/big.bin")
        subprocess.run(["curl", "-s", "-o", "/dev/null", "-H", range_header, f"http://127.0.0.1:{port}{target}"])
        subprocess.run(["curl", "-s", "-o", "/dev/null", "-H", range_header, f"http://127.0.0.1:{port}{target}"])
    results = {}  # (workload, connections, name) -> list of (rps, p50, p99, bad)
    bursts = {}   # name -> list of (seconds, ok, origin requests)
    stages = {"warmed": peak_mib("ours")}  # ours' VmHWM: where its peak comes from
    cold_index = 0
    for round_index in range(ROUNDS):
        order = names[round_index % len(names):] + names[:round_index % len(names)]
        for workload, path, headers in (("a", "/a/a.bin", ()), ("b", "/big/big.bin", (range_header,))):
            for c in CONNECTIONS:
                for name in order:
                    port, target = url_for(name, path)
                    results.setdefault((workload, c, name), []).append(
                        wrk(f"http://127.0.0.1:{port}{target}", c, headers, server=server_of(name)))
        stages.setdefault("loads", peak_mib("ours"))
        for name in order:
            port, target = url_for(name, f"/cold/c{cold_index}.bin")
            cold_index += 1
            subprocess.run(["sync"])
            before = origin_lines()
            seconds, ok = asyncio.run(burst(port, target, BURST))
            time.sleep(0.5)
            bursts.setdefault(name, []).append((seconds, ok, origin_lines() - before))
    peaks = {name: peak_mib(server_of(name)) for name in names}
    report(results, bursts, peaks, names, stages)


def med(values):
    return statistics.median(values)


def spread(values):
    return f"{min(values):,.0f}–{max(values):,.0f}"


def verdict(ok):
    return "**met**" if ok else "**not met**"


def report(results, bursts, peaks, names, stages):
    load = open("/proc/loadavg").read().split()[0]
    print("## Service")
    print()
    print(f"`assetpipe serve --origin http://127.0.0.1:{ORIGIN} --allow-private` (release build, reverse-proxy mode, and the same")
    print("process's `/v1/asset?url=` API) against nginx 1.22 `proxy_cache` (`worker_processes auto`, `slice 1m` for the")
    print("large file, `proxy_cache_lock on`) and Varnish 7.1 (`-s malloc,1g`), each in front of the same nginx origin on")
    print(f"loopback. Load from `wrk -t2 -cN -d{SECONDS}s --latency` on the same 2 cores; {ROUNDS} rounds with the order of the")
    print("contenders rotated each round and `sync` before every run; the table shows medians (requests/s with the")
    print("spread over the rounds). CPU per request is the server's user and system time over the run (all its")
    print("processes and threads, from `/proc/PID/stat`) divided by the requests wrk completed; nginx's counts its")
    print(f"master and workers. Load average at the end: {load}. Written by `scripts/bench serve`.")
    print()
    goals = []
    for workload, title in (("a", "(a) a cached 50 KB asset"), ("b", "(b) a cached 1 MiB range of a 100 MiB file")):
        print(f"**{title}**")
        print()
        print("| connections | contender | requests/s (median, spread) | p50 ms | p99 ms | user µs/req | system µs/req | errors |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|")
        for c in CONNECTIONS:
            for name in names:
                runs = results[(workload, c, name)]
                rps = [r[0] for r in runs]
                print(f"| {c} | {name} | {med(rps):,.0f} ({spread(rps)}) | {med([r[1] for r in runs]):.2f} | "
                      f"{med([r[2] for r in runs]):.2f} | {med([r[4] for r in runs]):.1f} | {med([r[5] for r in runs]):.1f} | "
                      f"{sum(r[3] for r in runs)} |")
        print()
        for c in CONNECTIONS:
            nginx = results[(workload, c, "nginx proxy_cache")]
            varnish = results[(workload, c, "Varnish")]
            for ours in ("ours (reverse proxy)", "ours (/v1/asset)"):
                mine = results[(workload, c, ours)]
                rps, p99 = med([r[0] for r in mine]), med([r[2] for r in mine])
                if workload == "a":
                    peer_rps, peer_p99 = med([r[0] for r in nginx]), med([r[2] for r in nginx])
                    goals.append((f"50 KB, {c} connections, {ours}: requests/s at least nginx proxy_cache's",
                                  f"{rps / peer_rps:.2f}x", rps >= peer_rps))
                    goals.append((f"50 KB, {c} connections, {ours}: p99 at most 1.2x nginx proxy_cache's",
                                  f"{p99:.2f} ms vs {peer_p99:.2f} ms, {p99 / peer_p99:.2f}x", p99 <= 1.2 * peer_p99))
                else:
                    peer_rps = max(med([r[0] for r in nginx]), med([r[0] for r in varnish]))
                    goals.append((f"1 MiB range, {c} connections, {ours}: requests/s at least Varnish's and nginx's",
                                  f"{rps / peer_rps:.2f}x the faster", rps >= peer_rps))
    # CPU per request: the 50 KB workload over every connection count
    def cpu(name):
        return med([r[4] for c in CONNECTIONS for r in results[("a", c, name)]])
    for ours in ("ours (reverse proxy)", "ours (/v1/asset)"):
        goals.append((f"user CPU per cached 50 KB request, {ours}: at most 1.5x nginx proxy_cache's",
                      f"{cpu(ours):.1f} µs vs {cpu('nginx proxy_cache'):.1f} µs, {cpu(ours) / cpu('nginx proxy_cache'):.2f}x",
                      cpu(ours) <= 1.5 * cpu("nginx proxy_cache")))
    print(f"**(c) a cold burst: {BURST} concurrent requests for one uncached 2 MiB asset** (a new file each round; one")
    print("connection per request)")
    print()
    print("| contender | origin requests per burst | time to last byte s (median, spread) | complete answers |")
    print("|---|---:|---:|---:|")
    for name in names:
        runs = bursts[name]
        secs = [r[0] for r in runs]
        print(f"| {name} | {', '.join(str(r[2]) for r in runs)} | {med(secs):.3f} ({min(secs):.3f}–{max(secs):.3f}) | "
              f"{', '.join(str(r[1]) for r in runs)} |")
    print()
    print("Peak memory (VmHWM at the end of the whole run; nginx's master and workers, which also serve the origin;")
    print("Varnish's manager and child): "
          + ", ".join(f"{name} {peaks[name]:.0f} MiB" for name in names if name != "ours (/v1/asset)") + ".")
    print(f"Ours' peak by stage: {stages['warmed']:.0f} MiB once started and warmed, {stages['loads']:.0f} MiB after the first "
          f"round of the 50 KB and range loads, {peaks['ours (reverse proxy)']:.0f} MiB after the cold bursts of {BURST} "
          "connections at once.")
    print()
    goals.append(("one origin request per cold burst, ours", ", ".join(
        str(r[2]) for n in names if n.startswith("ours") for r in bursts[n]),
        all(r[2] == 1 for n in names if n.startswith("ours") for r in bursts[n])))
    ours_peak, nginx_peak = peaks["ours (reverse proxy)"], peaks["nginx proxy_cache"]
    goals.append(("peak memory at most 2x nginx's", f"{ours_peak:.0f} MiB vs {nginx_peak:.0f} MiB, {ours_peak / nginx_peak:.2f}x",
                  ours_peak <= 2 * nginx_peak))
    met = sum(1 for g in goals if g[2])
    print(f"**Goals (issue 23), from this run: {met} of {len(goals)} met.**")
    print()
    print("| goal | measured | |")
    print("|---|---|---|")
    for goal, measured, ok in goals:
        print(f"| {goal} | {measured} | {verdict(ok)} |")


try:
    main()
finally:
    stop_all()
