#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mpirun -np K popsim analyze` and `whatif` against one process (issue 39): for K = 1, 2, 3, 4 the terminal
# report, the modelfactors CSV, the JSON and the HTML report are byte for byte the single
# process's (but for what is a figure of the run: the JSON's peak memory, the HTML's minute of
# writing), on the epoch series and on one
# series of every real trace popsim analyses (the collected ones, HPCC, prime, LAMMPS, the hybrid
# HPCG, ImageMagick's OpenMP runs, Score-P's OTF2 archives, the bundled synth examples); so are the
# errors (a truncated trace among good ones) and the analyses one process does for all
# (--root-causes); and whatif's sweeps (24 networks on LAMMPS, the configurations divided; a plain
# trace read once and its program handed on).
#   validation/mpi_runs.sh POPSIM MPIRUN [DATA]
. "$(dirname "$0")/setup.sh" "$1" "${3:-}"
mpirun=$2
popsim=$(realpath "$popsim") # the processes below start in other folders
# As root (CI, containers) Open MPI wants to be told; --oversubscribe: more processes than cores;
# no binding (as the user guide advises): bound to one core, popsim notes it on stderr (below).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run OUT [mpirun -np K] -- COMMAND popsim arguments: OUT.{txt,err,csv,json,html,status}
run() {
    local out=$1
    shift
    local launcher=()
    while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
    shift
    "${launcher[@]}" "$popsim" "$@" --no-color --csv "$out.csv" --json "$out.json" --html "$out.html" \
        > "$out.txt" 2> "$out.err"
    echo $? > "$out.status"
    # How many processes read each trace is a figure of the run too (checked below).
    [ -f "$out.json" ] && grep -v '"peak_memory_bytes"\|"mpi_processes"' "$out.json" > "$out.json.cmp"
    [ -f "$out.html" ] && sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC/DATE/' "$out.html" > "$out.html.cmp"
    return 0
}

# same NAME K: the K-process run's outputs equal the single process's.
same() {
    local name=$1 k=$2 a=$work/$1.single b=$work/$1.np$2
    for part in status txt csv json.cmp html.cmp; do
        if [ -f "$a.$part" ] || [ -f "$b.$part" ]; then
            cmp -s "$a.$part" "$b.$part" || fail "$name, $k processes: the $part differs from one process's"
        fi
    done
}

# series NAME KS -- COMMAND arguments
series() {
    local name=$1 ks=$2
    shift 3
    run "$work/$name.single" -- "$@"
    for k in $ks; do
        run "$work/$name.np$k" "$mpirun" -np "$k" -- "$@"
        same "$name" "$k"
        # The warnings too (mpirun adds nothing when every process ends well).
        cmp -s "$work/$name.single.err" "$work/$name.np$k.err" || fail "$name, $k processes: stderr differs"
    done
    echo "$name: $(cat "$work/$name.single.status"), the same with $ks processes"
}

# refused_alike NAME K EXPECTED -- COMMAND arguments: one process refuses with an error holding
# EXPECTED, and K processes give the same outputs and the same error.
refused_alike() {
    local name=$1 k=$2 expected=$3
    shift 4
    run "$work/$name.single" -- "$@"
    run "$work/$name.np$k" "$mpirun" -np "$k" -- "$@"
    grep -qF -- "$expected" "$work/$name.single.err" || fail "$name: $(cat "$work/$name.single.err")"
    same "$name" "$k"
    [ "$(grep "popsim: error:" "$work/$name.single.err")" = "$(grep "popsim: error:" "$work/$name.np$k.err")" ] ||
        fail "$name, $k processes: $(cat "$work/$name.np$k.err")"
}

series epoch "1 2 3 4" -- analyze "$data"/epoch/epoch_{1,2,4,8,16}proc.prv.gz

