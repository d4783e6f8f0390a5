#!/usr/bin/env python3
"""Times whole processes that decode one JPEG to a PPM file; prints TSV lines:
round, tool, wall seconds, peak RSS MiB.

    scripts/bench-decode-file.py ROUNDS OUTDIR IMAGE -- NAME CMD... -- NAME CMD...

Each CMD may use {out}, replaced by OUTDIR/NAME.ppm. Every round runs every command once, in an
order rotated by one each round, each after `sync` (so that no run pays for an earlier run's dirty
pages), then checks that every output file has the same bytes as the first one.

Peak RSS is GNU time's %M (its wait4's ru_maxrss), not this script's own wait4: Linux counts in a
child's ru_maxrss the memory of the process it was forked from before the exec, and GNU time is a
small process to be forked from (what it adds, about 2 MiB, is the same for every tool).
"""
import filecmp
import os
import subprocess
import sys
import tempfile
import time


def main():
    rounds, outdir, image = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    tools, current = [], None
    for arg in sys.argv[4:]:
        if arg == "--":
            current = None
        elif current is None:
            current = (arg, [])
            tools.append(current)
        else:
            current[1].append(arg)
    for index in range(rounds):
        order = tools[index % len(tools):] + tools[:index % len(tools)]
        outputs = []
        for name, template in order:
            out = os.path.join(outdir, f"{name}.ppm")
            argv = [part.replace("{out}", out).replace("{image}", image) for part in template]
            with tempfile.NamedTemporaryFile("r") as peak:
                subprocess.run(["sync"], check=True)
                start = time.perf_counter()
                status = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name] + argv,
                                        stdout=subprocess.DEVNULL).returncode
                wall = time.perf_counter() - start
                if status != 0:
                    raise SystemExit(f"{name} failed with status {status}: {argv}")
                kilobytes = int(peak.read().split()[-1])
            print(f"{index}\t{name}\t{wall:.4f}\t{kilobytes / 1024:.1f}", flush=True)
            outputs.append(out)
        for other in outputs[1:]:
            if not filecmp.cmp(outputs[0], other, shallow=False):
                raise SystemExit(f"{other} differs from {outputs[0]}")


if __name__ == "__main__":
    main()
