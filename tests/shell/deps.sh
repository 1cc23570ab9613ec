#!/usr/bin/env bash
# The install decision of `make deps` and `make`, with fake apt-get,
# pkg-config, node, npm and id first on PATH, each recording its calls:
#   - everything present: no apt call;
#   - the -dev packages missing, a vendor node and npm present: apt gets only
#     the -dev packages, after one apt-get update;
#   - no node and no npm: apt gets nodejs and npm; node without npm: npm only;
#   - no chromium (the browser tests'): apt gets chromium only;
#   - clang without its libFuzzer runtime: apt gets libclang-rt-14-dev only;
#   - no mingw-w64 cross compiler (the PE tests' DLL): apt gets gcc-mingw-w64-x86-64 only;
#   - no lld-link, llvm-dlltool, llvm-readobj (the delay-load DLL): apt gets lld and llvm;
#   - no nginx (the remote tests'), neither on PATH nor in /usr/sbin (here
#     PT2SCOPE_NGINX): apt gets nginx only; one in /usr/sbin only: nothing;
#   - a Node.js too old for the OpenAPI tools: a message, exit 2, no apt call;
#   - the Python tests' modules (pytest, pip, numpy) missing from the
#     Makefile's PYTHON: apt gets only their Debian packages;
#   - the image test's engine: a docker whose `docker info` works needs
#     nothing; without one, apt gets buildah and debootstrap, only the
#     missing one of them;
#   - not root: exit 2, the apt-get command printed, no apt call;
#   - plain `make` with something missing: names it, points to make deps,
#     never calls apt-get.
# Also `make run` on a taken port: one line naming PORT and the next free one, exit 2.
set -u
cd "$(dirname "$0")/../.." || exit 1
MAKE_BIN=$(command -v make)
TMP=$(mktemp -d /tmp/pt2scope-deps-XXXXXX)
LPID=
cleanup() {
    [ -n "$LPID" ] && kill "$LPID" 2>/dev/null && wait "$LPID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
[ -n "${DEPS_DEBUG:-}" ] && trap - EXIT
pass=0 fail=0
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}

ALL_MODS="libzip libcjson libmicrohttpd libcurl nettle zlib check"
DEV_PKGS="libzip-dev libcjson-dev libmicrohttpd-dev libcurl4-openssl-dev nettle-dev zlib1g-dev check"

