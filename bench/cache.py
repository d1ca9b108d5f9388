#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prints what `popsim analyze` costs per record in instructions and cache misses, counted by
Valgrind's cachegrind, as the rank count grows (bench/README.md, "Cache misses per record").

    bench/cache.py BUILD_DIR [--work DIR] [--ranks 64,16384] [--bytes 360e6]

Wall times on a shared 2-core machine vary by a third from run to run; these counts hardly do: the
same binary on the same trace gives the same instructions and L1d misses within 0.1 %, so a change
of a per cent shows at once. The last-level misses vary by up to a fifth between runs (Valgrind runs
the threads one at a time, and where it switches between them depends on timing). The simulated caches are this project's machine's: L1d 48 KiB 12-way, and
one last level of 32 MiB 16-way (its L3); a miss there is a trip to memory. Traces of about
--bytes, one per rank count, made once with `popsim synth --halo R` (the same records whatever the
rank count) and kept in the work directory. Cachegrind runs the program on one core, some 30
times slower: about a minute per 360 MB trace.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ranks import make_trace

BYTES_PER_RANK_STEP = 1_100  # a synth --halo trace's (1.1 GB: 64 ranks x 15,625 steps)
CACHES = ["--D1=49152,12,64", "--LL=33554432,16,64"]


def records(trace):
    """The trace's lines (its records, and a header of a few lines)."""
    with open(trace, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))


def counts(popsim, trace):
    """(instructions, L1d misses, last-level data misses) of one `popsim analyze`."""
    with tempfile.TemporaryDirectory() as scratch:
        run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", *CACHES,
                              f"--cachegrind-out-file={scratch}/out", popsim, "analyze", trace],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"cache.py: cachegrind of popsim analyze {trace} failed:\n{run.stderr}")

    def total(name):
        match = re.search(rf"^==\d+== {name}:\s+([\d,]+)", run.stderr, re.M)
        if not match:
            sys.exit(f"cache.py: no '{name}' in cachegrind's summary:\n{run.stderr}")
        return int(match.group(1).replace(",", ""))
    return total("I\\s+refs"), total("D1\\s+misses"), total("LLd misses")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build")
    parser.add_argument("--work", help="where the traces are kept (default BUILD/bench-data/cache)")
    parser.add_argument("--ranks", default="64,16384")
    parser.add_argument("--bytes", type=float, default=360e6, help="each trace's size")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("cache.py: valgrind is not installed (Debian: apt install valgrind)")
    popsim = os.path.join(args.build, "popsim")
    work = args.work or os.path.join(args.build, "bench-data", "cache")
    os.makedirs(work, exist_ok=True)
    ranks = [int(r) for r in args.ranks.split(",")]
    rows = []
    for r in ranks:
        trace = make_trace(popsim, work, r, args.bytes / BYTES_PER_RANK_STEP, name="cache")
        n = records(trace)
        rows.append((r, n, *(c / n for c in counts(popsim, trace))))
    print("\n== popsim analyze per record, counted by cachegrind (L1d 48 KiB, last level 32 MiB)")
    print(f"{'ranks':>7} {'records':>9} {'instr.':>8} {'L1d miss':>9} {'LL miss':>8}"
          f" {'vs first: instr.':>17} {'L1d':>6} {'LL':>6}")
    first = rows[0]
    for r, n, ir, d1, ll in rows:
        print(f"{r:>7,} {n / 1e6:>8.1f}M {ir:>8.0f} {d1:>9.2f} {ll:>8.3f}"
              f" {ir / first[2]:>16.2f}x {d1 / first[3]:>5.2f}x {ll / max(first[4], 1e-9):>5.1f}x")


if __name__ == "__main__":
    main()
