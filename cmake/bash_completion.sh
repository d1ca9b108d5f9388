#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Writes popsim's bash completion from the program's own --help texts: its commands, and each
# command's options, so the completion never drifts from the program.
# usage: bash_completion.sh POPSIM OUTPUT
set -euo pipefail
popsim=$1 output=$2
options_of() { "$@" --help | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u | tr '\n' ' '; }
commands=$("$popsim" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }' | tr '\n' ' ')
{
    echo "# bash completion for popsim (generated from its --help by cmake/bash_completion.sh)"
    echo "_popsim() {"
    echo "    local current=\${COMP_WORDS[COMP_CWORD]} command=\"\" word"
    echo "    for word in \"\${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do"
    echo "        case \$word in $(echo $commands | tr ' ' '|')) command=\$word; break ;; esac"
    echo "    done"
    echo "    local words"
    echo "    case \$command in"
    for command in $commands; do
        echo "        $command) words=\"$(options_of "$popsim" "$command")\" ;;"
    done
    echo "        *) words=\"$commands$(options_of "$popsim")\" ;;"
    echo "    esac"
    echo "    if [[ \$current == -* || -z \$command ]]; then"
    echo "        mapfile -t COMPREPLY < <(compgen -W \"\$words\" -- \"\$current\")"
    echo "    else"
    echo "        mapfile -t COMPREPLY < <(compgen -f -- \"\$current\")"
    echo "    fi"
    echo "}"
    echo "complete -o filenames -F _popsim popsim"
} > "$output"
