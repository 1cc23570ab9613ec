#!/usr/bin/env bash
# deps.sh - decide what this machine lacks to build or test pt2scope, and
# install exactly that (Debian 12).
#
#   deps.sh build     what `make` needs: report what is missing, point to
#                     `make deps`, exit 2. Never installs.
#   deps.sh install   what `make run` and `make test` need: nothing missing,
#                     exit 0 silently; as root, one `apt-get update` then one
#                     `apt-get install` of the missing packages; otherwise
#                     print that command and exit 2.
#
# Each missing pkg-config module or tool maps to the one Debian package that
# provides it. Node.js and npm are used from wherever they came (a vendor
# repository's node ships its own npm, which Debian's npm conflicts with):
# Debian's nodejs/npm are asked for only when there is no npm at all.
# tests/shell/deps.sh runs this with fake apt-get, pkg-config, node and npm.
set -u

# pkg-config module -> Debian package
build_mods="libzip:libzip-dev libcjson:libcjson-dev libmicrohttpd:libmicrohttpd-dev
            libcurl:libcurl4-openssl-dev nettle:nettle-dev zlib:zlib1g-dev"
test_mods="check:check"
# command -> Debian package
build_tools="cc:gcc pkg-config:pkg-config"
# chromium: the browser tests (tests/browser) drive Debian's build with playwright-core.
# clang: the libFuzzer smoke (tests/fuzz); its runtime is a separate package,
# only recommended, which --no-install-recommends leaves out.
test_tools="curl:curl python3:python3 clang-format:clang-format chromium:chromium clang:clang"
# python module -> Debian package (asked of $PT2SCOPE_PYTHON, below)
py_mods="pytest:python3-pytest pip:python3-pip numpy:python3-numpy"
FUZZ_RT_PKG=libclang-rt-14-dev
# x86_64-w64-mingw32-gcc: the Windows DLL the PE tests read is built at test time
# (tests/fixtures/src/win_model.c); its package brings binutils-mingw-w64-x86-64 (dlltool).
test_tools="$test_tools x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64"
# lld-link, llvm-dlltool: the same DLL linked with a delay-load directory (GNU ld writes
# none); llvm-readobj: the oracle tests/shell/runtime.sh compares its tables with.
test_tools="$test_tools lld-link:lld llvm-dlltool:llvm llvm-readobj:llvm"
# nginx: the remote tests' web server (tests/remote/servers.sh runs it as the
# current user, never the system service). Debian puts it in /usr/sbin, which a
# non-root PATH may lack: it is there too (PT2SCOPE_NGINX names another place).
NGINX_BIN=${PT2SCOPE_NGINX:-/usr/sbin/nginx}
# The OpenAPI tools' floor (openapi/package.json "engines").
NODE_MIN=18.17

mode=${1:-install}
missing=()

want() { # want PKG: add a Debian package once
    local p
    for p in "${missing[@]}"; do [ "$p" = "$1" ] && return; done
    missing+=("$1")
}

check_mods() {
    local pair
    for pair in $1; do
        pkg-config --exists "${pair%%:*}" 2>/dev/null || want "${pair#*:}"
    done
}

check_tools() {
    local pair
    for pair in $1; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || want "${pair#*:}"
    done
}

# 0 when `node --version` (v20.11.1) is at least NODE_MIN.
node_new_enough() {
    local v maj min
    v=$(node --version 2>/dev/null) || return 1
    v=${v#v}
    maj=${v%%.*}
    min=${v#*.}
    min=${min%%.*}
    case "$maj$min" in *[!0-9]*|"") return 1 ;; esac
    [ "$maj" -gt "${NODE_MIN%%.*}" ] ||
        { [ "$maj" -eq "${NODE_MIN%%.*}" ] && [ "$min" -ge "${NODE_MIN#*.}" ]; }
}

check_mods "$build_mods"
check_tools "$build_tools"
# pkg-config missing makes every module look missing: that is one fix.

case "$mode" in
build)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "pt2scope: cannot build, missing: ${missing[*]}; run 'make deps' (as root) to install them" >&2
        exit 2
    fi
    exit 0 ;;
install) ;;
*)
    echo "usage: deps.sh build|install" >&2
    exit 2 ;;
esac

check_mods "$test_mods"
check_tools "$test_tools"
command -v nginx >/dev/null 2>&1 || [ -x "$NGINX_BIN" ] || want nginx
# The Python package's tests (tests/python) run with Debian's python3 (the
# Makefile's PYTHON, passed as PT2SCOPE_PYTHON), its pytest and its pip (pip
# installs the package offline from its in-tree build backend in the tests).
# Each module is asked of that interpreter, so only a missing one is installed.
py=${PT2SCOPE_PYTHON:-python3}
if command -v "$py" >/dev/null 2>&1; then
    for pair in $py_mods; do
        "$py" -c "import ${pair%%:*}" >/dev/null 2>&1 || want "${pair#*:}"
    done
fi
# clang finds libclang_rt.fuzzer-<arch>.a in its runtime directory, or cannot link a fuzzer.
rt=$(clang --print-runtime-dir 2>/dev/null)
[ -n "$rt" ] && [ -f "$rt/libclang_rt.fuzzer-$HOSTTYPE.a" ] || want "$FUZZ_RT_PKG"
# The image test (tests/image/run.sh) uses a working docker engine as it is; without one,
# Debian's buildah builds the image, from base images debootstrap makes when no registry
# answers: those two only then, and only the one missing.
if ! { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }; then
    command -v buildah >/dev/null 2>&1 || want buildah
    command -v debootstrap >/dev/null 2>&1 || want debootstrap
fi
if ! command -v npm >/dev/null 2>&1; then
    command -v node >/dev/null 2>&1 || want nodejs
    want npm
elif ! node_new_enough; then
    # Replacing a vendor Node.js with Debian's is not ours to do.
    echo "pt2scope: Node.js $(node --version 2>/dev/null || echo '(none)') is too old for the OpenAPI tools (need >= $NODE_MIN); install a newer Node.js" >&2
    exit 2
fi

[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
    echo "pt2scope: missing: ${missing[*]}" >&2
    echo "run as root: apt-get update && $cmd" >&2
    exit 2
fi
echo "pt2scope: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "pt2scope: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    { echo "pt2scope: apt-get install ${missing[*]} failed" >&2; exit 1; }
