#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Writes popsim's man page from the program's own --help texts (help2man), every command's help
# in its own section, so the page never drifts from the program.
# usage: man_page.sh POPSIM OUTPUT
set -euo pipefail
popsim=$1 output=$2
include=$(mktemp)
trap 'rm -f "$include"' EXIT
commands=$("$popsim" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
{
    echo "[COMMANDS]"
    for command in $commands; do
        echo ".SS \"popsim $command\""
        echo ".nf"
        "$popsim" "$command" --help | sed 's/\\/\\\\/g; s/^\./\\\&./'
        echo ".fi"
    done
    echo "[EXIT STATUS]"
    echo "0 success, 1 usage error, 2 bad input (the message names the file, line and cause),"
    echo "3 other failure, 4 a regression found by compare."
    echo "[SEE ALSO]"
    echo "The user guide and the metric definitions in /usr/share/doc/popsim."
} > "$include"
help2man --no-info --name "POP efficiency metrics and ideal-network replay of MPI and OpenMP traces" \
    --include "$include" --output "$output" "$popsim"
