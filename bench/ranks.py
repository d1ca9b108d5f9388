#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prints what `popsim analyze` costs as the rank count grows, against the read limit, and against
Dimemas when one is installed (bench/README.md, "Ranks and the read limit").

    bench/ranks.py BUILD_DIR [--work DIR] [--ranks 16,64,1024,...] [--runs N] [--dimemas-ranks ...]
                   [--dimemas-runs N] [--whatif-ranks 1024,...]

Traces of about 1.1 GB, one per rank count, made once with `popsim synth --halo R` (the steps
scaled so every trace holds about the same records) and kept in the work directory. Each figure is
the median of --runs runs: wall time, CPU time (user + system, from wait4) and peak resident memory.
Commands compared with one another (analyze against wc -l, cat, igzip -dc; whatif against analyze)
run in turn, one of each per round, and their ratio is the median of the rounds' ratios.
A 4-network `whatif` sweep is measured against one `analyze` of the same trace (--whatif-ranks).
With DIMEMAS_HOME naming an installed Dimemas (bin/prv2dim, bin/Dimemas), prv2dim + Dimemas run on
the ideal network beside popsim, run by run, and both predicted runtimes are printed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

STEPS_TIMES_RANKS = 1_000_000  # 64 ranks x 15,625 steps: 1.1 GB, 27 M records


def measure(command, stdout=subprocess.DEVNULL, cwd=None):
    """(wall s, CPU s, peak RSS MB) of one run; fails loudly if the command does."""
    # Its errors go to a file, not a pipe: Dimemas writes more than a pipe holds, and would wait
    # for a reader while this waits for it to end.
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=errors, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            sys.exit(f"ranks.py: {' '.join(command)} failed:\n"
                     f"{errors.read().decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def medians(samples):
    """(wall s, CPU s, peak RSS MB), each the median of the samples'."""
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))


def median_of(runs, command, **kwargs):
    return medians([measure(command, **kwargs) for _ in range(runs)])


class InTurn:
    """Commands compared with one another, run in turn, one of each per round: their medians, and
    their ratios as the median of the rounds' ratios. A shared machine's speed drifts (1.5-2x
    within the hour on the one these figures come from): all runs of one command, then all of the
    other, put the drift into the ratio."""

    def __init__(self, runs, commands, warm):
        measure(["cat", warm])  # the file in the page cache, or the first round pays its read
        self.samples = [[] for _ in commands]
        for _ in range(runs):
            for command, samples in zip(commands, self.samples):
                samples.append(measure(command))

    def median(self, k):
        """(wall s, CPU s, peak RSS MB) of command k."""
        return medians(self.samples[k])

    def ratio(self, k, of, measure_index=0):
        """Command k against command `of`, by default in wall time."""
        return statistics.median(a[measure_index] / b[measure_index]
                                 for a, b in zip(self.samples[k], self.samples[of]))


def make_trace(popsim, work, ranks, steps_times_ranks=STEPS_TIMES_RANKS, name="halo"):
    """NAME{ranks}.prv in `work`, made once: the same records whatever the rank count."""
    trace = os.path.join(work, f"{name}{ranks}.prv")
    if not os.path.exists(trace):
        steps = max(1, round(steps_times_ranks / ranks))
        print(f"== making {trace} ({ranks} ranks, {steps} steps)", flush=True)
        subprocess.run([popsim, "synth", "--halo", str(ranks), "--steps", str(steps), "-o", trace],
                       check=True, stdout=subprocess.DEVNULL)
    return trace


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))


def rank_costs(popsim, traces, runs, reference):
    if not traces:
        return
    print("\n== analyze against the rank count (median of", runs, "runs)")
    costs = {}
    for ranks, trace in traces:
        size = os.path.getsize(trace)
        wall, cpu, rss = median_of(runs, [popsim, "analyze", "--quiet", trace])
        costs[ranks] = (size, wall, cpu, rss)
    base = costs.get(reference, next(iter(costs.values())))
    rows = []
    for ranks, (size, wall, cpu, rss) in costs.items():
        rows.append([f"{ranks:,}", f"{size / 1e9:.2f} GB", f"{wall:.2f} s", f"{cpu:.2f} s",
                     f"{rss:.0f} MB", f"{wall / size / (base[1] / base[0]):.2f}x",
                     f"{cpu / size / (base[2] / base[0]):.2f}x", f"{rss - base[3]:+.0f} MB"])
    table(["ranks", "trace", "wall", "CPU", "peak RSS", "wall/byte", "CPU/byte", "RSS"], rows)
    print(f"(per byte and RSS against {reference} ranks; goal: at most 1.3x and +64 MB at 16,384)")


