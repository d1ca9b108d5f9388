#!/usr/bin/env bash
# Builds the Debian package (cpack -G DEB), unpacks it into a scratch root and runs what it
# installs: the program, its man page (every command), its bash completion; its dependencies are
# Debian's runtime packages.
# usage: package_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
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
man_page="$work/root/usr/share/man/man1/popsim.1"
commands=$("$popsim" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
for command in $commands; do
    grep -qF ".SS \"popsim $command\"" "$man_page" || fail "the man page lacks popsim $command"
done
completion="$work/root/usr/share/bash-completion/completions/popsim"
(source "$completion"; COMP_WORDS=(popsim whatif --lat); COMP_CWORD=2; _popsim; [ "${COMPREPLY[*]}" = --latency ]) ||
    fail "the completion does not complete whatif --lat"
[ -f "$work/root/usr/share/doc/popsim/user-guide.md" ] || fail "no user guide in the package"
echo "PASS: $(basename "$deb") ($(du -k "$deb" | cut -f1) kB), Depends: $depends"
