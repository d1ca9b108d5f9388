#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Dimemas' answer to code what-ifs on the LAMMPS melt traces: each Dimemas configuration of
# ../shared/data/lammps-melt/dimemas (ideal and three networks) with "modules information" records
# on Extrae's Application (40000001) and Flushing (40000003) events appended, run through an
# installed prv2dim + Dimemas by compare_with_dimemas.sh. Prints validation/dimemas_modules.csv's
# rows (and popsim's runtime beside Dimemas' on stderr).
#   validation/dimemas_modules.sh DATA_DIR PRV2DIM DIMEMAS > validation/dimemas_modules.csv
set -euo pipefail
data=${1:?usage: dimemas_modules.sh DATA_DIR PRV2DIM DIMEMAS}
prv2dim=${2:?usage: dimemas_modules.sh DATA_DIR PRV2DIM DIMEMAS}
dimemas=${3:?usage: dimemas_modules.sh DATA_DIR PRV2DIM DIMEMAS}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$data/lammps-melt/dimemas/dimemas.collectives" "$work/"
declare -A modules=(
    [app2]='"modules information" {40000001, 1, 2.0};;'
    [app05]='"modules information" {40000001, 1, 0.5};;'
    [flush2app2]='"modules information" {40000003, 1, 2.0};;
"modules information" {40000001, 1, 2.0};;'
)
echo "trace,configuration,modules,dimemas_ns"
for ranks in 2 4; do
    trace=$data/lammps-melt/lammps_melt_$ranks.prv.gz
    for config in dimemas_ideal whatif_lat20us_bw100_bus0 whatif_lat1us_bw10000_bus0 \
        whatif_lat5us_bw1000_bus1; do
        for name in app2 app05 flush2app2; do
            cfg=$work/lammps_melt_$ranks.$config.$name.cfg
            cat "$data/lammps-melt/dimemas/lammps_melt_$ranks.$config.cfg" > "$cfg"
            printf '%s\n' "${modules[$name]}" >> "$cfg"
            line=$("$here/compare_with_dimemas.sh" "$trace" "$cfg" "$prv2dim" "$dimemas")
            echo "lammps_melt_$ranks $config $name: $line" >&2
            ns=$(sed -E 's/^Dimemas ([0-9]+) ns.*/\1/' <<< "$line")
            echo "lammps_melt_$ranks,$config,$name,$ns"
        done
    done
done