# Every real trace popsim analyses alone, as one (mixed) series.
traces=()
for trace in "$data"/collected/*/*.prv.gz "$data"/hpcc/*.prv.gz "$data"/prime/*.prv.gz \
             "$data"/lammps-melt/*.prv.gz "$data"/hpcg-hybrid/*.prv.gz "$data"/imagemagick-omp/*.prv.gz \
             "$data"/otf2/*/traces.otf2 "$here"/examples/halo/*.prv; do
    [ -e "$trace" ] || continue
    "$popsim" analyze "$trace" --quiet > /dev/null 2>&1 && traces+=("$trace")
done
[ "${#traces[@]}" -ge 40 ] || fail "only ${#traces[@]} real traces analysed"
series real-traces "1 2 3 4" -- analyze "${traces[@]}"

# OpenMP runs: the OpenMP model's table.
series imagemagick "3" -- analyze "$data"/imagemagick-omp/*.prv.gz

# One plain .prv read by K processes (the reader and K - 1 helpers, each parsing ranges of
# --read-block bytes): small ranges, so that every trace is cut into hundreds; the JSON says K.
mkdir -p "$work/plain"
plain=()
for trace in "$data"/lammps-melt/lammps_melt_4.prv.gz "$data"/hpcc/hpcc_2.prv.gz "$data"/epoch/epoch_8proc.prv.gz \
             "$data"/imagemagick-omp/omp8.prv.gz "$data"/collected/*/*chop*.prv.gz \
             "$data"/collected/dosimont_bigdft/*.prv.gz; do
    [ -e "$trace" ] || continue
    base=$(basename "$trace" .prv.gz)
    gzip -dc "$trace" > "$work/plain/$base.prv"
    for labels in pcf row; do cp "${trace%.prv.gz}.$labels" "$work/plain/" 2> /dev/null; done
    plain+=("$work/plain/$base.prv")
done
[ "${#plain[@]}" -ge 4 ] || fail "only ${#plain[@]} plain traces"
for trace in "${plain[@]}" "$here"/examples/halo/halo_8.prv; do
    name=plain-$(basename "$trace" .prv)
    series "$name" "2 4" -- analyze "$trace" --read-block 4KiB
    grep -q '"mpi_processes": 4' "$work/$name.np4.json" || fail "$name: the JSON does not say 4 processes"
done
# An OTF2 archive read by K processes: the reader asks each helper for a part of its locations,
# read through the OTF2 library there, and takes their records back.
otf2=()
for archive in "$data"/otf2/casita-2_jacobi_blame_*/traces.otf2; do [ -e "$archive" ] && otf2+=("$archive"); done
[ "${#otf2[@]}" -ge 2 ] || fail "only ${#otf2[@]} OTF2 archives"
for archive in "${otf2[@]}"; do
    name=otf2-$(basename "$(dirname "$archive")")
    series "$name" "2 3" -- analyze "$archive"
    grep -q '"mpi_processes": 3' "$work/$name.np3.json" || fail "$name: the JSON does not say 3 processes"
done
series otf2-whatif "2 3" -- whatif "${otf2[0]}" --latency 1us,10us
hpcg=$work/plain/hpcg_2x2.prv
gzip -dc "$data"/hpcg-hybrid/hpcg_2x2.prv.gz > "$hpcg" && cp "$data"/hpcg-hybrid/hpcg_2x2.{pcf,row} "$work/plain/"
series plain-hybrid "3" -- analyze "$hpcg" --read-block 64KiB --model hybrid-multiplicative
# In memory (on the first process, helped), and two traces on four processes (two readers, each
# with a helper).
series plain-in-memory "3" -- analyze "${plain[0]}" --read-block 4KiB --root-causes
series plain-two "4" -- analyze "${plain[0]}" "${plain[1]}" --read-block 4KiB
# A window read from a divided body, and a trace cut mid-line (its last range ends unfinished).
series plain-window "3" -- analyze "${plain[0]}" --from 0.2s --to 0.5s --read-block 4KiB
head -c -30 "${plain[0]}" > "$work/plain/cut_mid_line.prv"
series plain-truncated "3" -- analyze "$work/plain/cut_mid_line.prv" --allow-truncated --read-block 4KiB
grep -c '"mpi_processes": 2' "$work/plain-two.np4.json" | grep -q '^2$' || fail "two traces on four processes: not two each"
# A .prv.gz written by bgzip with the index of its members (bgzip -i): divided as the .prv. Without
# an index, the first process says why the others cannot help.
if command -v bgzip > /dev/null; then
    bgzip -k -f -i "${plain[0]}"
    series plain-bgzip "2 4" -- analyze "${plain[0]}.gz" --read-block 4KiB
    grep -q '"mpi_processes": 4' "$work/plain-bgzip.np4.json" || fail "bgzip: the JSON does not say 4 processes"
    "$mpirun" -np 2 "$popsim" analyze "$data"/lammps-melt/lammps_melt_4.prv.gz > /dev/null 2> "$work/no-index.err"
    grep -q "popsim: note: .*lammps_melt_4.prv.gz is read by one process, the others cannot help: gzipped without an index of its members" \
        "$work/no-index.err" || fail "a .prv.gz without an index: no note ($(cat "$work/no-index.err"))"
