#!/usr/bin/env python3
"""Times Python's json.loads and orjson.loads over files, in-process, like `assetpipe-bench lottie`:
--rounds timed rounds, each parsing every file enough times to last about --round-seconds; prints
the median round's MB/s (10^6 bytes) as tab-separated lines: parser, MB/s, bytes per pass.

    scripts/bench-json-peers.py [--rounds 7] [--round-seconds 0.3] FILE...
"""
import argparse, json, statistics, sys, time

import orjson

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=7)
parser.add_argument("--round-seconds", type=float, default=0.3)
parser.add_argument("files", nargs="+")
args = parser.parse_args()
datas = [open(path, "rb").read() for path in args.files]
total = sum(map(len, datas))


def measure(loads):
    start = time.perf_counter()
    for data in datas:
        loads(data)
    repeats = max(1, int(args.round_seconds / max(1e-6, time.perf_counter() - start)))
    rates = []
    for _ in range(args.rounds):
        begin = time.perf_counter()
        for _ in range(repeats):
            for data in datas:
                loads(data)
        rates.append(total * repeats / (time.perf_counter() - begin) / 1e6)
    return statistics.median(rates)


for name, loads in (("json.loads", json.loads), ("orjson.loads", orjson.loads)):
    print(f"{name}\t{measure(loads):.1f}\t{total}")
