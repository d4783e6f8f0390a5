#!/usr/bin/env python3
"""radosgw stopped in the middle of a run (scripts/reliability.d/15-s3.sh): prints Markdown rows.

A radosgw of its own (scripts/radosgw). Two runs, each with the gateway stopped (SIGTERM to radosgw
alone: the cluster and its objects stay) a third of the way in, then started again to look at the
bucket:
  1. `assetpipe prefetch` of 300 s3:// objects of 200 KB (concurrency 4): every item must end ok or
     with a typed error in the report, and `assetpipe cache verify` must find every entry whole;
  2. 60 `assetpipe convert s3://.../i.png --derived-store s3://...` in a row: each must exit 0 (a
     variant made) or 1 with a typed error (the source unreachable), never anything else; after the
     restart every object under the store's prefix must be whole (its variant decodes, its size the
     size the converting process wrote).
Usage: s3-stop.py ASSETPIPE
"""
import collections, io, json, os, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSETPIPE = sys.argv[1]
started = subprocess.run([os.path.join(ROOT, "scripts", "radosgw"), "start"], check=True, capture_output=True, text=True).stdout
rgw = dict(line.replace("export ", "", 1).split("=", 1) for line in started.splitlines() if line.startswith("export "))
EP, DIR = rgw["ASSETPIPE_TEST_S3_ENDPOINT"], rgw["ASSETPIPE_TEST_S3_DIR"]
env = dict(os.environ, AWS_ACCESS_KEY_ID=rgw["ASSETPIPE_TEST_S3_ACCESS_KEY"], AWS_SECRET_ACCESS_KEY=rgw["ASSETPIPE_TEST_S3_SECRET_KEY"],
           AWS_REGION="us-east-1", AWS_SHARED_CREDENTIALS_FILE="/dev/null")
w = tempfile.mkdtemp(prefix="assetpipe-s3-stop.")


def stop_gateway():
    pid = int(open(os.path.join(DIR, "rgw.pid")).read())
    os.kill(pid, signal.SIGTERM)
    for _ in range(200):
        try:
            os.kill(pid, 0)
            if open(f"/proc/{pid}/stat").read().split()[2] == "Z":
                break
        except OSError:
            break
        time.sleep(0.05)


def start_gateway():
    conf = os.path.join(DIR, "ceph.conf")
    p = subprocess.Popen(["radosgw", "-c", conf, "-n", "client.rgw.gw", "-f"], stdout=open(os.path.join(DIR, "log", "rgw2.out"), "w"),
                         stderr=subprocess.STDOUT, start_new_session=True)
    open(os.path.join(DIR, "rgw.pid"), "w").write(str(p.pid))
    for _ in range(300):
        if subprocess.run(["curl", "-sf", "-o", "/dev/null", EP + "/"]).returncode == 0:
            return
        time.sleep(0.1)
    raise SystemExit("radosgw did not come back")


try:
    import boto3
    from botocore.config import Config
    from PIL import Image

    s3 = boto3.client("s3", endpoint_url=EP, aws_access_key_id=env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
                      region_name="us-east-1", config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
    s3.create_bucket(Bucket="stop")
    for i in range(300):
        s3.put_object(Bucket="stop", Key=f"o/{i}.bin", Body=os.urandom(200 * 1024))
    for i in range(60):
        buf = io.BytesIO()
        Image.new("RGB", (320, 240), (i * 4 % 256, 90, 200 - i)).save(buf, "PNG")
        s3.put_object(Bucket="stop", Key=f"img/{i}.png", Body=buf.getvalue())

    # 1. prefetch, the gateway stopped a third of the way in
    listing = os.path.join(w, "list.txt")
    open(listing, "w").write("".join(f"s3://stop/o/{i}.bin\n" for i in range(300)))
    cache, report = os.path.join(w, "cache"), os.path.join(w, "report.json")
    p = subprocess.Popen([ASSETPIPE, "prefetch", listing, "--cache-dir", cache, "--concurrency", "4", "--per-host", "4", "--quiet",
                          "--report", report, "--s3-endpoint", EP], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while p.poll() is None:
        entries = sum(1 for _, _, fs in os.walk(cache) for f in fs if f.endswith(".entry"))
        if entries >= 100:
            break
        time.sleep(0.02)
    stop_gateway()
    p.wait()
    items = json.load(open(report))["items"]
    outcomes = collections.Counter(i["error"]["code"] if i.get("error") else i["outcome"] for i in items)
    stored_whole = all(i["bytes"] == 200 * 1024 for i in items if i.get("stored"))
    verify = subprocess.run([ASSETPIPE, "cache", "verify", "--cache-dir", cache, "--json"], capture_output=True, text=True)
    checked = json.loads(verify.stdout) if verify.returncode == 0 else {}
    verified = verify.returncode == 0 and checked.get("corrupt") == 0 and not checked.get("problems")
    start_gateway()

    # 2. convert with the derived store, the gateway stopped a third of the way in
    codes = collections.Counter()
    written = {}
    for i in range(60):
        if i == 20:
            stop_gateway()
        out = os.path.join(w, f"v{i}.webp")
        r = subprocess.run([ASSETPIPE, "convert", f"s3://stop/img/{i}.png", "-o", out, "--width", "64", "--format", "webp",
                            "--cache-dir", os.path.join(w, f"c{i}"), "--derived-store", "s3://stop/variants", "--s3-endpoint", EP, "--json"],
                           env=env, capture_output=True, text=True, timeout=120)
        codes[r.returncode] += 1
        if r.returncode == 0:
            written[i] = os.path.getsize(out)
    start_gateway()
    objects = [o for page in s3.get_paginator("list_objects_v2").paginate(Bucket="stop", Prefix="variants/") for o in page.get("Contents", [])]
    sizes = set(written.values())
    whole = 0
    for o in objects:
        body = s3.get_object(Bucket="stop", Key=o["Key"])["Body"].read()
        if o["Key"].startswith("variants/sources/"):
            whole += body.startswith(b"{") and body.rstrip().endswith(b"}")
        else:
            try:
                Image.open(io.BytesIO(body)).load()
                whole += len(body) in sizes
            except Exception:
                pass
    typed = {"downloaded", "connection", "timeout", "truncated", "http_503", "http_500"}
    ok_prefetch = set(outcomes) <= typed and len(items) == 300 and stored_whole and verified
    print(f"| radosgw stopped (SIGTERM) after ~100 of 300 objects of 200 KB of `assetpipe prefetch` (concurrency 4) | "
          f"{', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))} | every stored entry 200 KB: {stored_whole}; "
          f"`cache verify`: {checked.get('checked', '?')} checked, {checked.get('corrupt', '?')} corrupt | "
          f"{'met' if ok_prefetch else 'not met'} |")
    ok_convert = set(codes) <= {0, 1} and whole == len(objects)
    print(f"| radosgw stopped before the 21st of 60 `assetpipe convert s3://... --derived-store s3://...` | "
          f"exit codes {dict(sorted(codes.items()))} | {len(objects)} objects under the store's prefix after the restart, "
          f"{whole} whole | {'met' if ok_convert else 'not met'} |")
finally:
    subprocess.run([os.path.join(ROOT, "scripts", "radosgw"), "stop", DIR], stderr=subprocess.DEVNULL)
    shutil.rmtree(w, ignore_errors=True)
