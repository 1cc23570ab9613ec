#!/usr/bin/env bash
# "Compatible" means it loads. The oracle is the real dynamic loader: a child
# chroot()s into a stub root and dlopen(RTLD_NOW)s the library, as torch's
# loader does; `pt2scope check PKG --sysroot ROOT` must agree (loads <=>
# compatible) and name the symbol or version the loader names. Fixtures are
# built here with gcc and version scripts (a provider with versions the root
# lacks, a GLIBC_2.99 need, a stub libtorch_cpu.so exporting chosen shims, C++
# libtorch imports, a weak import, a prefixed shim, $ORIGIN run paths, a
# missing library), then every Linux x86_64 library of ../shared/corpus/pt2
# against a stub root that provides its imports (and one that lacks its newest
# shim). chroot needs root: elsewhere the oracle cases are skipped, counted.
set -u
cd "$(dirname "$0")/../.." || exit 1
REPO=$PWD
B=${PT2SCOPE_BUILD:-build}
CLI=$PWD/$B/pt2scope
T=$(mktemp -d /tmp/pt2scope-runtime-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
ARCH=$(uname -m)
[ "$ARCH" = x86_64 ] || { echo "runtime: 0 passed, 0 failed, 1 skipped"; exit 0; }
LIBDIR=/usr/lib/x86_64-linux-gnu
[ -d $LIBDIR ] || LIBDIR=/lib/x86_64-linux-gnu
CC=${CC:-cc}
SHARED=$(cd "${PT2SCOPE_SHARED:-../shared}" 2>/dev/null && pwd)

# ---- the oracle ---------------------------------------------------------------------------
cat >"$T/dlroot.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    void *h;
    if (argc != 3 || chroot(argv[1]) != 0 || chdir("/") != 0) {
        perror("dlroot: chroot");
        return 3;
    }
    h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        printf("%s\n", dlerror());
        return 1;
    }
    printf("ok\n");
    return 0;
}
EOF
$CC -O1 -o "$T/dlroot" "$T/dlroot.c" -ldl || { echo "FAIL: cannot build the oracle"; exit 1; }
CAN_CHROOT=0
if [ "$(id -u)" = 0 ]; then CAN_CHROOT=1; fi

# mkroot DIR: a root with this machine's C and C++ runtime (merged /usr, as Debian 12)
mkroot() {
    mkdir -p "$1/usr/lib/x86_64-linux-gnu" "$1/etc" "$1/models"
    ln -s usr/lib "$1/lib"
    for l in libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 libstdc++.so.6 libgcc_s.so.1 \
             libgomp.so.1 ld-linux-x86-64.so.2; do
        [ -e "$LIBDIR/$l" ] && cp -L "$LIBDIR/$l" "$1/usr/lib/x86_64-linux-gnu/$l"
    done
    [ -e /lib64/ld-linux-x86-64.so.2 ] && { mkdir -p "$1/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$1/lib64/"; }
    return 0
}

# pkg LIB OUT: a .pt2 whose model library is LIB (torch's loader takes data/aotinductor/*/…so)
pkg() {
    python3 - "$1" "$2" <<'EOF'
import sys, zipfile
lib, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
    z.writestr("m/archive_format", "pt2")
    z.writestr("m/archive_version", "0")
    z.writestr("m/data/aotinductor/model/cabc.wrapper_metadata.json", '{"AOTI_DEVICE_KEY": "cpu"}')
    z.write(lib, "m/data/aotinductor/model/cabc.wrapper.so")
EOF
}

# verdict PKG ROOT -> "verdict|first missing library|first missing version|first missing symbol"
verdict() {
    "$CLI" check "$1" --sysroot "$2" --json 2>"$T/err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = [x for x in d["compatibility"] if x["kind"] == "runtime"][0]
m = e.get("missing") or {}
def first(k):
    v = m.get(k) or []
    if not v: return ""
    return v[0]["version"] if k == "versions" else v[0]
print("|".join([e["verdict"], first("libraries"), first("versions"), first("symbols").split("@")[0]]))'
}

# runtime_entry PKG CHECK-ARGS...: "verdict|reason" of the runtime entry of `pt2scope check`
# (its stderr in $T/err)
runtime_entry() {
    "$CLI" check "$@" --json 2>"$T/err" | python3 -c '
import json, sys
e = [x for x in json.load(sys.stdin)["compatibility"] if x["kind"] == "runtime"][0]
print(e["verdict"] + "|" + e["reason"])'
}

# agree NAME LIB ROOT: the loader in ROOT and pt2scope --sysroot ROOT say the same
agree() {
    local name=$1 lib=$2 root=$3 want out v mlib mver msym
    if [ "$CAN_CHROOT" != 1 ]; then skip=$((skip + 1)); echo "SKIP runtime $name: chroot needs root"; return; fi
    cp "$lib" "$root/models/$(basename "$lib")"
    out=$("$T/dlroot" "$root" "/models/$(basename "$lib")" 2>&1)
    pkg "$lib" "$T/$name.pt2"
    IFS='|' read -r v mlib mver msym < <(verdict "$T/$name.pt2" "$root")
    if [ "$out" = ok ]; then want=compatible; else want=incompatible; fi
    if [ "$v" != "$want" ]; then
        bad "$name: loader says '$out', pt2scope --sysroot says $v ($(cat "$T/err"))"; return
    fi
    case "$out" in
    ok) ;;
    *"cannot open shared object file"*)
        [[ "$out" == "$mlib: cannot open shared object file"* ]] ||
            { bad "$name: loader '$out', pt2scope names library '$mlib'"; return; } ;;
    *"version \`"*)
        [[ "$out" == *"version \`$mver' not found"* ]] ||
            { bad "$name: loader '$out', pt2scope names version '$mver'"; return; } ;;
    *"undefined symbol: "*)
        [[ "$out" == *"undefined symbol: $msym"* ]] ||
            { bad "$name: loader '$out', pt2scope names symbol '$msym'"; return; } ;;
    *) bad "$name: unexpected loader answer '$out'"; return ;;
    esac
    ok
}