def read_limit(popsim, traces, runs, work):
    if not traces:
        return
    print("\n== read limit: analyze (ideal replay) against reading the same file")
    rows = []
    for ranks, trace in traces:
        turns = InTurn(runs, [["wc", "-l", trace], ["cat", trace],
                              [popsim, "analyze", "--quiet", trace]], trace)
        wall, cpu, _ = turns.median(2)
        rows.append([f"{ranks:,}", f"{turns.median(0)[0]:.2f} s", f"{turns.median(1)[0]:.2f} s",
                     f"{wall:.2f} s", f"{cpu:.2f} s", f"{turns.ratio(2, 0):.1f}x",
                     f"{turns.ratio(2, 1):.1f}x"])
    table(["ranks", "wc -l", "cat", "analyze", "CPU", "/ wc -l", "/ cat"], rows)
    print("(goal: analyze within 3x of wc -l)")
    igzip = shutil.which("igzip")
    if not igzip:
        print("igzip not found (Debian's isal package): no .prv.gz figure")
        return
    ranks, trace = traces[min(1, len(traces) - 1)]
    compressed = os.path.join(work, os.path.basename(trace) + ".gz")
    if not os.path.exists(compressed):  # beside the trace, whose .pcf and .row it shares
        with open(compressed, "wb") as out:
            subprocess.run([igzip, "-1", "-c", trace], stdout=out, check=True)
    turns = InTurn(runs, [[igzip, "-dc", compressed], [popsim, "analyze", "--quiet", compressed]],
                   compressed)
    wall, cpu, _ = turns.median(1)
    print(f"{ranks:,} ranks, .prv.gz: igzip -dc {turns.median(0)[0]:.2f} s, analyze {wall:.2f} s "
          f"({cpu:.2f} s CPU) = {turns.ratio(1, 0):.2f}x igzip -dc (goal: within 1.2x)")


WHATIF_SWEEP = ["--latency", "1us,10us", "--bandwidth", "1GB/s,10GB/s"]  # 4 Dimemas networks


def whatif_costs(popsim, traces, runs):
    if not traces:
        return
    print("\n== whatif of 4 networks (" + " ".join(WHATIF_SWEEP) + ") against one analyze")
    rows = []
    for ranks, trace in traces:
        turns = InTurn(runs, [[popsim, "whatif", "--quiet", trace] + WHATIF_SWEEP,
                              [popsim, "analyze", "--quiet", trace]], trace)
        (wall, cpu, rss), (a_wall, a_cpu, a_rss) = turns.median(0), turns.median(1)
        rows.append([f"{ranks:,}", f"{wall:.2f} s", f"{cpu:.2f} s", f"{rss:.0f} MB",
                     f"{a_wall:.2f} s", f"{a_cpu:.2f} s", f"{a_rss:.0f} MB",
                     f"{turns.ratio(0, 1):.1f}x", f"{turns.ratio(0, 1, 1):.1f}x",
                     f"{rss / a_rss:.1f}x"])
    table(["ranks", "whatif", "CPU", "peak RSS", "analyze", "CPU", "RSS", "time", "CPU",
           "memory"], rows)
    print("(goal: the sweep within 2x the time and 4x the memory of one analyze)")


DIMEMAS_IDEAL = """#DIMEMAS_CONFIGURATION
"wide area network information" {{"", 1, 0, 4, 0.0, 0.0, 1}};;
"environment information" {{"", 0, "", {nodes}, 0.0, 0, 1}};;
"multi node information" {{0, {nodes}, "node", 1, 1.0, 0.0, 0.0, 0, 1, 0, 0.0, 1, 1, 0.0}};;
"predefined mapping information" {{"1 TASKS_PER_NODE"}};;
"configuration files" {{"", "", "", ""}};;
"file system parameters" {{0.0, 0.0, 8.0, 0, 1.0}};;
"""


