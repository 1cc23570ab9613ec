#!/usr/bin/env bash
# oracle.sh - fetch the test oracles `make test` reads: real libtorch builds
# (Debian's libtorch2.6 from trixie and libtorch2.14 from unstable), whose
# exported symbols tests/shell/libtorch.sh holds the shim table and
# --libtorch against, and trixie's C library (glibc 2.41), whose dynamic
# loader tests/shell/runtime.sh runs to see what glibc 2.41's dlopen refuses.
# Nothing is installed: `apt-get download` with a private sources list and
# state folder fetches the .deb files, and dpkg-deb -x unpacks them into the
# cache (the libtorch builds need a newer glibc than Debian 12's, so they are
# read, never loaded; the loader runs only when named, with its own libraries).
#
#   oracle.sh fetch   fetch what the cache lacks (nothing when both are there)
#   oracle.sh dir     print the cache folder
#
# The cache is $PT2SCOPE_ORACLE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/pt2scope/oracle,
# outside the checkout so a clean clone on the same machine reuses it.
set -u
dir=${PT2SCOPE_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pt2scope/oracle}
# folder -> Debian package, the suite it is taken from, and a file that says it is there
oracles="2.6:libtorch2.6:trixie:usr/lib/*/libtorch_cpu.so.*
2.14:libtorch2.14:unstable:usr/lib/*/libtorch_cpu.so.*
glibc-2.41:libc6:trixie:usr/lib/*/ld-linux-x86-64.so.2"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${PT2SCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

case "${1:-fetch}" in
dir) echo "$dir"; exit 0 ;;
fetch) ;;
*) echo "usage: oracle.sh fetch|dir" >&2; exit 2 ;;
esac

set -f # the probes are globs for ls, not for this list
read -r -d '' -a list <<<"$oracles"
set +f
need=()
for o in "${list[@]}"; do
    IFS=: read -r rel _pkg _suite probe <<<"$o"
    # shellcheck disable=SC2086 # the probe is a glob
    ls "$dir/$rel"/$probe >/dev/null 2>&1 || need+=("$o")
done
[ ${#need[@]} -eq 0 ] && exit 0

apt="$dir/.apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc/preferences.d" \
    "$apt/etc/sources.list.d" "$apt/debs" || exit 1
: >"$apt/etc/sources.list"
for s in trixie unstable; do
    echo "deb [signed-by=$KEYRING] $MIRROR $s main" >>"$apt/etc/sources.list"
done
opts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
      -o "Dir::Etc::Preferences=$apt/etc/preferences" -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
      -o "Debug::NoDropPrivs=1" -o "APT::Sandbox::User=root")
echo "pt2scope: fetching test oracles (Debian libtorch builds, trixie's glibc) into $dir"
apt-get "${opts[@]}" -qq update || { echo "pt2scope: apt-get update (private lists) failed" >&2; exit 1; }
for o in "${need[@]}"; do
    IFS=: read -r rel pkg suite _probe <<<"$o"
    (cd "$apt/debs" && apt-get "${opts[@]}" -qq download "$pkg/$suite") ||
        { echo "pt2scope: apt-get download $pkg failed" >&2; exit 1; }
    rm -rf "$dir/$rel.tmp" && mkdir -p "$dir/$rel.tmp" &&
        dpkg-deb -x "$apt/debs/${pkg}_"*.deb "$dir/$rel.tmp" &&
        rm -rf "$dir/$rel" && mv "$dir/$rel.tmp" "$dir/$rel" ||
        { echo "pt2scope: unpacking $pkg failed" >&2; exit 1; }
    rm -f "$apt/debs/${pkg}_"*.deb
done
exit 0
