#!/usr/bin/env bash
# Prints how fast popsim reads an OTF2 archive (Score-P), in records per second, against Debian's
# otf2-print writing its listing to /dev/null: best of 3 wall times each. By default the largest
# archive of the validation data (300,816 records on 10 locations).
#   bench/otf2_read.sh BUILD_DIR [ANCHOR]
set -euo pipefail
build=$(cd "${1:?usage: bench/otf2_read.sh BUILD_DIR [ANCHOR]}" && pwd)
anchor=${2:-$(dirname "$0")/../../shared/data/otf2/casita-2_jacobi_blame_cpu_015/traces.otf2}
records=$("$build/popsim" events "$anchor" | awk '/^per location/ { exit } NR > 1 && NF == 2 { n += $2 } END { print n }')
best() { # command...: the best wall time of 3, in seconds
    local best=
    for _ in 1 2 3; do
        local start end
        start=$(date +%s.%N)
        "$@" > /dev/null 2>&1
        end=$(date +%s.%N)
        best=$(python3 -c "import sys; t = $end - $start; b = '$best'; print(min(t, float(b)) if b else t)")
    done
    echo "$best"
}
echo "$anchor: $records records"
for label in "popsim events" "popsim analyze" "otf2-print"; do
    case $label in
        "popsim events") t=$(best "$build/popsim" events "$anchor") ;;
        "popsim analyze") t=$(best "$build/popsim" analyze --quiet "$anchor") ;;
        otf2-print) t=$(best otf2-print "$anchor") ;;
    esac
    python3 -c "print(f'{\"$label\":16} {$t:7.3f} s = {$records / $t / 1e6:6.2f} M records/s')"
done