else
    fail "no bgzip (./dev installs tabix)"
fi
# Any .prv.gz, as gzip writes it, with gztool's index of restart points (gztool -i, here every MiB
# of text): divided from the points, in ranges of --read-block or 2 MiB. The epoch trace of 16
# ranks: 14 MB of text.
if command -v gztool > /dev/null; then
    cp "$data"/epoch/epoch_16proc.{pcf,row} "$work/plain/"
    gzip -dc "$data"/epoch/epoch_16proc.prv.gz | gzip -6 > "$work/plain/epoch_16proc.prv.gz"
    gztool -s 1 -i "$work/plain/epoch_16proc.prv.gz" 2> /dev/null
    series gztool "2 4" -- analyze "$work/plain/epoch_16proc.prv.gz" --read-block 64KiB
    grep -q '"mpi_processes": 4' "$work/gztool.np4.json" || fail "gztool: the JSON does not say 4 processes"
    series gztool-default "3" -- analyze "$work/plain/epoch_16proc.prv.gz"
    # An index cut short: the same warning, and the trace read as one stream, on any count.
    head -c 3000 "$work/plain/epoch_16proc.prv.gzi" > "$work/cut.gzi" && mv "$work/cut.gzi" "$work/plain/epoch_16proc.prv.gzi"
    series gztool-cut "3" -- analyze "$work/plain/epoch_16proc.prv.gz"
    grep -q "ends inside a restart point" "$work/gztool-cut.single.err" || fail "gztool-cut: no warning"
else
    fail "no gztool (./dev installs it)"
fi
# simulate: the first process simulates, the others help it read the trace; the report, the JSON
# and the simulated trace are one process's.
for trace in "${plain[0]}" "${plain[0]}.gz" "$hpcg" "${otf2[0]}"; do
    for network in "" "--latency 1us --bandwidth 1GB/s"; do
        name=simulate-$(basename "$(dirname "$trace")")-$(basename "$trace")${network:+-dimemas}
        "$popsim" simulate "$trace" $network --json "$work/$name.1.json" -o "$work/$name.1.prv" \
            > "$work/$name.1.txt" 2> /dev/null
        for k in 2 3; do
            "$mpirun" -np "$k" "$popsim" simulate "$trace" $network --read-block 16KiB \
                --json "$work/$name.$k.json" -o "$work/$name.$k.prv" > "$work/$name.$k.txt" 2> /dev/null
            cmp -s "$work/$name.1.txt" "$work/$name.$k.txt" || fail "$name, $k processes: the report differs"
            cmp -s "$work/$name.1.prv" "$work/$name.$k.prv" || fail "$name, $k processes: the simulated trace differs"
            cmp -s <(grep -v '"peak_memory_bytes"\|"mpi_processes"' "$work/$name.1.json") \
                <(grep -v '"peak_memory_bytes"\|"mpi_processes"' "$work/$name.$k.json") ||
                fail "$name, $k processes: the JSON differs"
            grep -q "\"mpi_processes\": $k" "$work/$name.$k.json" || fail "$name: the JSON does not say $k processes"
        done
    done
done
echo "simulate: the same with 2 and 3 processes, its reading helped"

