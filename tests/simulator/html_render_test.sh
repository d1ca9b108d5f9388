#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Renders each kind of HTML report in headless Chromium (the MPI model of the epoch series, the root
# causes of its 8-rank run, the OpenMP model of the ImageMagick thread series, the hybrid model of
# a synthetic 2x1, 2x2, 4x2 series, a what-if sweep of LAMMPS over latency x bandwidth), checks
# that each page is not blank
# and logged nothing to its console (the reports have no scripts: any console line is a fault),
# and that each shows its model's axes and series and none of another model's.
# usage: html_render_test.sh POPSIM CHROMIUM SHARED_DATA WORK_DIR
set -euo pipefail
popsim=$1 chromium=$2 data=$3 work=$4
. "$(dirname "$0")/../../validation/require_data.sh"
require_data "$data"
rm -rf "$work" && mkdir -p "$work"
render() { # NAME: $work/NAME.html to $work/NAME.png, every chart's points inside its plot
    inside_plots "$1"
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
        --disable-sync --no-first-run --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
        --screenshot="$work/$1.png" --window-size=1300,2000 "file://$work/$1.html" 2> "$work/$1.log" > /dev/null
    if grep -E "CONSOLE|Uncaught" "$work/$1.log"; then
        echo "FAIL: $1: the page logged console messages"; exit 1
    fi
    python3 - "$work/$1.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, color = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and color in (2, 6), f"unexpected PNG format {depth}/{color}"
        channels = 3 if color == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw, stride = zlib.decompress(idat), width * channels
rows, previous = [], bytearray(stride)
for y in range(height):  # undo the PNG row filters
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = previous[i], previous[i - channels] if i >= channels else 0
        p = a + b - c
        pred = [0, a, b, (a + b) // 2, a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (b if abs(p - b) <= abs(p - c) else c)][f]
        line[i] = (line[i] + pred) & 255
    rows.append(bytes(line)); previous = line
pixels = [r[i:i + 3] for r in rows for i in range(0, stride, channels)]
non_white = sum(1 for p in pixels if p != b"\xff\xff\xff")
colours = len(set(pixels))
print(f"{width}x{height} PNG, {100 * non_white / len(pixels):.1f}% non-white pixels, {colours} colours")
assert non_white > 0.03 * len(pixels) and colours > 50, "the rendered report looks blank"
PY
}

# inside_plots NAME: in every chart of the report, each data marker and line point lies within the
# plot its axes frame (an efficiency of 125 % was drawn over the chart's title, issue 36 item 6).
inside_plots() {
    python3 - "$work/$1.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
charts = checked = 0
for svg in re.findall(r"<svg[^>]*role=\"img\">.*?</svg>", html, re.S):
    axes = re.findall(r'<line x1="([\d.]+)" x2="([\d.]+)" y1="([\d.]+)" y2="([\d.]+)" class="axis"/>', svg)
    if len(axes) < 2:
        continue
    left, top, bottom = float(axes[0][0]), float(axes[0][2]), float(axes[0][3])
    right = float(axes[1][1])
    points = [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"', svg)]
    for line in re.findall(r'<polyline points="([^"]*)"', svg):
        points += [tuple(map(float, p.split(","))) for p in line.split()]
    charts += 1
    for x, y in points:
        checked += 1
        assert left - 1 <= x <= right + 1 and top - 1 <= y <= bottom + 1, \
            f"{sys.argv[1]}: a point at ({x}, {y}) outside the plot [{left}, {right}] x [{top}, {bottom}]"
print(f"{charts} charts, {checked} points inside their plots")
PY
}

# same_scale NAME HEADING: the charts of that section share one y axis (their tick labels).
same_scale() {
    python3 - "$work/$1.html" "$2" <<'PY'
import re, sys
html, heading = open(sys.argv[1]).read(), sys.argv[2]
section = html.split(f"<h2>{heading}</h2>", 1)[1].split("<h2>", 1)[0]
scales = {tuple(re.findall(r'text-anchor="end" class="tick">([^<]*)</text>', svg))
          for svg in re.findall(r"<svg.*?</svg>", section, re.S)}
assert len(scales) == 1, f"{heading}: the charts have {len(scales)} y scales: {scales}"
print(f"{heading}: one y scale, ticks {scales.pop()}")
PY
}

# contains NAME TEXT...: the report shows each text; lacks NAME TEXT...: it shows none of them.
contains() { local name=$1; shift; for text in "$@"; do grep -qF -- "$text" "$work/$name.html" || { echo "FAIL: $name lacks: $text"; exit 1; }; done; }
lacks() { local name=$1; shift; for text in "$@"; do if grep -qF -- "$text" "$work/$name.html"; then echo "FAIL: $name shows: $text"; exit 1; fi; done; }

"$popsim" analyze "$data"/epoch/epoch_{1,2,4,8}proc.prv.gz --quiet --html "$work/mpi.html" > /dev/null
render mpi
same_scale mpi "Per-rank breakdown"
contains mpi ">processes</text>" ">Load balance</text>" ">Transfer efficiency</text>" "<h2>Per-rank breakdown</h2>" "strong (detected)"

"$popsim" analyze "$data"/imagemagick-omp/omp{1,2,4,6,8}.prv.gz --quiet --html "$work/openmp.html" > /dev/null
render openmp
same_scale openmp "Per-thread breakdown"
contains openmp "Model: OpenMP (PyPOP)" ">threads</text>" ">OpenMP Region Efficiency</text>" ">Serial Region Efficiency</text>" \
    ">Global Efficiency</text>" "<h2>Per-thread breakdown</h2>" "strong (detected)" "<th>Threads</th>"
lacks openmp ">processes</text>" ">Load balance</text>" ">Transfer efficiency</text>" "Per-rank breakdown" "weak"
# Issue 36, item 5: the parallel regions the terminal lists, named from the .pcf.
contains openmp "<h2>Parallel regions</h2>" "omp4.prv.gz (2 regions)</p><table class=\"metrics regions\"><tr><th>region</th>" \
    '<td class="label">GetPixelBlue</td><td>1</td>' '<td class="label">GetPixelGreen</td><td>1</td>'
lacks mpi "<h2>Root causes</h2>"

"$popsim" analyze "$data"/epoch/epoch_8proc.prv.gz --root-causes --quiet --html "$work/root_causes.html" > /dev/null
render root_causes
contains root_causes "<h2>Root causes</h2>" "% of the ideal critical path" "causing \\ waiting" \
    "MPI_Sendrecv in __partli..sendrecv" "late sender" \
    "in code region (the caller of the MPI call it leads to)" "share of the waiting it caused" \
    '<tr><th>pattern</th><th>traced</th><th>ideal network</th></tr><tr><td class="label">late sender</td><td>2.7%</td><td>2.2%</td>'

# Issue 36, item 7: the communication matrix (awk over the 3: records: 325 messages, 15.0 MiB from
# rank 1 to 2), the message sizes, the time profile.
"$popsim" analyze "$data"/epoch/epoch_8proc.prv.gz --communication --quiet --html "$work/communication.html" > /dev/null
render communication
contains communication "<h2>Communication</h2>" '<table class="heat comm-matrix">' \
    'title="1 -> 2: 325 messages, 15.0 MiB">7.3%</td>' '<td class="label">[32 KiB, 64 KiB)</td><td>4240</td>' \
    '<svg class="time-profile"' \
    "<h2>Warnings</h2>" "calls-without-record"

# Each process r computes 4 s + 0.1 r s over its threads, then a barrier: the runs' useful time is
# 4 + 4.1 = 8.1 s (2x1), 2 x 2 + 2 x 2.1 = 8.2 s (2x2), 4 + 4.2 + 4.4 + 4.6 = 17.2 s (4x2).
for layout in 2x1 2x2 4x2; do
    ranks=${layout%x*} threads=${layout#*x}
    {
        echo "ranks $ranks threads $threads"
        for ((r = 0; r < ranks; r++)); do
            echo "$r.0 event 60000001 1"
            for ((t = 0; t < threads; t++)); do
                [ "$t" -gt 0 ] && echo "$r.$t event 60000001 1"
                echo "$r.$t compute $((4000 / threads + 100 * r))ms ins=$((4000000 / threads)) cyc=$((4000000 / threads))"
                echo "$r.$t event 60000001 0"
            done
            echo "$r.0 Barrier 1us"
        done
    } > "$work/hybrid_$layout.synth"
    "$popsim" synth "$work/hybrid_$layout.synth" -o "$work/hybrid_$layout.prv" 2> /dev/null
done
"$popsim" analyze "$work"/hybrid_{2x1,2x2,4x2}.prv --model hybrid-additive --quiet --html "$work/hybrid.html" > /dev/null
render hybrid
contains hybrid "Model: hybrid MPI+OpenMP, additive" ">cores (processes x threads)</text>" ">2x2</text>" ">4x2</text>" \
    ">Thread efficiency</text>" "<h2>Per-thread breakdown</h2>" "<h2>Parallel regions</h2>" \
    'Useful duration, total (s)</td><td>8.100000</td><td>8.200000</td><td>17.200000</td>'
lacks hybrid ">processes</text>" "Per-rank breakdown"

"$popsim" whatif "$data"/lammps-melt/lammps_melt_4.prv.gz --quiet --latency 0,1us,10us,100us \
    --bandwidth 100MB/s,1GB/s,10GB/s,inf --html "$work/whatif.html" > /dev/null
render whatif
contains whatif "<h2>Against latency</h2>" "<h2>Against bandwidth</h2>" ">latency (log scale)</text>" \
    ">bandwidth (log scale)</text>" ">bandwidth 100MB/s</text>" ">latency 100us</text>" ">real run</text>" \
    ">ideal network</text>" "<td>10us</td><td>1GB/s</td>" \
    '<tr class="traced"><td class="label" colspan="2">traced run</td><td>0.745922</td>'
lacks whatif ">configuration</text>"
echo "PASS: the MPI, OpenMP, hybrid, root-cause, communication and what-if reports rendered ($work/*.png)"