S=$T/src
mkdir -p "$S"
cd "$S" || exit 1

# ---- versioned provider: PROV_2.0 missing from the root's copy ----------------------------
printf 'PROV_1.0 { global: prov_a; local: *; };\nPROV_2.0 { global: prov_b; } PROV_1.0;\n' >new.map
printf 'PROV_1.0 { global: prov_a; local: *; };\n' >old.map
printf 'int prov_a(void){return 1;}\nint prov_b(void){return 2;}\n' >prov.c
printf 'int prov_a(void){return 1;}\n' >prov_old.c
mkdir -p new old
$CC -shared -fPIC -Wl,-soname,libprov.so.1 -Wl,--version-script=new.map -o new/libprov.so.1 prov.c
$CC -shared -fPIC -Wl,-soname,libprov.so.1 -Wl,--version-script=old.map -o old/libprov.so.1 prov_old.c
printf 'extern int prov_b(void);\nint use_b(void){return prov_b();}\n' >m_ver.c
$CC -shared -fPIC -o m_ver.so m_ver.c new/libprov.so.1
mkroot "$T/r_new"; cp new/libprov.so.1 "$T/r_new/usr/lib/x86_64-linux-gnu/"
mkroot "$T/r_old"; cp old/libprov.so.1 "$T/r_old/usr/lib/x86_64-linux-gnu/"
agree version_present m_ver.so "$T/r_new"
agree version_missing m_ver.so "$T/r_old"
# ---- a load scope of many libraries, as a real libtorch image has (Debian's pulls in ~90) --
# The sysroot reader's library table grew past 16 entries by realloc while each entry's reader
# pointed into it: a crash, or another library's symbols read ("144 missing" in a root torch
# itself loaded the package from). 40 libraries, each needing the next; the model calls the last.
mkroot "$T/r_wide"; mkroot "$T/r_wide_gap"
for i in $(seq 0 39); do
    if [ "$i" -lt 39 ]; then dep="./libw$((i + 1)).so"; printf 'extern int w%d(void);
int w%d(void){return w%d() + 1;}
' $((i + 1)) "$i" $((i + 1)) >w$i.c
    else dep=""; printf 'int w39(void){return 1;}
int w39_last(void){return 2;}
' >w$i.c; fi
    echo "$dep" >w$i.dep
done
for i in $(seq 39 -1 0); do
    # shellcheck disable=SC2046 # the one dependency, or none
    $CC -shared -fPIC -Wl,-soname,libw$i.so -o libw$i.so w$i.c $(cat w$i.dep)
done
printf 'extern int w0(void);
extern int w39_last(void);
int use_w(void){return w0() + w39_last();}
' >m_wide.c
$CC -shared -fPIC -o m_wide.so m_wide.c ./libw0.so ./libw39.so
cp libw*.so "$T/r_wide/usr/lib/x86_64-linux-gnu/"
cp libw*.so "$T/r_wide_gap/usr/lib/x86_64-linux-gnu/"
printf 'int w39(void){return 1;}
' >w39_gap.c # the last library of the chain lacks w39_last
$CC -shared -fPIC -Wl,-soname,libw39.so -o "$T/r_wide_gap/usr/lib/x86_64-linux-gnu/libw39.so" w39_gap.c
agree wide_scope m_wide.so "$T/r_wide"
agree wide_scope_missing_symbol m_wide.so "$T/r_wide_gap"
# ---- an executable stack: glibc 2.41 and newer refuse to dlopen it ----------------------
# The oracle is trixie's own loader (glibc 2.41, fetched by service/tools/oracle.sh into the
# cache, never installed), run by name with its own libraries; this machine's older loader
# makes the stack executable and loads all three.
ORACLE=$(bash "$REPO/service/tools/oracle.sh" dir 2>/dev/null)
LD241=$(ls "$ORACLE"/glibc-2.41/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 2>/dev/null)
printf '#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { void *h = dlopen(v[1], RTLD_NOW);\n  puts(h ? "ok" : dlerror()); return h == NULL; }\n' >dlo.c
$CC -o dlo dlo.c -ldl
printf 'int stack_f(void){return 3;}\n' >stack.c
$CC -shared -fPIC -Wl,-z,noexecstack -o st_none.so stack.c
$CC -shared -fPIC -Wl,-z,execstack -o st_exec.so stack.c
cp st_none.so st_implied.so # its PT_GNU_STACK made PT_NULL: x86's default, executable
python3 - st_implied.so <<'EOF2'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 0x20)
ent, n = struct.unpack_from("<HH", b, 0x36)
for i in range(n):
    if struct.unpack_from("<I", b, phoff + i * ent)[0] == 0x6474e551:
        struct.pack_into("<I", b, phoff + i * ent, 0)
open(sys.argv[1], "wb").write(b)
EOF2
for lib in st_none st_exec st_implied; do
    pkg $lib.so "$T/$lib.pt2"
    got=$(runtime_entry "$T/$lib.pt2" --runtime debian13)
    old=$("$CLI" check "$T/$lib.pt2" --runtime debian12 --json 2>>"$T/err" | python3 -c '
import json, sys
print([x for x in json.load(sys.stdin)["compatibility"] if x["kind"] == "runtime"][0]["verdict"])')
    [ "$(./dlo "$PWD/$lib.so")" = ok ] && [ "$old" != incompatible ] ||
        bad "$lib: glibc $(ldd --version | head -1 | awk '{print $NF}') loads it; pt2scope on debian12 says '$old'"
    case $lib:$got in
    st_none:compatible* | st_exec:"incompatible|"*"PT_GNU_STACK has PF_X"*"Debian 13 has glibc 2.41" | \
    st_implied:"incompatible|"*"no PT_GNU_STACK"*"Debian 13 has glibc 2.41") ok ;;
    *) bad "$lib: pt2scope on debian13 says '$got' ($(cat "$T/err"))" ;;
    esac
    if [ -z "$LD241" ]; then
        if [ "${PT2SCOPE_REQUIRE_CORPUS:-}" = 1 ]; then
            bad "$lib: no glibc 2.41 loader in $ORACLE (service/tools/oracle.sh fetch)"
        else
            skip=$((skip + 1)); echo "SKIP runtime $lib: no glibc 2.41 loader (oracle.sh fetch)"
        fi
        continue
    fi
    out=$("$LD241" --library-path "${LD241%/*}" ./dlo "$PWD/$lib.so" 2>&1)
    case $lib:$out in
    st_none:ok | st_exec:*"cannot enable executable stack"* | st_implied:*"cannot enable executable stack"*) ok ;;
    *) bad "$lib: glibc 2.41's loader says '$out'" ;;
    esac
