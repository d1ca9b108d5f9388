#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `popsim analyze` of a series on K processes (mpirun) against one process: wall time, CPU time of
# all processes (user + system) and the throughput, median of 3 runs each, on 4 synthetic traces of
# 16 ranks and about 420 MB each (made once, then cached); then `popsim whatif` of 4 networks on
# the first of them; then one trace read by K processes (the others helping its reader) and the
# stages' costs of that divided read (popsim_divided_read_bench, docs/architecture.md); then that
# trace gzipped, divided by bgzip's members or gztool's restart points (every MiB, and gztool's
# default 10 MiB); last, what a replay divided among owners would exchange (popsim_owner_hops_bench)
# on small synthetic traces and, when ../shared/data (or POPSIM_DATA) is there, real ones.
#   bench/mpi.sh BUILD_DIR [WORK_DIR] [K...]   (default K: 1 2)
set -euo pipefail
build=$(cd "${1:?usage: bench/mpi.sh BUILD_DIR [WORK_DIR] [K...]}" && pwd)
work=${2:-$build/bench-data}
shift $(($# < 2 ? $# : 2))
ks=("${@:-1}")
[ $# -gt 0 ] || ks=(1 2)
mkdir -p "$work"
command -v mpirun > /dev/null || { echo "bench/mpi.sh: no mpirun (./dev installs Open MPI)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
traces=()
for n in 1 2 3 4; do
    trace=$work/series16_$n.prv
    [ -f "$trace" ] || "$build/popsim" synth --halo 16 --steps $((22000 + 1000 * n)) -o "$trace" > /dev/null
    traces+=("$trace")
done
bytes=$(cat "${traces[@]}" | wc -c)

# measure LABEL COMMAND...: prints the median of 3 runs' wall and CPU seconds (children included)
# and the largest process's peak memory over the runs.
measure() {
    local label=$1
    shift
    python3 - "$label" "$bytes" "$@" <<'PY'
import resource, statistics, subprocess, sys, time
label, size, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
walls, cpus = [], []
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
wall, cpu = statistics.median(walls), statistics.median(cpus)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{label:<30} {wall:7.2f} s wall {cpu:7.2f} s CPU {size / wall / 1e6:8.0f} MB/s {rss:6.0f} MB")
PY
}

echo "== analyze of 4 traces ($((bytes / 1000000)) MB), $(nproc) cores"
measure "one process" "$build/popsim" analyze "${traces[@]}"
# Open MPI binds each process to a core when there are at most 2 (to a socket beyond): popsim's
# threads then share it. --bind-to none gives each process every core.
for k in "${ks[@]}"; do
    measure "mpirun -np $k" mpirun -np "$k" "$build/popsim" analyze "${traces[@]}"
    measure "  --bind-to none" mpirun -np "$k" --bind-to none "$build/popsim" analyze "${traces[@]}"
done
bytes=$(stat -c %s "${traces[0]}")
echo "== analyze of one trace ($((bytes / 1000000)) MB): its reader helped by the other processes"
measure "one process" "$build/popsim" analyze "${traces[0]}"
for k in "${ks[@]}"; do
    measure "mpirun -np $k --bind-to none" mpirun -np "$k" --bind-to none "$build/popsim" analyze "${traces[0]}"
done
"$build/bench/popsim_divided_read_bench" "${traces[0]}"
sweep=(whatif "${traces[0]}" --latency 1us,10us --bandwidth 1GB/s,10GB/s)
echo "== whatif of 4 networks on one trace ($((bytes / 1000000)) MB): every process reads it"
measure "one process" "$build/popsim" "${sweep[@]}"
for k in "${ks[@]}"; do
    measure "mpirun -np $k --bind-to none" mpirun -np "$k" --bind-to none "$build/popsim" "${sweep[@]}"
done
bytes=$(stat -c %s "${traces[0]}")
echo "== analyze of that trace gzipped ($((bytes / 1000000)) MB of text), divided by its index"
gz=$work/gzip
if [ ! -f "$gz/s1/series16_1.prv.gzi" ] || [ ! -f "$gz/s10/series16_1.prv.gzi" ] ||
    [ ! -f "$gz/bgzip/series16_1.prv.gz.gzi" ]; then
    command -v gztool > /dev/null && command -v bgzip > /dev/null ||
        { echo "bench/mpi.sh: no gztool or bgzip (./dev installs them)"; exit 1; }
    mkdir -p "$gz/s1" "$gz/s10" "$gz/bgzip"
    gzip -6 -c "${traces[0]}" > "$gz/s1/series16_1.prv.gz"
    cp "$gz/s1/series16_1.prv.gz" "$gz/s10/"
    gztool -s 1 -i "$gz/s1/series16_1.prv.gz" 2> /dev/null
    gztool -i "$gz/s10/series16_1.prv.gz" 2> /dev/null
    bgzip -@ "$(nproc)" -i -c "${traces[0]}" > "$gz/bgzip/series16_1.prv.gz"
    bgzip -r "$gz/bgzip/series16_1.prv.gz"
fi
for kind in bgzip s1 s10; do
    for labels in pcf row; do cp "${traces[0]%.prv}.$labels" "$gz/$kind/" 2> /dev/null || true; done
done
measure "one process, gzip stream" "$build/popsim" analyze "$gz/s1/series16_1.prv.gz"
for k in "${ks[@]}"; do
    [ "$k" -gt 1 ] || continue
    measure "mpirun -np $k, bgzip's members" mpirun -np "$k" --bind-to none "$build/popsim" analyze "$gz/bgzip/series16_1.prv.gz"
    measure "  gztool -s 1" mpirun -np "$k" --bind-to none "$build/popsim" analyze "$gz/s1/series16_1.prv.gz"
    measure "  gztool's default span" mpirun -np "$k" --bind-to none "$build/popsim" analyze "$gz/s10/series16_1.prv.gz"
done
echo "== a replay divided among owners (designed, docs/architecture.md): what would cross between them"
hops=$work/owner_hops
mkdir -p "$hops"
for shape in "64 1000" "1024 100" "16384 8"; do
    set -- $shape
    [ -f "$hops/halo$1.prv" ] || "$build/popsim" synth --halo "$1" --steps "$2" -o "$hops/halo$1.prv" > /dev/null 2>&1
    "$build/bench/popsim_owner_hops_bench" "$hops/halo$1.prv" 2 16 256 4096
done
data=${POPSIM_DATA:-$(dirname "$0")/../../shared/data}
for trace in epoch/epoch_16proc lammps-melt/lammps_melt_4 hpcg-hybrid/hpcg_2x2 \
    collected/extraecourse_poisson_merged/poisson_v0_16p collected/dosimont_bigdft/EXTRAE_Paraver_trace_mpich; do
    if [ -f "$data/$trace.prv.gz" ]; then
        "$build/bench/popsim_owner_hops_bench" "$data/$trace.prv.gz" 2 4 8 16
    fi
done
