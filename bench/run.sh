#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prints popsim's speed and memory figures on a >= 1 GB synthetic trace (made once, then cached).
#   bench/run.sh BUILD_DIR [WORK_DIR]
# Figures: reader throughput and memory per record; `popsim analyze` on the .prv.gz against
# `gzip -dc` of the same file; the replay's speed and share; end-to-end analysis with the ideal
# replay (bench/ranks.py measures Dimemas beside it, run by run, when DIMEMAS_HOME is set).
# Last: a focus of analysis (a window, every phase, every region instance) against the whole trace.
set -euo pipefail
build=$(cd "${1:?usage: bench/run.sh BUILD_DIR [WORK_DIR]}" && pwd)
work=${2:-$build/bench-data}
mkdir -p "$work"
trace=$work/halo16.prv
if [ ! -f "$trace" ]; then
    echo "== making a 1.3 GB synthetic trace (16 ranks, 110000 halo-exchange steps)"
    "$build/popsim" synth --halo 16 --steps 110000 -o "$trace"
fi
if [ ! -f "$trace.gz" ]; then
    echo "== compressing it (gzip -1)"
    gzip -1 -c "$trace" > "$trace.gz"
fi
bytes=$(stat -L -c %s "$trace")

seconds() { # the wall time of a command, best of 3
    local best=
    for _ in 1 2 3; do
        local start end
        start=$(date +%s.%N); "$@" > /dev/null 2>&1; end=$(date +%s.%N)
        best=$(python3 -c "b='$best'; t=$end-$start; print(t if b=='' else min(float(b), t))")
    done
    echo "$best"
}

echo; echo "== reader"
"$build/bench/popsim_reader_bench" "$trace"

echo; echo "== .prv.gz: popsim analyze (no replay) against gzip -dc"
gz=$(seconds gzip -dc "$trace.gz")
analyze_gz=$(seconds "$build/popsim" analyze --no-replay "$trace.gz")
python3 -c "print(f'gzip -dc           {$gz:6.2f} s'); print(f'popsim analyze     {$analyze_gz:6.2f} s  = {$analyze_gz/$gz:.2f} x gzip -dc (target <= 1.3)')"

echo; echo "== replay"
"$build/bench/popsim_replay_bench" "$trace"

echo; echo "== end to end: popsim analyze with the ideal replay (5 pairs of runs, interleaved)"
python3 - "$build/popsim" "$trace" "$bytes" <<'EOF'
import statistics, subprocess, sys, time
popsim, trace, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
def analyze(*options):
    start = time.perf_counter()
    subprocess.run([popsim, "analyze", *options, trace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start
pairs = [(analyze("--no-replay"), analyze()) for _ in range(5)]
shares = [100 * (full - plain) / full for plain, full in pairs]
plain, full = min(p for p, _ in pairs), min(f for _, f in pairs)
print(f'analyze, no replay {plain:6.2f} s  (best of 5)')
print(f'analyze + replay   {full:6.2f} s  (best of 5) = {full / size * 1e9:.2f} ns per input byte')
print(f'replay share       {100 * (full - plain) / full:5.1f} % of the analysis, best against best (target <= 25);'
      f' per pair {", ".join(f"{x:.1f}" for x in shares)}: median {statistics.median(shares):.1f} %')
EOF

echo; echo "== focus of analysis: a window, the phases and a region's instances against the whole trace"
python3 - "$build/popsim" "$trace" <<'EOF'
import subprocess, sys, time
popsim, trace = sys.argv[1], sys.argv[2]
def best(*options):
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([popsim, "analyze", "--quiet", *options, trace], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return min(times)
whole = best()
with open(trace) as f:  # the header: "#Paraver (date):END_ns:..."
    end = int(f.readline().split("):")[1].split(":")[0].removesuffix("_ns")) / 1e9
rows = [("whole trace", whole, "")]
rows.append(("--from T/4 --to 3T/4", best("--from", f"{end / 4:.6f}s", "--to", f"{3 * end / 4:.6f}s"), "half of it"))
rows.append(("--phases MPI_Allreduce", best("--phases", "MPI_Allreduce"), "the whole trace and every phase"))
rows.append(("--region MPI_Allreduce", best("--region", "MPI_Allreduce"), "every instance"))
for name, t, what in rows:
    print(f"{name:24s} {t:6.2f} s  = {t / whole:4.2f} x the whole trace ({what})" if what else f"{name:24s} {t:6.2f} s")
print("target: a window or a region costs no more than the whole trace (<= 1.0 x)")
EOF