done

# An executable where the library should be: glibc's dlopen refuses both kinds (this machine's
# loader is the oracle), so every runtime verdict is "incompatible" with the loader's reason.
printf 'int main(void){return 0;}\nint exe_f(void){return 1;}\n' >exe.c
$CC -fPIE -pie -o exe_pie.so exe.c
$CC -fno-PIE -no-pie -o exe_exec.so exe.c
# one that also needs a library no root has: the loader refuses the executable before it
# looks for its libraries, and so must the first reason
printf 'int gone_f(void){return 5;}\n' >gone.c
$CC -shared -fPIC -Wl,-soname,libgone.so -o libgone.so gone.c
printf 'extern int gone_f(void);\nint main(void){return gone_f();}\n' >exe_dep.c
$CC -fno-PIE -no-pie -o exe_dep.so exe_dep.c ./libgone.so
HOST_GLIBC=$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)
for e in exe_pie exe_exec exe_dep; do
    pkg $e.so "$T/$e.pt2"
    out=$(./dlo "$PWD/$e.so" 2>&1)
    case $e:$out in
    exe_pie:*"cannot dynamically load position-independent executable" | \
    exe_exec:*"cannot dynamically load executable" | exe_dep:*"cannot dynamically load executable") ok ;;
    *) bad "$e: the loader says '$out'" ;;
    esac
    got=$("$CLI" inspect "$T/$e.pt2" | sed -n 's/^CPU  *//p')
    case $e in exe_pie) want="x86-64 Linux position-independent executable" ;; *) want="x86-64 Linux executable" ;; esac
    [ "$got" = "$want" ] && ok || bad "$e: described as '$got'"
    L=data/aotinductor/model/cabc.wrapper.so
    for how in "--runtime debian12" "--sysroot $T/r_new"; do
        # shellcheck disable=SC2086
        got=$(runtime_entry "$T/$e.pt2" $how)
        case $how in --runtime*) where="Debian 12" g=2.36 ;; *) where="the sysroot $T/r_new" g=$HOST_GLIBC ;; esac
        case $e in
        exe_pie) want="incompatible|$L is a position-independent executable (DF_1_PIE), which glibc 2.30 and newer refuse to dlopen; $where has glibc $g" ;;
        *) want="incompatible|$L is an executable (ET_EXEC), which the dynamic loader cannot dlopen" ;;
        esac
        [ "$got" = "$want" ] && ok || bad "$e $how: pt2scope says '$got' ($(cat "$T/err"))"
    done
done

# An executable stack in a library the package loads, not in the package's own: glibc 2.41's
# dlopen refuses every object it maps with one, so a sysroot with glibc 2.41 is
# "incompatible" naming that library; this machine's glibc (older) loads it.
printf 'int xs_f(void){return 4;}\n' >xs.c
$CC -shared -fPIC -Wl,-z,execstack -Wl,-soname,libxs.so -o libxs.so xs.c
printf 'extern int xs_f(void);\nint use_xs(void){return xs_f();}\n' >m_xs.c
$CC -shared -fPIC -Wl,-z,noexecstack -o m_xs.so m_xs.c -L. -lxs
mkroot "$T/r_xs"
cp libxs.so "$T/r_xs/usr/lib/x86_64-linux-gnu/"
agree execstack_provider_old_glibc m_xs.so "$T/r_xs"
if [ -n "$LD241" ]; then
    out=$("$LD241" --library-path "${LD241%/*}:$PWD" ./dlo "$PWD/m_xs.so" 2>&1)
    case $out in *"libxs.so: cannot enable executable stack"*) ok ;; *) bad "execstack provider: glibc 2.41's loader says '$out'" ;; esac
    mkroot "$T/r_xs241"
    cp libxs.so "$T/r_xs241/usr/lib/x86_64-linux-gnu/"
    cp "${LD241%/*}/libc.so.6" "${LD241%/*}/ld-linux-x86-64.so.2" "$T/r_xs241/usr/lib/x86_64-linux-gnu/"
    pkg m_xs.so "$T/xs.pt2"
    got=$(runtime_entry "$T/xs.pt2" --sysroot "$T/r_xs241")
    want="incompatible|libxs.so (loaded with data/aotinductor/model/cabc.wrapper.so) asks for an executable stack (its PT_GNU_STACK has PF_X), which glibc 2.41 and newer refuse to dlopen; the sysroot $T/r_xs241 has glibc 2.41"
    [ "$got" = "$want" ] && ok || bad "execstack provider, glibc 2.41 sysroot: pt2scope says '$got' ($(cat "$T/err"))"
elif [ "${PT2SCOPE_REQUIRE_CORPUS:-}" = 1 ]; then
    bad "execstack provider: no glibc 2.41 loader in $ORACLE (service/tools/oracle.sh fetch)"
else
    skip=$((skip + 1)); echo "SKIP runtime execstack provider: no glibc 2.41 loader (oracle.sh fetch)"
fi

