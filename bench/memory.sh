#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prints popsim analyze's peak memory and time against the trace's length: the halo-exchange trace of
# 64 ranks (ring + allreduce) at 1.08 GB and, with --10gb, at 10.8 GB (ten times the steps; ~11 GB
# of disk, made once and cached), streamed and (1 GB only) read into memory with --in-memory and with --root-causes; then
# simulate (also writing the simulated trace, -o) and whatif on the 1 GB trace, their program
# streamed and with --in-memory, per record;
# then analyze on a 1 GB hybrid MPI+OpenMP halo exchange (16 ranks x 4 threads), streamed and in
# memory.
#   bench/memory.sh BUILD_DIR [WORK_DIR] [--10gb]
set -euo pipefail
build=$(cd "${1:?usage: bench/memory.sh BUILD_DIR [WORK_DIR] [--10gb]}" && pwd)
work=${2:-$build/bench-data}
large=${3:-}
mkdir -p "$work"

make_trace() { # steps [threads] -> path
    local threads=${2:-1} path=$work/halo64x$1.prv
    [ "$threads" = 1 ] || path=$work/hybrid16x${threads}x$1.prv
    if [ ! -f "$path" ]; then
        echo "== making $path ($1 halo-exchange steps, $threads threads per rank)" >&2
        if [ "$threads" = 1 ]; then
            "$build/popsim" synth --halo 64 --steps "$1" -o "$path" > /dev/null
        else
            "$build/popsim" synth --halo 16 --threads "$threads" --steps "$1" -o "$path" > /dev/null
        fi
    fi
    echo "$path"
}

measure() { # label, trace, command, options... : best wall time of 3 and its peak RSS
    local label=$1 trace=$2; shift 2
    python3 - "$label" "$trace" "$build/popsim" "$@" <<'PYEOF'
import os, resource, subprocess, sys, time
label, trace, popsim, command, options = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
records = int(os.environ.get("RECORDS", "0"))
size = os.path.getsize(trace)
best = None
for _ in range(3):
    start = time.perf_counter()
    child = subprocess.Popen(["/usr/bin/time", "-f", "%M", popsim, command, "--quiet", *options, trace],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, err = child.communicate()
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        sys.exit(f"{label}: popsim {command} failed: {err}")
    rss = int(err.strip().splitlines()[-1]) * 1024
    if best is None or seconds < best[0]:
        best = (seconds, rss)
seconds, rss = best
per_record = f" = {rss / records:5.1f} bytes per record" if records else ""
print(f"{label:36} {size / 1e9:6.2f} GB  {seconds:7.2f} s = {size / 1e6 / seconds:5.0f} MB/s  "
      f"peak {rss / 1e6:7.1f} MB = {rss / size * 1e3:6.1f} bytes per KB of trace{per_record}")
PYEOF
}

echo "== popsim analyze (with the ideal replay): best of 3, its peak resident memory"
one=$(make_trace 22400)
measure "streamed, 1 GB" "$one" analyze
measure "--in-memory, 1 GB" "$one" analyze --in-memory
measure "--root-causes, 1 GB" "$one" analyze --root-causes
if [ "$large" = --10gb ]; then
    ten=$(make_trace 224000)
    measure "streamed, 10 GB" "$ten" analyze
fi

echo "== simulate and whatif (program written down for contended networks), 1 GB"
RECORDS=$(grep -vc '^[#c]' "$one")
export RECORDS
echo "$RECORDS records"
dimemas=(--network dimemas --latency 5us --bandwidth 1GB/s --buses 4)
whatif=(--latency 1us,5us --bandwidth 1GB/s,10GB/s --buses 4)
measure "simulate, streamed program" "$one" simulate "${dimemas[@]}"
measure "simulate --in-memory" "$one" simulate "${dimemas[@]}" --in-memory
simulated=$work/simulated.prv # the simulated trace, about as large as the original
measure "simulate -o, streamed" "$one" simulate "${dimemas[@]}" -o "$simulated"
measure "simulate -o --in-memory" "$one" simulate "${dimemas[@]}" -o "$simulated" --in-memory
rm -f "$simulated" "${simulated%.prv}".{pcf,row}
measure "whatif (4 networks), streamed program" "$one" whatif "${whatif[@]}"
measure "whatif (4 networks) --in-memory" "$one" whatif "${whatif[@]}" --in-memory

echo "== popsim analyze of a hybrid MPI+OpenMP trace (16 ranks x 4 threads), 1 GB"
hybrid=$(make_trace 48000 4)
RECORDS=$(grep -vc '^[#c]' "$hybrid")
echo "$RECORDS records"
measure "hybrid, streamed" "$hybrid" analyze --model hybrid-additive
measure "hybrid, --in-memory" "$hybrid" analyze --model hybrid-additive --in-memory
measure "hybrid simulate, streamed program" "$hybrid" simulate "${dimemas[@]}"
measure "hybrid simulate --in-memory" "$hybrid" simulate "${dimemas[@]}" --in-memory