# A bad line deep in the body (two ranges in three are the helpers'): the lone reader's error, at the same line.
sed '20000s/.*/2:1:1:1:1:not-a-time:1:1/' "${plain[0]}" > "$work/plain/bad_line.prv"
refused_alike bad-line 3 "bad_line.prv:20000: " -- analyze "$work/plain/bad_line.prv" --read-block 4KiB
echo "a bad line in a helper's range: $(cat "$work/bad-line.single.err")"

# A truncated trace among good ones: the same error, the same exit status.
truncated=$(ls "$data"/collected/profet_lulesh/test1.prv.gz 2> /dev/null)
if [ -n "$truncated" ]; then
    run "$work/error.single" -- analyze "$data"/epoch/epoch_{1,2,4}proc.prv.gz "$truncated"
    run "$work/error.np3" "$mpirun" -np 3 -- analyze "$data"/epoch/epoch_{1,2,4}proc.prv.gz "$truncated"
    [ "$(cat "$work/error.single.status")" = 2 ] || fail "the truncated trace was not refused"
    cmp -s "$work/error.single.status" "$work/error.np3.status" || fail "error: another exit status"
    grep "popsim: error:" "$work/error.single.err" > "$work/error.single.msg"
    grep "popsim: error:" "$work/error.np3.err" > "$work/error.np3.msg"
    cmp -s "$work/error.single.msg" "$work/error.np3.msg" || fail "error: another message: $(cat "$work/error.np3.msg")"
    echo "truncated trace: refused alike ($(cat "$work/error.single.msg"))"
fi

# A trace one process does not see (machines without a shared file system): mpirun's MPMD form
# runs each process in its own folder. Whichever misses it, the run ends with the error, exit
# status 2 and no report, instead of waiting forever for that process.
mkdir -p "$work/sees" "$work/blind"
cp "$here"/examples/halo/halo_2.* "$work/sees/"
for order in "sees blind" "blind sees"; do
    set -- $order
    for command in analyze whatif simulate; do
        # Small ranges: the process that sees it would ask the other to read some.
        (cd "$work" && timeout 120 "$mpirun" -np 1 --wdir "$work/$1" "$popsim" "$command" halo_2.prv --json out.json --read-block 256B : \
            -np 1 --wdir "$work/$2" "$popsim" "$command" halo_2.prv --json out.json --read-block 256B > "$work/blind.txt" 2>&1)
        status=$?
        [ "$status" = 2 ] || fail "$command, a trace only one process sees ($order): status $status"
        grep -q "popsim: error: halo_2.prv: no such file or folder" "$work/blind.txt" ||
            fail "$command, a trace only one process sees ($order): $(head -3 "$work/blind.txt")"
        [ ! -e "$work/sees/out.json" ] && [ ! -e "$work/blind/out.json" ] || fail "$command: a report was written"
    done
done
echo "a trace one process does not see: refused, whichever process misses it"
# Another file under the same name on the helper's machine: refused, not read as the trace.
mkdir -p "$work/other"
cp "$here"/examples/halo/halo_4.prv "$work/other/halo_2.prv"
(cd "$work" && timeout 120 "$mpirun" -np 1 --wdir "$work/sees" "$popsim" analyze halo_2.prv --read-block 256B : \
    -np 1 --wdir "$work/other" "$popsim" analyze halo_2.prv --read-block 256B > "$work/other.txt" 2>&1)
status=$?
[ "$status" = 2 ] && grep -q "popsim: error: halo_2.prv:[0-9]*: another process of the MPI run sees another file at halo_2.prv" "$work/other.txt" ||
    fail "another file under the trace's name: status $status, $(head -3 "$work/other.txt")"
echo "another file under the trace's name on a helper's machine: refused"