# A provider whose section headers are gone (the loader reads only the program headers, so
# it still loads; pt2scope reads needs and symbols through the sections): its symbols and
# its own needs (here PROV_2.0, which r_old lacks) cannot be read, so the answer is
# "unverified" naming it, never "compatible" (r_old: the loader fails) nor "undefined
# symbol" (r_new: the loader binds it).
printf 'extern int prov_b(void);\nint needy_f(void){return prov_b();}\n' >needy.c
$CC -shared -fPIC -Wl,-soname,libneedy.so -o libneedy.so needy.c new/libprov.so.1
printf 'extern int needy_f(void);\nint use_needy(void){return needy_f();}\n' >m_needy.c
$CC -shared -fPIC -o m_needy.so m_needy.c -L. -lneedy
python3 - libneedy.so <<'EOF2'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", b, 0x28, 0)      # e_shoff
struct.pack_into("<HH", b, 0x3c, 0, 0)  # e_shnum, e_shstrndx
open(sys.argv[1], "wb").write(b)
EOF2
pkg m_needy.so "$T/needy.pt2"
for r in r_new r_old; do
    cp libneedy.so "$T/$r/usr/lib/x86_64-linux-gnu/"
    if [ "$CAN_CHROOT" = 1 ]; then
        cp m_needy.so "$T/$r/models/"
        out=$("$T/dlroot" "$T/$r" /models/m_needy.so 2>&1)
        case $r:$out in
        r_new:ok | r_old:*"version \`PROV_2.0' not found"*) ok ;;
        *) bad "stripped provider in $r: the loader says '$out'" ;;
        esac
    fi
    got=$(runtime_entry "$T/needy.pt2" --sysroot "$T/$r")
    case $got in
    "unverified|the sysroot $T/$r was read in part: "*libneedy.so*) ok ;;
    *) bad "stripped provider in $r: pt2scope says '$got' ($(cat "$T/err"))" ;;
    esac
done
rm -f "$T/r_new/usr/lib/x86_64-linux-gnu/libneedy.so" "$T/r_old/usr/lib/x86_64-linux-gnu/libneedy.so"
# A provider whose .dynstr is larger than pt2scope holds in memory (8 MiB; a release
# libtorch_cpu.so's C++ names run to many MiB): 900 names of 10,000 bytes. Its own needs
# (PROV_2.0, which r_old lacks) and its symbols are read name by name, so the answer is the
# loader's in both roots, not "unverified".
python3 - <<'EOF2'
with open("big.s", "w") as f:
    f.write("\t.text\n\t.globl big_new\n\t.type big_new,@function\nbig_new:\n\tjmp prov_b@PLT\n")
    for i in range(900):
        n = "b%05d_" % i + "x" * 9993
        f.write("\t.globl %s\n\t.type %s,@function\n%s:\n\tret\n" % (n, n, n))
    f.write('\t.section .note.GNU-stack,"",@progbits\n')
EOF2
printf 'BIG_1.0 { global: b*; local: *; };\nBIG_2.0 { global: big_new; } BIG_1.0;\n' >big.map
$CC -shared -fPIC -Wl,-soname,libbig.so.1 -Wl,--version-script=big.map -o libbig.so.1 big.s new/libprov.so.1
printf 'extern int big_new(void);\nint use_big(void){return big_new();}\n' >m_big.c
$CC -shared -fPIC -o m_big.so m_big.c ./libbig.so.1
size=$(readelf -SW libbig.so.1 | sed -n 's/.*\.dynstr *STRTAB *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p')
[ -n "$size" ] && [ $((16#$size)) -gt 9000000 ] && ok || bad "libbig.so.1's .dynstr is 0x${size:-?} bytes, not over 9 MB"
for r in r_new r_old; do cp libbig.so.1 "$T/$r/usr/lib/x86_64-linux-gnu/"; done
agree big_strtab_present m_big.so "$T/r_new"
agree big_strtab_missing m_big.so "$T/r_old"
rm -f "$T/r_new/usr/lib/x86_64-linux-gnu/libbig.so.1" "$T/r_old/usr/lib/x86_64-linux-gnu/libbig.so.1"
# A provider whose version definitions are read in part (vd_next of PROV_1.0 points far past
# the section, so PROV_2.0 is never reached): a need of PROV_2.0, and prov_b@PROV_2.0, cannot
# be judged missing from what was read, so the answer is "unverified", never "incompatible".
mkroot "$T/r_part"
python3 - new/libprov.so.1 "$T/r_part/usr/lib/x86_64-linux-gnu/libprov.so.1" <<'EOF2'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
for i in range(shnum):
    if struct.unpack_from("<I", b, shoff + i * shentsize + 4)[0] == 0x6ffffffd:  # verdef
        off, = struct.unpack_from("<Q", b, shoff + i * shentsize + 24)
        off += struct.unpack_from("<I", b, off + 16)[0]  # the base entry's vd_next: PROV_1.0
        struct.pack_into("<I", b, off + 16, 0x7ffffff0)
open(sys.argv[2], "wb").write(b)
EOF2
pkg m_ver.so "$T/ver_part.pt2"
got=$(runtime_entry "$T/ver_part.pt2" --sysroot "$T/r_part")
case $got in
"unverified|"*"PROV_2.0 is not among the version definitions of libprov.so.1 that could be read: "*".gnu.version_d entry at "*" runs past the section"*) ok ;;
*) bad "provider read in part: pt2scope says '$got' ($(cat "$T/err"))" ;;
esac
# a weak version need (VER_FLG_WEAK on PROV_2.0, its one symbol weak): the loader only warns,
# so it loads. GNU ld does not set the flag itself; it is set here as a linker that does would.
printf 'extern int prov_b(void) __attribute__((weak));\nint use_b(void){return prov_b ? prov_b() : 0;}\n' >m_weakver.c
$CC -shared -fPIC -o m_weakver.so m_weakver.c -Wl,--no-as-needed new/libprov.so.1
# weaken LIB: VER_FLG_WEAK on every version LIB needs from its first needed file
weaken() {
    python3 - "$1" <<'EOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
for i in range(shnum):
    sh = shoff + i * shentsize
    if struct.unpack_from("<I", b, sh + 4)[0] == 0x6ffffffe:  # .gnu.version_r: its first file
        off, = struct.unpack_from("<Q", b, sh + 24)
        cnt, = struct.unpack_from("<H", b, off + 2)
        aux = off + struct.unpack_from("<I", b, off + 8)[0]
        for _ in range(cnt):
            flags, = struct.unpack_from("<H", b, aux + 4)
            struct.pack_into("<H", b, aux + 4, flags | 2)
            aux += struct.unpack_from("<I", b, aux + 12)[0]
open(p, "wb").write(b)
EOF
}
weaken m_weakver.so
if readelf -V m_weakver.so | grep -q 'PROV_2.0  Flags: WEAK'; then
    agree weak_version_need m_weakver.so "$T/r_old"
    pkg m_weakver.so "$T/weakver.pt2"
    got=$("$CLI" inspect "$T/weakver.pt2" --json | python3 -c '
import json, sys
v = [x for x in json.load(sys.stdin)["runtime"]["libraries"][0]["needs"]["versions"] if x["version"] == "PROV_2.0"]
print(v[0]["weak"])')
    [ "$got" = True ] && ok || bad "weak version marked: '$got'"
else
    bad "no weak version need in m_weakver.so (readelf -V)"
fi
# A need of PROV_2.0 made weak (the loader only warns), its symbol still strong, against the
# provider read in part above: prov_b@PROV_2.0 is then looked up, and not finding it among
# what was read is not "undefined symbol"
$CC -shared -fPIC -o m_weakneed.so m_ver.c -Wl,--no-as-needed new/libprov.so.1
weaken m_weakneed.so
readelf -V m_weakneed.so | grep -q 'PROV_2.0  Flags: WEAK' || bad "no weak version need in m_weakneed.so"
pkg m_weakneed.so "$T/weakneed_part.pt2"
got=$(runtime_entry "$T/weakneed_part.pt2" --sysroot "$T/r_part")
case $got in
"unverified|"*"prov_b@PROV_2.0 is not found; the version definitions of libprov.so.1 were read in part"*) ok ;;
*) bad "weak need, provider read in part: pt2scope says '$got' ($(cat "$T/err"))" ;;
esac

