#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prints how fast popsim reads an OTF2 archive, in records per second, against Debian's otf2-print
# writing its listing to /dev/null: best of 3 wall times each, with popsim's peak memory.
#   bench/otf2_read.sh BUILD_DIR [ANCHOR]
#       an archive; by default the largest Score-P archive of the validation data (300,816
#       records on 10 locations)
#   bench/otf2_read.sh BUILD_DIR --converted [WORK_DIR]
#       the 1.08 GB synthetic halo-exchange trace of bench/memory.sh (64 ranks, made once and
#       cached in WORK_DIR, default BUILD_DIR/bench-data) converted to OTF2 by popsim convert
#       (its time and peak memory printed too), and the .prv's own analysis beside it
set -euo pipefail
build=$(cd "${1:?usage: bench/otf2_read.sh BUILD_DIR [ANCHOR | --converted [WORK_DIR]]}" && pwd)
popsim=$build/popsim

timed() { # label records command...: best wall time of 3 and the peak RSS, one line
    local label=$1 records=$2; shift 2
    python3 - "$label" "$records" "$@" <<'PYEOF'
import subprocess, sys, time
label, records, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
best, peak = None, 0
for _ in range(3):
    start = time.perf_counter()
    child = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if child.returncode != 0:
        sys.exit(f"{label}: exit status {child.returncode}: {child.stderr}")
    best = elapsed if best is None else min(best, elapsed)
    peak = max(peak, int(child.stderr.strip().splitlines()[-1]))
print(f"{label:24} {best:8.3f} s = {records / best / 1e6:6.2f} M records/s, peak {peak / 1024:7.0f} MB")
PYEOF
}

if [ "${2:-}" = "--converted" ]; then
    work=${3:-$build/bench-data}
    mkdir -p "$work"
    prv=$work/halo64x22400.prv anchor=$work/halo64x22400.otf2
    [ -f "$prv" ] || "$popsim" synth --halo 64 --steps 22400 -o "$prv" > /dev/null
    if [ ! -f "$anchor" ]; then
        echo "== popsim convert $prv $anchor"
        /usr/bin/time -f "convert: %e s, peak %M kB" "$popsim" convert --quiet "$prv" "$anchor"
    fi
else
    anchor=${2:-$(dirname "$0")/../../shared/data/otf2/casita-2_jacobi_blame_cpu_015/traces.otf2}
fi
records=$("$popsim" events "$anchor" | awk '/^per location/ { exit } NR > 1 && NF == 2 { n += $2 } END { print n }')
echo "$anchor: $records records ($(du -shc "${anchor%.otf2}" "${anchor%.otf2}.def" | tail -1 | cut -f1) of event and definition files)"
timed "popsim events" "$records" "$popsim" events "$anchor"
timed "popsim analyze" "$records" "$popsim" analyze --quiet "$anchor"
timed "otf2-print > /dev/null" "$records" otf2-print "$anchor"
if [ "${2:-}" = "--converted" ]; then
    lines=$(grep -c '' "$prv")
    timed "popsim analyze (.prv)" "$lines" "$popsim" analyze --quiet "$prv"
    echo "(the .prv's rate is per line: $lines lines, $(du -h "$prv" | cut -f1))"
fi
