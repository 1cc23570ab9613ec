#!/usr/bin/env bash
# The layering is real: the CLI compiles against the public header only, the
# daemon against the public header and its own; a private library header
# included from either does not compile. Daemon modules include each other
# without cycles. (The library's internal headers are service/lib/*.h.)
set -u
cd "$(dirname "$0")/../.." || exit 1
MAKE_BIN=$(command -v make)
TMP=$(mktemp -d /tmp/pt2scope-layering-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

cflags() { env -u MAKEFLAGS -u MAKELEVEL "$MAKE_BIN" -s --no-print-directory "print-cflags-$1"; }
compiles() { # compiles LAYER HEADER...: 0 when a file including them compiles with LAYER's flags
    local layer=$1 h
    shift
    : >"$TMP/probe.c"
    for h in "$@"; do echo "#include \"$h\"" >>"$TMP/probe.c"; done
    echo "int probe(void); int probe(void) { return 0; }" >>"$TMP/probe.c"
    # shellcheck disable=SC2046
    $(cflags "$layer") -c "$TMP/probe.c" -o "$TMP/probe.o" 2>"$TMP/err"
}

compiles cli pt2scope.h && ok || bad "cli: the public header alone does not compile"
for h in pt2_cuda.h pt2_k8s.h pt2_error.h pt2_rd.h pt2_binary.h pt2_compat.h; do
    if compiles cli pt2scope.h "$h"; then bad "cli: private $h compiles"; else
        grep -q "$h: No such file" "$TMP/err" && ok || bad "cli: $h failed otherwise: $(head -1 "$TMP/err")"
    fi
done
compiles daemon pt2scope.h pt2d_reply.h pt2d_server.h && ok || bad "daemon: its own headers do not compile"
for h in pt2_cuda.h pt2_k8s.h pt2_utf8.h pt2_inspect.h; do
    if compiles daemon pt2scope.h "$h"; then bad "daemon: private $h compiles"; else ok; fi
done
compiles lib pt2_inspect.h && ok || bad "lib: its own headers do not compile"
# The bindings' entry points (service/abi) see the public header and the remote layer only.
compiles abi pt2scope.h pt2_remote.h && ok || bad "abi: the public and remote headers do not compile"
for h in pt2_cuda.h pt2_inspect.h; do
    if compiles abi pt2scope.h "$h"; then bad "abi: private $h compiles"; else ok; fi
done

# No file of the CLI or the daemon names a library header, even one it could not find.
libh=$(cd service/lib && ls ./*.h | sed 's|^\./||' | tr '\n' '|' | sed 's/|$//')
hits=$(grep -nE "#include \"($libh)\"" service/cli/* service/daemon/* 2>/dev/null)
[ -z "$hits" ] && ok || bad "private includes: $hits"

# Daemon modules: the include graph (module -> modules it includes) has no cycle.
cycles=$(python3 - <<'PY'
import glob, os, re
edges = {}
for f in glob.glob("service/daemon/*.[ch]"):
    m = os.path.splitext(os.path.basename(f))[0]
    for inc in re.findall(r'#include "(pt2d_[a-z_]+)\.h"', open(f).read()):
        if inc != m:
            edges.setdefault(m, set()).add(inc)
seen, stack, found = set(), [], []
def dfs(m):
    if m in stack:
        found.append(" -> ".join(stack[stack.index(m):] + [m])); return
    if m in seen: return
    seen.add(m); stack.append(m)
    for n in sorted(edges.get(m, ())): dfs(n)
    stack.pop()
for m in sorted(edges): dfs(m)
print("\n".join(found))
PY
)
[ -z "$cycles" ] && ok || bad "include cycles among daemon modules: $cycles"

echo "layering: $pass passed, $fail failed"
[ "$fail" = 0 ]