# a malformed version section: read in part, said, and never "compatible"
python3 - m_ver.so "$T/m_bad.so" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
for i in range(shnum):
    typ, = struct.unpack_from("<I", b, shoff + i * shentsize + 4)
    if typ == 0x6ffffffe:  # SHT_GNU_verneed: vn_next of the first entry far past the section
        off, = struct.unpack_from("<Q", b, shoff + i * shentsize + 24)
        struct.pack_into("<I", b, off + 12, 0x7ffffff0)
open(sys.argv[2], "wb").write(b)
EOF
pkg "$T/m_bad.so" "$T/bad.pt2"
got=$("$CLI" check "$T/bad.pt2" --runtime debian12 2>&1 | grep '^debian12:' | cut -d: -f2)
[ "$got" = " unverified" ] && ok || bad "malformed verneed: '$got'"
got=$("$CLI" inspect "$T/bad.pt2" --json | python3 -c 'import json,sys; print([w for w in json.load(sys.stdin)["warnings"] if "read in part" in w][0])')
case "$got" in "runtime needs of data/aotinductor/model/cabc.wrapper.so read in part: data/aotinductor/model/cabc.wrapper.so: .gnu.version_r entry at"*) ok ;; *) bad "malformed warning: '$got'" ;; esac

# ---- GLIBC_2.99: a need no glibc defines --------------------------------------------------
printf 'GLIBC_2.99 { global: fake_glibc_fn; local: *; };\n' >glibc.map
printf 'int fake_glibc_fn(void){return 0;}\n' >fakec.c
mkdir -p fakec
$CC -shared -fPIC -nostdlib -Wl,-soname,libc.so.6 -Wl,--version-script=glibc.map -o fakec/libc.so.6 fakec.c
printf 'extern int fake_glibc_fn(void);\nint g(void){return fake_glibc_fn();}\n' >m_glibc.c
$CC -shared -fPIC -nostdlib -o m_glibc.so m_glibc.c fakec/libc.so.6
mkroot "$T/r_sys"
agree glibc_2_99 m_glibc.so "$T/r_sys"
pkg m_glibc.so "$T/glibc.pt2"
got=$("$CLI" check "$T/glibc.pt2" --runtime debian12 2>&1 | grep '^debian12:')
want="debian12: incompatible: needs GLIBC_2.99 from libc.so.6 (1 symbol); Debian 12 has glibc 2.36"
[ "$got" = "$want" ] && ok || bad "glibc base: '$got'"
got=$("$CLI" inspect "$T/glibc.pt2" | grep -A2 '^Library' | sed 's/ *$//')
want="Library     data/aotinductor/model/cabc.wrapper.so (elf x86_64, the one torch loads)
  needs     glibc 2.99
  links     libc.so.6"
[ "$got" = "$want" ] && ok || bad "human report: '$got'"

