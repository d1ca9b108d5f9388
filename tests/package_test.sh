#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the Debian package (cpack -G DEB), unpacks it into a scratch root and runs what it
# installs: the program, its man page (every command), its bash completion; its dependencies are
# Debian's runtime packages.
# Then what tool builders use from it, not from the build tree: the example C++ client built with
# find_package(popsim), and (with "python") the Python module running its test suite.
# usage: package_test.sh BUILD_DIR SOURCE_DIR WORK_DIR [python]
set -euo pipefail
build=$1 source=$2 work=$3 python=${4:-}
rm -rf "$work" && mkdir -p "$work/root"
(cd "$build" && cpack -G DEB -B "$work" > "$work/cpack.log")
deb=$(ls "$work"/popsim_*.deb)
dpkg-deb -x "$deb" "$work/root"
fail() { echo "FAIL: $*"; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
for package in libtbb12 libfmt9 libisal2 libstdc++6; do
    [[ $depends == *"$package"* ]] || fail "Depends lacks $package: $depends"
done
popsim="$work/root/usr/bin/popsim"
"$popsim" --version | grep -qx "$(grep -oP 'project\(popsim VERSION \K[0-9.]+' "$source/CMakeLists.txt")" ||
    fail "the installed popsim --version"
"$popsim" analyze "$source/examples/halo/halo_2.prv" --no-color | grep -q "^Parallel efficiency" ||
    fail "the installed popsim does not analyse the example"
man_page="$work/root/usr/share/man/man1/popsim.1.gz"
commands=$("$popsim" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
! zgrep -qF "$build" "$man_page" || fail "the man page names the build tree: $(zgrep -F "$build" "$man_page" | head -1)"
for command in $commands; do
    zgrep -qF ".SS \"popsim $command\"" "$man_page" || fail "the man page lacks popsim $command"
done
completion="$work/root/usr/share/bash-completion/completions/popsim"
(source "$completion"; COMP_WORDS=(popsim whatif --lat); COMP_CWORD=2; _popsim; [ "${COMPREPLY[*]}" = --latency ]) ||
    fail "the completion does not complete whatif --lat"
[ -f "$work/root/usr/share/doc/popsim/user-guide.md" ] || fail "no user guide in the package"
# What Debian's policy asks of a package (issue 36, item 2), and what the documentation names.
for file in doc/popsim/copyright doc/popsim/changelog.gz doc/popsim/LICENSE popsim/paraver/popsim.cfg \
    popsim/paraver/popsim_critical_path.cfg; do
    [ -f "$work/root/usr/share/$file" ] || fail "the package lacks /usr/share/$file"
done
zcat "$work/root/usr/share/doc/popsim/changelog.gz" | head -1 | grep -q "^popsim (" || fail "the changelog's first line"
[[ $depends == *"python3 (>= 3.11~)"* ]] || fail "Depends lacks python3 (the module): $depends"
[[ $(dpkg-deb -f "$deb" Recommends) == *bash-completion* ]] || fail "Recommends lacks bash-completion"
[ "$(dpkg-deb -I "$deb" triggers 2> /dev/null)" = "activate-noawait ldconfig" ] || fail "no ldconfig trigger"
if command -v lintian > /dev/null; then
    lintian --fail-on error "$deb" > "$work/lintian.log" 2>&1 || fail "lintian finds errors: $(grep '^E:' "$work/lintian.log")"
fi
client="$work/client"
cmake -S "$source/examples/library" -B "$client" -G Ninja -DCMAKE_PREFIX_PATH="$work/root/usr" > "$work/client.log" ||
    fail "find_package(popsim) on the installed files: $(cat "$work/client.log")"
cmake --build "$client" >> "$work/client.log" || fail "the example client does not build: $(cat "$work/client.log")"
halo="$source/examples/halo/halo_2.prv"
expected=$("$popsim" analyze "$halo" --no-color | awk -F' *[|] *' '/^Parallel efficiency/ { print $2 }')
"$client/pop_table" "$halo" | grep -qP "^Parallel efficiency\t\Q$expected\E$" ||
    fail "the example client does not print the Parallel efficiency popsim prints ($expected)"
if [ "$python" = python ]; then
    modules="$work/root/usr/lib/python3/dist-packages"
    [ -f "$modules/popsim/__init__.py" ] || fail "no Python module in the package"
    (cd "$source/tests/python" && POPSIM="$popsim" PYTHONPATH="$modules" PYTHONDONTWRITEBYTECODE=1 \
        /usr/bin/python3 -m unittest popsim_test 2> "$work/python.log") ||
        fail "the installed Python module: $(cat "$work/python.log")"
fi
echo "PASS: $(basename "$deb") ($(du -k "$deb" | cut -f1) kB), Depends: $depends"