def header_runtime(prv):
    with open(prv) as f:  # "#Paraver (date):END_ns:..."
        return int(f.readline().split("):")[1].split(":")[0].removesuffix("_ns"))


def dimemas(popsim, traces, runs, home):
    prv2dim, simulator = os.path.join(home, "bin", "prv2dim"), os.path.join(home, "bin", "Dimemas")
    print(f"\n== Dimemas ({home}) against popsim, ideal network, run by run")
    rows = []
    for ranks, trace in traces:
        for run in range(runs):
            with tempfile.TemporaryDirectory(dir=os.path.dirname(trace)) as tmp:
                with open(os.path.join(tmp, "ideal.cfg"), "w") as cfg:
                    cfg.write(DIMEMAS_IDEAL.format(nodes=ranks))
                dim = os.path.join(tmp, "trace.dim")
                w1, c1, m1 = measure([prv2dim, trace, dim])
                w2, c2, m2 = measure([simulator, "-S", "32k", "--dim", dim, "-p", "sim.prv",
                                      "ideal.cfg"], cwd=tmp)
                predicted = header_runtime(os.path.join(tmp, "sim.prv"))
                json_path = os.path.join(tmp, "popsim.json")
                wall, cpu, rss = measure([popsim, "analyze", "--quiet", trace, "--json", json_path])
                ideal = popsim_ideal_runtime(json_path)
            rows.append([f"{ranks:,}", run + 1, f"{w1 + w2:.1f} s", f"{c1 + c2:.1f} s",
                         f"{max(m1, m2):.0f} MB", f"{wall:.2f} s", f"{cpu:.2f} s",
                         f"{(w1 + w2) / wall:.0f}x", f"{(c1 + c2) / cpu:.0f}x",
                         f"{predicted}", f"{ideal}", f"{ideal - predicted:+d}"])
    table(["ranks", "run", "Dimemas wall", "CPU", "RSS", "popsim wall", "CPU", "wall ratio",
           "CPU ratio", "Dimemas ns", "popsim ns", "difference"], rows)
    print("(Dimemas: prv2dim + Dimemas -S 32k; goal: popsim 100x less CPU)")


def popsim_ideal_runtime(json_path):
    with open(json_path) as f:
        return json.load(f)["traces"][0]["ideal"]["runtime_ns"]


def rank_list(text):
    return [int(r) for r in text.split(",") if r]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--work", help="where the traces are kept (default BUILD/bench-data/ranks)")
    parser.add_argument("--ranks", type=rank_list, default=[16, 64, 1024, 4096, 16384, 65536])
    parser.add_argument("--reference", type=int, default=64, help="the row costs are relative to")
    parser.add_argument("--read-limit-ranks", type=rank_list, default=[16, 64, 1024])
    parser.add_argument("--dimemas-ranks", type=rank_list, default=[16, 64, 1024])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dimemas-runs", type=int, default=1, help="Dimemas takes a minute a GB")
    parser.add_argument("--whatif-ranks", type=rank_list, default=[1024])
    args = parser.parse_args()
    popsim = os.path.join(os.path.abspath(args.build), "popsim")
    work = args.work or os.path.join(os.path.abspath(args.build), "bench-data", "ranks")
    os.makedirs(work, exist_ok=True)
    every = sorted(set(args.ranks) | set(args.read_limit_ranks) | set(args.dimemas_ranks) |
                   set(args.whatif_ranks))
    traces = {r: make_trace(popsim, work, r) for r in every}
    print(f"popsim {subprocess.run([popsim, '--version'], capture_output=True, text=True).stdout.strip()}"
          f", {os.cpu_count()} cores")
    rank_costs(popsim, [(r, traces[r]) for r in args.ranks], args.runs, args.reference)
    read_limit(popsim, [(r, traces[r]) for r in args.read_limit_ranks], args.runs, work)
    whatif_costs(popsim, [(r, traces[r]) for r in args.whatif_ranks], args.runs)
    home = os.environ.get("DIMEMAS_HOME")
    if home:
        dimemas(popsim, [(r, traces[r]) for r in args.dimemas_ranks], args.dimemas_runs, home)
    else:
        print("\nDIMEMAS_HOME is not set: no Dimemas comparison")


if __name__ == "__main__":
    main()