# ---- stub libtorch: shims present, one missing, C++ imports ------------------------------
CXXSYM=_ZN5torch12aot_inductor31tensor_handle_to_tensor_pointerEP16AtenTensorOpaque
cat >torch_full.c <<EOF
int aoti_torch_empty_strided(void){return 0;}
int aoti_torch_new_tensor_handle(void){return 0;}
void cxx_fn(void) __asm__("$CXXSYM");
void cxx_fn(void){}
EOF
printf 'int aoti_torch_empty_strided(void){return 0;}\n' >torch_part.c
mkdir -p tfull tpart
$CC -shared -fPIC -Wl,-soname,libtorch_cpu.so -o tfull/libtorch_cpu.so torch_full.c
$CC -shared -fPIC -Wl,-soname,libtorch_cpu.so -o tpart/libtorch_cpu.so torch_part.c
cat >m_shim.c <<'EOF'
extern int aoti_torch_empty_strided(void);
extern int aoti_torch_new_tensor_handle(void);
int run(void){return aoti_torch_empty_strided() + aoti_torch_new_tensor_handle();}
EOF
$CC -shared -fPIC -o m_shim.so m_shim.c tfull/libtorch_cpu.so
cat >m_cxx.c <<EOF
extern void cxx_fn(void) __asm__("$CXXSYM");
void run(void){cxx_fn();}
EOF
$CC -shared -fPIC -o m_cxx.so m_cxx.c tfull/libtorch_cpu.so
mkroot "$T/r_tfull"; cp tfull/libtorch_cpu.so "$T/r_tfull/usr/lib/x86_64-linux-gnu/"
mkroot "$T/r_tpart"; cp tpart/libtorch_cpu.so "$T/r_tpart/usr/lib/x86_64-linux-gnu/"
agree shims_present m_shim.so "$T/r_tfull"
agree shim_missing m_shim.so "$T/r_tpart"
agree cxx_present m_cxx.so "$T/r_tfull"
agree cxx_missing m_cxx.so "$T/r_tpart"
# --libtorch judges against that build's exports exactly; the table alone cannot
pkg m_shim.so "$T/shim.pt2"
# (check without targets: this machine's runtime, its torch shims judged by that libtorch)
got=$("$CLI" check "$T/shim.pt2" --libtorch tpart/libtorch_cpu.so 2>&1 | grep '^local:' | cut -d'(' -f1)
want="local: incompatible: undefined symbol: aoti_torch_new_tensor_handle "
[ "$got" = "$want" ] && ok || bad "libtorch stub: '$got'"
got=$("$CLI" check "$T/shim.pt2" --target H100 --libtorch tfull 2>&1 | grep '^libtorch:' | cut -d: -f3)
[ "$got" = " compatible" ] && ok || bad "libtorch stub folder: '$got'"
pkg m_cxx.so "$T/cxx.pt2"
got=$("$CLI" check "$T/cxx.pt2" --runtime debian12,torch=2.9 2>&1 | grep '^debian12,torch=2.9:')
want="debian12,torch=2.9: unverified: imports 1 libtorch C++ symbol ($CXXSYM): it loads only on the exact libtorch build it was compiled against"
[ "$got" = "$want" ] && ok || bad "cxx table: '$got'"

# ---- a weak import may stay unresolved ----------------------------------------------------
printf 'extern int maybe_fn(void) __attribute__((weak));\nint f(void){return maybe_fn ? maybe_fn() : 0;}\n' >m_weak.c
$CC -shared -fPIC -o m_weak.so m_weak.c
agree weak_import m_weak.so "$T/r_sys"

