#!/usr/bin/env bash
# Renders the HTML report of the epoch series in headless Chromium and checks that the page is not
# blank and logged nothing to its console (the report has no scripts: any console line is a fault).
# usage: html_render_test.sh POPSIM CHROMIUM SHARED_DATA WORK_DIR
set -euo pipefail
popsim=$1 chromium=$2 data=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
"$popsim" analyze "$data"/epoch/epoch_{1,2,4,8}proc.prv.gz --html "$work/report.html" > /dev/null
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
    --screenshot="$work/report.png" --window-size=1300,2000 "file://$work/report.html" 2> "$work/chromium.log" > /dev/null
if grep -E "CONSOLE|Uncaught" "$work/chromium.log"; then
    echo "FAIL: the page logged console messages"; exit 1
fi
python3 - "$work/report.png" <<'PY'
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
echo "PASS: report rendered ($work/report.png)"