# Bound to one core (Open MPI's default for one or two processes), the first process says so, once;
# not with --quiet.
if [ "$(nproc)" -gt 1 ]; then
    "$mpirun" -np 2 --bind-to core "$popsim" analyze "$data"/epoch/epoch_2proc.prv.gz > /dev/null 2> "$work/bound.err"
    [ "$(grep -c "popsim: note: mpirun bound this process to one of the machine's" "$work/bound.err")" = 1 ] ||
        fail "bound to a core: no note, or more than one: $(cat "$work/bound.err")"
    "$mpirun" -np 2 --bind-to core "$popsim" analyze "$data"/epoch/epoch_2proc.prv.gz --quiet > /dev/null 2> "$work/bound.err"
    [ ! -s "$work/bound.err" ] || fail "bound to a core, --quiet: $(cat "$work/bound.err")"
    echo "bound to one core: noted"
fi

# Colours only on a terminal someone watches: mpirun gives each process a terminal of its own, so a
# report redirected to a file would hold colour codes.
"$popsim" analyze "$here"/examples/halo/halo_8.prv > "$work/colour.single" 2>&1
"$mpirun" -np 2 "$popsim" analyze "$here"/examples/halo/halo_8.prv > "$work/colour.np2" 2>&1
cmp -s "$work/colour.single" "$work/colour.np2" || fail "a report redirected under mpirun differs: $(grep -c $'\x1b' "$work/colour.np2") lines with escapes"
echo "a report redirected under mpirun: no colours, as one process's"

# A trace through a pipe: mpirun feeds standard input to the first process only, which reads it.
"$popsim" analyze /dev/stdin "$data"/epoch/epoch_4proc.prv.gz --quiet --no-color < "$data"/epoch/epoch_2proc.prv.gz \
    > "$work/stdin.single" 2>&1
# Open MPI 4's mpirun itself now and then crashes forwarding standard input once the job is over
# (in orte_iof_hnp_read_local_handler: open-mpi/ompi#7483, fixed in Open MPI 5; one run in 20
# here): such a run is made again, up to three times.
for k in 2 3; do
    for attempt in 1 2 3; do
        "$mpirun" -np "$k" "$popsim" analyze /dev/stdin "$data"/epoch/epoch_4proc.prv.gz --quiet --no-color \
            < "$data"/epoch/epoch_2proc.prv.gz > "$work/stdin.np$k" 2>&1
        grep -q "orte_iof_hnp_read_local_handler" "$work/stdin.np$k" || break
        echo "a trace through a pipe, $k processes: mpirun crashed forwarding stdin (open-mpi/ompi#7483), run $attempt"
    done
    cmp -s "$work/stdin.single" "$work/stdin.np$k" || fail "a trace through a pipe, $k processes: $(head -3 "$work/stdin.np$k")"
done
echo "a trace through a pipe: read by the first process"

# What needs a trace in memory runs on the first process.
series root-causes "2" -- analyze "$data"/lammps-melt/*.prv.gz --root-causes

# whatif: 24 configurations (two CPU ratios: an ideal replay each), divided among the processes.
lammps=$(ls "$data"/lammps-melt/*.prv.gz | tail -1)
series whatif "1 2 3 4" -- whatif "$lammps" --latency 1us,10us --bandwidth 1GB/s,10GB/s,inf --buses 0,1 \
    --cpu-ratio 1,2
# The trace read once, by the first process helped by the others, its program handed to them: a
# program that needs its trace (hpcc's cancels: read into memory) with which collectives' members
# left early, and with code what-ifs (--speedup, --balance) each code change's burst durations and
# useful time, which the trace's regions give; a bad line, or a region no thread enters: the lone
# reader's error.
series whatif-plain "2 3" -- whatif "${plain[0]}" --latency 1us,10us --bandwidth 1GB/s,inf --read-block 4KiB
series whatif-in-memory "2" -- whatif "$work/plain/hpcc_2.prv" --latency 1us,10us --read-block 4KiB
series whatif-balance "2" -- whatif "$lammps" --latency 1us,10us --balance
series whatif-speedup "2 3" -- whatif "$data"/epoch/epoch_4proc.prv.gz --latency 1us,10us \
    --speedup 70000002:main=1,2 --balance
refused_alike whatif-no-region 2 "no thread is ever inside" -- whatif "$data"/epoch/epoch_4proc.prv.gz \
    --latency 1us,10us --speedup 70000001:19=2
refused_alike whatif-bad-line 3 "bad_line.prv:20000: " -- whatif "$work/plain/bad_line.prv" --latency 1us,10us \
    --read-block 4KiB
echo "whatif, a bad line in a helper's range: refused alike"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "mpirun: every output equals one process's"