# ---- a prefixed shim (AOTI_SHIM_SYMBOL_PREFIX): provided by its runtime, not torch -------
printf 'int slim_aoti_torch_empty_strided(void){return 0;}\n' >slim.c
$CC -shared -fPIC -Wl,-soname,libslim.so -o libslim.so slim.c
printf 'extern int slim_aoti_torch_empty_strided(void);\nint f(void){return slim_aoti_torch_empty_strided();}\n' >m_pref.c
$CC -shared -fPIC -o m_pref.so m_pref.c ./libslim.so
mkroot "$T/r_slim"; cp libslim.so "$T/r_slim/usr/lib/x86_64-linux-gnu/"
agree prefixed_shim m_pref.so "$T/r_slim"
pkg m_pref.so "$T/pref.pt2"
got=$("$CLI" inspect "$T/pref.pt2" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["runtime"]
print(d["libraries"][0]["imports"]["prefixed_shims"], d["needs"]["torch"]["prefix"])')
[ "$got" = "1 slim_" ] && ok || bad "prefixed counts: '$got'"

# ---- $ORIGIN: a provider finds its own dependency beside it; then without it ------------
printf 'int inner(void){return 7;}\n' >inner.c
printf 'extern int inner(void);\nint outer(void){return inner();}\n' >outer.c
printf 'extern int outer(void);\nint f(void){return outer();}\n' >m_origin.c
mkdir -p o/opt/x/lib o/opt/x/inner
$CC -shared -fPIC -Wl,-soname,libinner.so -o o/opt/x/inner/libinner.so inner.c
$CC -shared -fPIC -Wl,-soname,libouter.so -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../inner' \
    -o o/opt/x/lib/libouter.so outer.c o/opt/x/inner/libinner.so
$CC -shared -fPIC -Wl,--enable-new-dtags -Wl,-rpath,/opt/x/lib -o m_origin.so m_origin.c \
    o/opt/x/lib/libouter.so
mkroot "$T/r_origin"; cp -r o/opt "$T/r_origin/"
agree origin_runpath m_origin.so "$T/r_origin"
rm "$T/r_origin/opt/x/inner/libinner.so"
agree origin_missing m_origin.so "$T/r_origin"

# ---- a library the root does not have -----------------------------------------------------
printf 'int gone(void){return 0;}\n' >gone.c
$CC -shared -fPIC -Wl,-soname,libgone.so.3 -o libgone.so.3 gone.c
printf 'extern int gone(void);\nint f(void){return gone();}\n' >m_gone.c
$CC -shared -fPIC -o m_gone.so m_gone.c ./libgone.so.3
agree missing_library m_gone.so "$T/r_sys"

# ---- what a GPU node cannot load at all: C++ sources only, a Windows DLL -----------------
python3 - "$T/cpp_only.pt2" "$T/win.pt2" <<'EOF'
import struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:  # aot_inductor.package_cpp_only: sources, no .so
    z.writestr("m/archive_format", "pt2")
    z.writestr("m/data/aotinductor/model/model.wrapper.cpp", "// generated\n")
    z.writestr("m/data/aotinductor/model/CMakeLists.txt", "add_library(aoti_model SHARED model.wrapper.cpp)\n")
    z.writestr("m/data/aotinductor/model/model.wrapper_metadata.json", '{"AOTI_DEVICE_KEY": "cuda", "AOTI_COMPUTE_CAPABILITY": "90"}')
# a PE32+ DLL for x64: DOS header (e_lfanew 0x40), "PE\0\0", COFF (Machine 0x8664, DLL), magic 0x20b
pe = bytearray(0x40) + b"PE\0\0" + struct.pack("<HHIIIHH", 0x8664, 0, 0, 0, 0, 0xf0, 0x2022) + struct.pack("<H", 0x20b) + bytes(0xee)
pe[0:2] = b"MZ"; struct.pack_into("<I", pe, 0x3c, 0x40)
with zipfile.ZipFile(sys.argv[2], "w") as z:
    z.writestr("m/archive_format", "pt2")
    z.writestr("m/data/aotinductor/model/model.wrapper.pyd", bytes(pe))
    z.writestr("m/data/aotinductor/model/model.wrapper_metadata.json", '{"AOTI_DEVICE_KEY": "cuda", "AOTI_COMPUTE_CAPABILITY": "90", "AOTI_PLATFORM": "win32"}')
EOF
got=$("$CLI" check "$T/cpp_only.pt2" --target H100 2>&1 | head -1)
want="H100: incompatible: model 'model' ships C++ sources and no compiled library (aot_inductor.package_cpp_only): torch's loader compiles it when it loads it, so it loads only where a C++ compiler and torch's headers are installed"
[ "$got" = "$want" ] && ok || bad "cpp-only: '$got'"
got=$("$CLI" check "$T/win.pt2" --target H100 2>&1 | head -1)
want="H100: incompatible: the model library data/aotinductor/model/model.wrapper.pyd is a Windows x86_64 DLL; a node with NVIDIA H100 runs Linux on amd64 or arm64"
[ "$got" = "$want" ] && ok || bad "windows: '$got'"
# on a Windows node the .pyd is the library that loads: the GPU code decides
got=$("$CLI" check "$T/win.pt2" --target H100 --driver 13.0 --platform windows/amd64 2>&1 | head -1)
[ "$got" = "H100: compatible: sm_90 cubin runs on NVIDIA H100; no kernel binaries found, so sm_90 is taken from AOTI_COMPUTE_CAPABILITY" ] && ok || bad "windows platform: '$got'"
got=$("$CLI" inspect "$T/win.pt2" --json | python3 -c 'import json,sys; h=json.load(sys.stdin)["arch"]["hosts"][0]; print(h["format"], h["machine"], h["description"])')
[ "$got" = "pe x86_64 PE32+ DLL, x86_64" ] && ok || bad "pe host: '$got'"
got=$("$CLI" inspect "$T/win.pt2" --json | python3 -c 'import json,sys; l=json.load(sys.stdin)["runtime"]["libraries"][0]; print(l["format"], json.dumps(l["pe"], sort_keys=True), l["needs"]["libraries"], l["partial"])')
[ "$got" = 'pe {"delay_loaded": [], "dll": true, "dll_characteristics": [], "subsystem": null} [] None' ] && ok || bad "pe library: '$got'"
# the mingw-w64 DLL make builds for the tests (tests/fixtures/src/win_model.c): DLLs, flags, torch floor
WIN_DLL=$(dirname "$CLI")/fixtures/win/win_model.pyd
if [ -f "$WIN_DLL" ]; then
    python3 - "$T/mingw.pt2" "$WIN_DLL" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("m/archive_format", "pt2")
    z.write(sys.argv[2], "m/data/aotinductor/model/model.wrapper.pyd")
    z.writestr("m/data/aotinductor/model/model.wrapper_metadata.json", '{"AOTI_DEVICE_KEY": "cpu", "AOTI_PLATFORM": "win32"}')
EOF
    got=$("$CLI" inspect "$T/mingw.pt2" --json | python3 -c 'import json,sys; l=json.load(sys.stdin)["runtime"]["libraries"][0]; print(json.dumps(l["pe"], sort_keys=True), l["needs"]["libraries"], l["needs"]["torch"]["min"], l["imports"]["shims"], l["imports"]["total"])')
    [ "$got" = '{"delay_loaded": [], "dll": true, "dll_characteristics": ["high-entropy-va", "dynamic-base", "nx-compat"], "subsystem": "windows-gui"} '"['KERNEL32.dll', 'torch_cpu.dll'] 2.10 3 7" ] && ok || bad "mingw library: '$got'"
    got=$("$CLI" check "$T/mingw.pt2" --runtime torch=2.9 2>&1 | grep '^torch=2.9:')
    [ "$got" = "torch=2.9: incompatible: needs torch 2.10 or newer (it imports aoti_torch_aten_full); the runtime torch=2.9 has torch 2.9" ] && ok || bad "mingw torch floor: '$got'"
    got=$("$CLI" check "$T/mingw.pt2" --runtime debian12 2>&1 | grep '^debian12:')
    [ "$got" = "debian12: incompatible: data/aotinductor/model/model.wrapper.pyd is a Windows PE library; Debian 12 runs Linux" ] && ok || bad "mingw on Linux: '$got'"
elif command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    bad "$WIN_DLL missing (make test-shell builds it)"
else
    skip=$((skip + 1))
fi
# The same source linked by lld-link with torch_cpu.dll delay-loaded (Makefile: win_delay.pt2),
# against the oracle llvm-readobj --coff-imports: its Import and DelayImport DLLs in order, its
# symbols; the delay-loaded shims still set the torch floor (running needs them).
WIN_DELAY=$(dirname "$CLI")/fixtures/win/win_delay.pt2
if [ -f "$WIN_DELAY" ] && ! command -v llvm-readobj >/dev/null 2>&1; then
    bad "llvm-readobj missing: the oracle for $WIN_DELAY (make deps installs llvm)"
elif [ -f "$WIN_DELAY" ]; then
    want=$(llvm-readobj --coff-imports "${WIN_DELAY%.pt2}.pyd" | python3 -c '
import re, sys
t = sys.stdin.read()
imp = re.findall(r"^Import \{\n  Name: (\S+)", t, re.M)
dly = re.findall(r"^DelayImport \{\n  Name: (\S+)", t, re.M)
print(imp + dly, dly, len(re.findall(r"Symbol:", t)))')
    got=$("$CLI" inspect "$WIN_DELAY" --json | python3 -c 'import json,sys; l=json.load(sys.stdin)["runtime"]["libraries"][0]; print(l["needs"]["libraries"], l["pe"]["delay_loaded"], l["imports"]["total"])')
    [ "$got" = "$want" ] && [ "$want" = "['KERNEL32.dll', 'torch_cpu.dll'] ['torch_cpu.dll'] 7" ] &&
        ok || bad "delay-load library: '$got', llvm-readobj: '$want'"
    got=$("$CLI" inspect "$WIN_DELAY" | grep -E '^  (links|delayed) ')
    [ "$got" = "  links     KERNEL32.dll, torch_cpu.dll
  delayed   torch_cpu.dll (loaded at the first call into each)" ] && ok || bad "delay-load text: '$got'"
    got=$("$CLI" check "$WIN_DELAY" --runtime torch=2.9 2>&1 | grep '^torch=2.9:')
    [ "$got" = "torch=2.9: incompatible: needs torch 2.10 or newer (it imports aoti_torch_aten_full); the runtime torch=2.9 has torch 2.9" ] && ok || bad "delay-load torch floor: '$got'"
elif command -v lld-link >/dev/null 2>&1 && command -v llvm-dlltool >/dev/null 2>&1 &&
    command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    bad "$WIN_DELAY missing (make test-shell builds it)"
else
    skip=$((skip + 1))
fi

# ---- the corpus: every Linux x86_64 library, with a stub torch that provides its imports ---
CORPUS=$SHARED/corpus/pt2
ncorpus=0
for p in "$CORPUS"/*.pt2; do
    [ -f "$p" ] || continue
    x=$T/corpus/$(basename "$p" .pt2)
    mkdir -p "$x" && (cd "$x" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' "$p")
    while IFS= read -r so; do
        readelf -h "$so" 2>/dev/null | grep -q 'Advanced Micro Devices X86-64' || continue
        readelf -h "$so" | grep -q 'DYN (Shared object file)' || continue
        ncorpus=$((ncorpus + 1))
        n=$(basename "$p" .pt2)
        # every non-weak unversioned import the root's system libraries do not define
        sysdefs=$(for l in "$T/r_sys/usr/lib/x86_64-linux-gnu/"*.so*; do nm -D --defined-only "$l"; done |
                  awk '{print $NF}' | sed 's/@.*//' | sort -u)
        nm -D --undefined-only "$so" | awk '$1 == "U" && $2 !~ /@/ {print $2}' | sort -u >"$x/imports"
        comm -23 "$x/imports" <(printf '%s\n' "$sysdefs") >"$x/stub.txt"
        newest=$(grep -m1 -x 'aoti_torch_new_tensor_handle' "$x/stub.txt" || grep -m1 '^aoti_torch_' "$x/stub.txt")
        for variant in full part; do
            : >"$x/stub_$variant.c"
            i=0
            while IFS= read -r s; do
                [ "$variant" = part ] && [ "$s" = "$newest" ] && continue
                printf 'void f%d(void) __asm__("%s");\nvoid f%d(void){}\n' $i "$s" $i >>"$x/stub_$variant.c"
                i=$((i + 1))
            done <"$x/stub.txt"
            mkroot "$x/root_$variant"
            $CC -shared -fPIC -Wl,-soname,libtorch_cpu.so -o "$x/root_$variant/usr/lib/x86_64-linux-gnu/libtorch_cpu.so" "$x/stub_$variant.c"
            printf 'void torch_stub_marker(void){}\n' >"$x/empty.c"
            $CC -shared -fPIC -Wl,-soname,libtorch.so -o "$x/root_$variant/usr/lib/x86_64-linux-gnu/libtorch.so" "$x/empty.c"
        done
        # the package itself is judged, so its own layout counts
        cp "$p" "$T/$n.pt2"
        agree_pkg() { # like agree, with the corpus package as the package
            local name=$1 root=$2 out v mlib mver msym want
            if [ "$CAN_CHROOT" != 1 ]; then skip=$((skip + 1)); echo "SKIP runtime $name: chroot needs root"; return; fi
            cp "$so" "$root/models/lib.so"
            out=$("$T/dlroot" "$root" /models/lib.so 2>&1)
            IFS='|' read -r v mlib mver msym < <(verdict "$T/$n.pt2" "$root")
            if [ "$out" = ok ]; then want=compatible; else want=incompatible; fi
            [ "$v" = "$want" ] || { bad "$name: loader '$out', pt2scope $v"; return; }
            case "$out" in
            ok) ok ;;
            *"undefined symbol: "*) [[ "$out" == *"undefined symbol: $msym"* ]] && ok ||
                bad "$name: loader '$out', pt2scope names '$msym'" ;;
            *) bad "$name: unexpected loader answer '$out'" ;;
            esac
        }
        agree_pkg "corpus $n (stub torch with its imports)" "$x/root_full"
        [ -n "$newest" ] && agree_pkg "corpus $n (stub torch without $newest)" "$x/root_part"
    done < <(find "$x" -name '*.so' -type f)
done
if [ "$ncorpus" = 0 ]; then
    if [ "${PT2SCOPE_REQUIRE_CORPUS:-}" = 1 ]; then bad "no Linux library in $CORPUS"; else
        skip=$((skip + 1)); echo "SKIP runtime corpus: shared corpus absent"; fi
fi

echo "runtime: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