# A fresh fake bin for one case. Variables: MODS (pkg-config modules present;
# pkg-config itself is always there unless a case removes it), TOOLS (other
# commands present), NODE_VERSION, UID_IS, NO_FUZZ_RT (clang's runtime
# directory lacks libclang_rt.fuzzer when set), SBIN_NGINX (an nginx outside
# PATH, where Debian's is, when set).
# deps.sh looks for nginx off PATH at PT2SCOPE_NGINX (default /usr/sbin/nginx,
# which this machine may have): a path of this test's own.
export PT2SCOPE_NGINX=$TMP/sbin/nginx
setup() {
    rm -rf "$TMP/bin" "$TMP/calls" "$TMP/rt" "$TMP/sbin"
    mkdir -p "$TMP/bin" "$TMP/rt"
    if [ -n "${SBIN_NGINX:-}" ]; then
        mkdir -p "$TMP/sbin" && printf '#!/bin/sh\n' >"$PT2SCOPE_NGINX" && chmod +x "$PT2SCOPE_NGINX"
    fi
    [ -n "${NO_FUZZ_RT:-}" ] || : >"$TMP/rt/libclang_rt.fuzzer-$HOSTTYPE.a"
    [ -n "${NO_MINGW:-}" ] || printf '#!/bin/sh\n' >"$TMP/bin/x86_64-w64-mingw32-gcc"
    local l
    for l in lld-link llvm-dlltool llvm-readobj; do
        [ -n "${NO_LLVM:-}" ] || printf '#!/bin/sh\n' >"$TMP/bin/$l"
    done
    : >"$TMP/calls"
    local t
    # The real tools deps.sh and make's recipes use, and nothing else.
    for t in bash sh env cat mkdir; do ln -s "$(command -v $t)" "$TMP/bin/$t"; done
    cat >"$TMP/bin/apt-get" <<SH
#!/bin/sh
echo "apt-get \$*" >>"$TMP/calls"
SH
    cat >"$TMP/bin/pkg-config" <<SH
#!/bin/sh
echo "pkg-config \$*" >>"$TMP/calls"
[ "\$1" = --exists ] || exit 0
for m in $MODS; do [ "\$m" = "\$2" ] && exit 0; done
exit 1
SH
    cat >"$TMP/bin/id" <<SH
#!/bin/sh
echo $UID_IS
SH
    for t in $TOOLS; do
        case $t in
        python3) # `python3 -c "import MOD"` fails for each MOD in PY_MISSING
            printf '#!/bin/sh\necho "python3 $*" >>"%s"\nfor m in %s; do [ "$2" = "import $m" ] && exit 1; done\nexit 0\n' \
                "$TMP/calls" "${PY_MISSING:-}" ;;
        node) printf '#!/bin/sh\necho "node $*" >>"%s"\necho %s\n' "$TMP/calls" "$NODE_VERSION" ;;
        clang) printf '#!/bin/sh\necho "clang $*" >>"%s"\necho %s\n' "$TMP/calls" "$TMP/rt" ;;
        *) printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$t" "$TMP/calls" ;;
        esac >"$TMP/bin/$t"
    done
    # A docker whose `docker info` exits DOCKER_RC (0: an engine answers), unless NO_DOCKER.
    [ -n "${NO_DOCKER:-}" ] ||
        printf '#!/bin/sh\necho "docker $*" >>"%s"\nexit %s\n' "$TMP/calls" "${DOCKER_RC:-0}" \
            >"$TMP/bin/docker"
    chmod +x "$TMP/bin"/*
}

# run_make TARGET...: make with only the fake bin on PATH; sets RC and OUT.
run_make() {
    OUT=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$TMP/bin" "$MAKE_BIN" -s --no-print-directory BUILD="$TMP/build" PYTHON=python3 "$@" 2>&1)
    RC=$?
}
apt_calls() { grep '^apt-get' "$TMP/calls" | tr '\n' ';'; }

EVERY_TOOL="cc curl python3 clang-format chromium clang nginx node npm"

# 1. Everything present: no apt call.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.11.1 UID_IS=0 setup
run_make deps
same "all present: exit" "$RC" 0
same "all present: apt" "$(apt_calls)" ""
same "all present: output" "$OUT" ""
same "all present: docker's engine asked" "$(grep -c '^docker info' "$TMP/calls")" 1

# 2. A new machine with a vendor Node.js 20 and its own npm: only the -dev packages.
MODS="" TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 setup
run_make deps
same "dev missing: exit" "$RC" 0
same "dev missing: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends $DEV_PKGS;"
same "dev missing: node untouched" "$(grep -c '^npm ' "$TMP/calls")" 0

# 3. No node and no npm: Debian's nodejs and npm.
MODS=$ALL_MODS TOOLS="cc curl python3 clang-format chromium clang nginx" NODE_VERSION= UID_IS=0 setup
run_make deps
same "no node: exit" "$RC" 0
same "no node: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends nodejs npm;"

# 4. A node without npm: npm only (never a second nodejs).
MODS=$ALL_MODS TOOLS="cc curl python3 clang-format chromium clang nginx node" NODE_VERSION=v18.19.0 UID_IS=0 setup
run_make deps
same "node without npm: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends npm;"

# 5. A Node.js too old for the tools, with npm: said, not replaced.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v16.20.2 UID_IS=0 setup
run_make deps
same "old node: exit" "$RC" 2
same "old node: apt" "$(apt_calls)" ""
same "old node: message" "$(echo "$OUT" | head -1)" \
    "pt2scope: Node.js v16.20.2 is too old for the OpenAPI tools (need >= 18.17); install a newer Node.js"

# 6. Not root, tools missing too: the exact command, exit 2, no apt call.
MODS="libzip libcjson libmicrohttpd libcurl nettle zlib" TOOLS="cc python3 chromium node npm" \
    NODE_VERSION=v22.1.0 UID_IS=1000 setup
run_make deps
same "not root: exit" "$RC" 2
same "not root: apt" "$(apt_calls)" ""
same "not root: message" "$(echo "$OUT" | sed -n 1,2p)" \
    "pt2scope: missing: check curl clang-format clang nginx libclang-rt-14-dev
run as root: apt-get update && apt-get install -y --no-install-recommends check curl clang-format clang nginx libclang-rt-14-dev"

# 6b. Everything but the browser the page's tests drive: apt gets chromium, nothing else.
MODS=$ALL_MODS TOOLS="cc curl python3 clang-format clang nginx node npm" NODE_VERSION=v20.20.2 UID_IS=0 setup
run_make deps
same "no chromium: exit" "$RC" 0
same "no chromium: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends chromium;"

# 6c. clang without the libFuzzer runtime (installed without recommends): the runtime only.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 NO_FUZZ_RT=1 setup
run_make deps
same "no fuzzer runtime: exit" "$RC" 0
same "no fuzzer runtime: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends libclang-rt-14-dev;"
same "no fuzzer runtime: asked clang" "$(grep -c '^clang --print-runtime-dir' "$TMP/calls")" 1

# 6c2. No mingw-w64 cross compiler (NO_MINGW): the cross compiler's package only.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 NO_MINGW=1 setup
run_make deps
same "no mingw: exit" "$RC" 0
same "no mingw: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64;"

# 6c3. No LLVM linker and tools (NO_LLVM: the delay-load DLL's lld-link, llvm-dlltool and
# the oracle llvm-readobj): their two packages, each once.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 NO_LLVM=1 setup
run_make deps
same "no llvm: exit" "$RC" 0
same "no llvm: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends lld llvm;"

# 6d. No nginx, on PATH or off it: apt gets nginx, nothing else.
MODS=$ALL_MODS TOOLS="cc curl python3 clang-format chromium clang node npm" NODE_VERSION=v20.20.2 \
    UID_IS=0 setup
run_make deps
same "no nginx: exit" "$RC" 0
same "no nginx: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends nginx;"

# 6e. Debian's nginx in /usr/sbin, which a non-root PATH lacks: installed already.
MODS=$ALL_MODS TOOLS="cc curl python3 clang-format chromium clang node npm" NODE_VERSION=v20.20.2 \
    UID_IS=1000 SBIN_NGINX=1 setup
run_make deps
same "nginx off PATH: exit" "$RC" 0
same "nginx off PATH: apt" "$(apt_calls)" ""
same "nginx off PATH: output" "$OUT" ""

# 6f. The Python tests' modules, asked of the Makefile's PYTHON: only the missing ones.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 PY_MISSING="pytest numpy" setup
run_make deps
same "python modules missing: exit" "$RC" 0
same "python modules missing: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends python3-pytest python3-numpy;"
same "python modules missing: asked python3" "$(grep -c '^python3 -c import ' "$TMP/calls")" 3
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 PY_MISSING="pip" setup
run_make deps
same "no pip: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends python3-pip;"
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=1000 PY_MISSING="pytest pip numpy" setup
run_make deps
same "python modules, not root: exit" "$RC" 2
same "python modules, not root: message" "$(echo "$OUT" | sed -n 2p)" \
    "run as root: apt-get update && apt-get install -y --no-install-recommends python3-pytest python3-pip python3-numpy"

# 6g. The image test: docker's engine down, no buildah, no debootstrap: both, nothing else.
MODS=$ALL_MODS TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 DOCKER_RC=1 setup
run_make deps
same "docker engine down: exit" "$RC" 0
same "docker engine down: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends buildah debootstrap;"
same "docker engine down: asked docker" "$(grep -c '^docker info' "$TMP/calls")" 1
# 6h. No docker at all, buildah there: debootstrap only.
MODS=$ALL_MODS TOOLS="$EVERY_TOOL buildah" NODE_VERSION=v20.20.2 UID_IS=0 NO_DOCKER=1 setup
run_make deps
same "no docker, buildah: apt" "$(apt_calls)" \
    "apt-get update -qq;apt-get install -y -qq --no-install-recommends debootstrap;"
# 6i. No docker, buildah and debootstrap there: nothing.
MODS=$ALL_MODS TOOLS="$EVERY_TOOL buildah debootstrap" NODE_VERSION=v20.20.2 UID_IS=0 NO_DOCKER=1 \
    setup
run_make deps
same "no docker, buildah and debootstrap: exit" "$RC" 0
same "no docker, buildah and debootstrap: apt" "$(apt_calls)" ""

# 7. Plain make with the -dev packages missing: says what and where, never apt.
MODS="check" TOOLS=$EVERY_TOOL NODE_VERSION=v20.20.2 UID_IS=0 setup
run_make
same "make: fails" "$RC" 2
same "make: apt" "$(apt_calls)" ""
same "make: npm" "$(grep -c '^npm ' "$TMP/calls")" 0
same "make: message" "$(echo "$OUT" | head -1)" \
    "pt2scope: cannot build, missing: libzip-dev libcjson-dev libmicrohttpd-dev libcurl4-openssl-dev nettle-dev zlib1g-dev; run 'make deps' (as root) to install them"

# 8. No pkg-config at all: that package too, and every module it cannot see.
MODS="" TOOLS="cc curl python3 clang-format chromium clang nginx node npm" NODE_VERSION=v20.0.0 UID_IS=1000 setup
rm "$TMP/bin/pkg-config"
run_make deps
same "no pkg-config: message" "$(echo "$OUT" | head -1)" \
    "pt2scope: missing: $(echo $DEV_PKGS | sed 's/ check$//') pkg-config check"

# The test oracles (service/tools/oracle.sh): fetched only when the cache lacks them,
# with a private sources list, downloaded, unpacked, never installed.
oracle_setup() {
    rm -rf "$TMP/obin" "$TMP/oracle" && mkdir -p "$TMP/obin" && : >"$TMP/calls"
    for t in bash sh env cat mkdir ls rm mv head sed; do ln -s "$(command -v $t)" "$TMP/obin/$t"; done
    cat >"$TMP/obin/apt-get" <<SH
#!/bin/sh
echo "apt-get \$*" | sed 's/-o [^ ]* //g' >>"$TMP/calls"
for a in "\$@"; do last=\${a%%/*}; done
case " \$* " in *" download "*) : >"\${last}_9.9_amd64.deb" ;; esac
SH
    cat >"$TMP/obin/dpkg-deb" <<SH
#!/bin/sh
echo "dpkg-deb \$1" >>"$TMP/calls"
mkdir -p "\$3/usr/lib/x86_64-linux-gnu" && : >"\$3/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.9.9.9" &&
    : >"\$3/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
SH
    chmod +x "$TMP/obin"/*
}
run_oracle() {
    OUT=$(env PATH="$TMP/obin" PT2SCOPE_ORACLE_DIR="$TMP/oracle" bash service/tools/oracle.sh fetch 2>&1)
    RC=$?
}
oracle_setup
run_oracle
same "oracle absent: exit" "$RC" 0
same "oracle absent: calls" "$(tr '\n' ';' <"$TMP/calls")" \
    "apt-get -qq update;apt-get -qq download libtorch2.6/trixie;dpkg-deb -x;apt-get -qq download libtorch2.14/unstable;dpkg-deb -x;apt-get -qq download libc6/trixie;dpkg-deb -x;"
same "oracle absent: unpacked" "$(ls "$TMP/oracle/2.6/usr/lib/x86_64-linux-gnu" "$TMP/oracle/2.14/usr/lib/x86_64-linux-gnu" | grep -c libtorch_cpu)" 2
same "oracle absent: the glibc 2.41 loader" "$(ls "$TMP/oracle/glibc-2.41/usr/lib/x86_64-linux-gnu")" \
    "ld-linux-x86-64.so.2
libtorch_cpu.so.9.9.9"
same "oracle absent: sources" "$(cat "$TMP/oracle/.apt/etc/sources.list")" \
    "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian unstable main"
: >"$TMP/calls"
run_oracle
same "oracle present: exit" "$RC" 0
same "oracle present: no call" "$(cat "$TMP/calls")" ""
rm -rf "$TMP/oracle/2.14"
run_oracle
same "oracle half present: only the missing one" "$(tr '\n' ';' <"$TMP/calls")" \
    "apt-get -qq update;apt-get -qq download libtorch2.14/unstable;dpkg-deb -x;"

# make run on a taken port: one line that names the variable.
python3 - "$TMP/port" <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(60)
PY
LPID=$!
for _ in $(seq 1 300); do [ -s "$TMP/port" ] && break; sleep 0.01; done
busy=$(cat "$TMP/port")
OUT=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE_BIN" -s --no-print-directory run \
    PORT="$busy" 2>&1 </dev/null)
RC=$?
same "run on a taken port: exit" "$RC" 2
# The suggestion is the next port that is free now (make_run_examples.sh holds two in a row).
next=$((busy + 1))
while bash -c "exec 3<>/dev/tcp/127.0.0.1/$next" 2>/dev/null; do next=$((next + 1)); done
same "run on a taken port: message" "$(echo "$OUT" | grep -v '^make')" \
    "pt2scope: 127.0.0.1:$busy is already in use; pick another port: make run PORT=$next"

[ -n "${DEPS_DEBUG:-}" ] && exit 0
echo "deps: $pass passed, $fail failed"
[ "$fail" = 0 ]
