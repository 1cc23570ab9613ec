#!/usr/bin/env bash
# Real torch output is the oracle: tests/fixtures/torch/ holds packages that Debian's torch
# 2.14.1 and 2.6.0 compiled and wrote themselves (make.sh there: AOTInductor, package_aoti, package_pt2,
# torch.export.save; C++-only, weights as pickles, two models, named stems, AVX2), and
# facts.json, what torch said of each when it loaded it back: the model names its loader
# finds, each runner's metadata and constants, whether it ran, every input's dtype and dims
# from the exported program, and which input shapes the compiled model took or refused when
# run with its input checks on. pt2scope must say the same:
#  - package.kind, the AOTI models and exported programs by name;
#  - each model's AOTI metadata (the runner's get_metadata()) and constants count;
#  - each input's dtype, rank and fixed dims; a dynamic dim's bounds are the range the
#    compiled model took (the exported program's own where nothing was compiled);
#  - `validate --model M` accepts exactly the shapes torch's runner accepted;
#  - outputs: their count, and dtype and fixed dims where the package records them;
#  - the torch floor is at most the torch that loaded it; `check --libtorch` on Debian's
#    libtorch of that release (service/tools/oracle.sh) says compatible;
#  - the C++-only package, which torch's loader compiles at load ("Failed to compile cpp
#    file." without g++), is needs-compile; the custom operator's, which it refuses in a
#    process without the operator, leaves custom_ops unverified and names it;
#  - where make.sh's chroots are kept (PT2SCOPE_TORCH_ROOT, PT2SCOPE_TORCH26_ROOT; skipped
#    elsewhere): `check --sysroot` on the root torch loaded each package in says compatible,
#    and on the other release's root, whose torch refused it, incompatible (naming the
#    library its loader did not find).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
CLI=$PWD/$B/pt2scope
DIR=tests/fixtures/torch
ORACLE=$(bash service/tools/oracle.sh dir)
# each torch release: Debian's libtorch of it (oracle.sh) and the root make.sh loaded it in
ROOT214=${PT2SCOPE_TORCH_ROOT:-/var/tmp/pt2scope-torch-root}
ROOT26=${PT2SCOPE_TORCH26_ROOT:-/var/tmp/pt2scope-torch26-root}

python3 - "$CLI" "$DIR" "$ORACLE" "$ROOT214" "$ROOT26" "${PT2SCOPE_REQUIRE_CORPUS:-}" <<'EOF'
import glob, json, os, re, subprocess, sys

cli, d, oracle, root214, root26, require = sys.argv[1:7]


def release(v):
    return ".".join(v.split("+")[0].split(".")[:2])


def libtorch_of(v):
    hits = sorted(glob.glob("%s/%s/usr/lib/*/libtorch_cpu.so.*.*" % (oracle, release(v))))
    return hits[0] if hits else ""


def root_of(v):
    r = {"2.14": root214, "2.6": root26}.get(release(v), "")
    return r if r and os.path.isdir(r + "/usr/lib/python3/dist-packages/torch") else ""
facts = json.load(open(d + "/facts.json"))
passed = failed = skipped = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def skip(what):
    global skipped
    skipped += 1
    print("SKIP torch_real " + what)


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def version_tuple(v):
    return tuple(int(x) for x in v.split("+")[0].split(".")[:2])


def checked_refusal(p):
    """The wrapper's own input check refused the shapes (not a kernel failing on them)."""
    return not p["accepted"] and (p["error"].startswith("input_handles[") or "expected size" in p["error"])


def accepted_range(probes, sym):
    """The lowest and highest value of `sym` the runner took, from its probes."""
    vals = []
    for p in probes:
        if p["case"].startswith("symbol %s = " % sym):
            vals.append((int(p["case"].rsplit(" ", 1)[1]), p["accepted"]))
    took = [v for v, a in vals if a]
    return (min(took), max(took)) if took else (None, None)


for name, f in sorted(facts["packages"].items()):
    path = "%s/%s" % (d, name)
    r = run("inspect", path, "--json")
    ok(r.returncode == 0, "%s: inspect exits %d: %s" % (name, r.returncode, r.stderr.strip()))
    if r.returncode != 0:
        continue
    doc = json.loads(r.stdout)
    loaded = f.get("loaded")
    aoti = sorted(loaded["aoti_models"]) if loaded else []
    eps = sorted(loaded["exported_programs"]) if loaded else (["model"] if f.get("program_loads") else [])
    kind = "aoti+exported-program" if aoti and eps else "aoti" if aoti else "exported-program"
    ok(doc["package"]["kind"] == kind, "%s: kind %s, torch loaded %s" % (name, doc["package"]["kind"], kind))
    got = sorted(m["name"] for m in doc["models"])
    ok(got == aoti, "%s: models %s, torch's loader found %s" % (name, got, aoti))
    got = sorted(e["name"] for e in doc["metadata"]["exported_programs"])
    ok(got == eps, "%s: exported programs %s, torch's loader found %s" % (name, got, eps))

    models = {m["name"]: m for m in doc["models"]}
    programs = {e["name"]: e for e in doc["metadata"]["exported_programs"]}
    for mname, mf in sorted(f["models"].items()):
        runner = loaded["runners"].get(mname) if loaded else None
        m = models.get(mname)
        if runner is not None and m is not None:
            ok(m["aoti_metadata"] == runner["metadata"],
               "%s/%s: AOTI metadata %s, the runner's %s" % (name, mname, m["aoti_metadata"], runner["metadata"]))
            ok(m["size"]["constants"] == len(runner["constant_fqns"]),
               "%s/%s: %s constants, the runner's %d" % (name, mname, m["size"]["constants"], len(runner["constant_fqns"])))
        specs = m if m is not None else programs.get(mname)
        if specs is None:
            ok(False, "%s/%s: no model or program of that name" % (name, mname))
            continue
        ins = specs["inputs"]
        ok(len(ins) == len(mf["inputs"]), "%s/%s: %d inputs, torch %d" % (name, mname, len(ins), len(mf["inputs"])))
        if "keywords" in mf:  # passed by keyword: named as forward() names them
            ok([t["name"] for t in ins] == mf["keywords"],
               "%s/%s: inputs %s, forward() takes %s" % (name, mname, [t["name"] for t in ins], mf["keywords"]))
        # torch 2.6's wrapper checks nothing (its runner took every shape it could compute
        # with, and failed inside a kernel call on the others) and records input names only:
        # the package does not say the specs, so pt2scope must not either (a warning says
        # so), and there is no refusal to compare validate with
        if runner is not None and not any(checked_refusal(p) for p in runner["probes"]):
            for i, t in enumerate(ins):
                ok(t["dtype"] is None and t["ndim"] is None,
                   "%s/%s input %d: the package records no spec, pt2scope says %s %s" % (name, mname, i, t["dtype"], t["shape"]))
            ok(any("records input names but no dtypes or shapes for model '%s'" % mname in w for w in doc["warnings"]),
               "%s/%s: no warning that the wrapper records names only: %s" % (name, mname, doc["warnings"]))
            v = run("validate", path, "--json", *(["--model", mname] if len(f["models"]) > 1 else []),
                    *sum((["--input", "%s=%s" % (t["name"], ",".join(str(x) for x in sh))]
                          for t, sh in zip(ins, runner["probes"][0]["shapes"])), []))
            ok(v.returncode == 0 and "only the names were checked" in v.stdout,
               "%s/%s: validate of the example shapes: exit %d %s" % (name, mname, v.returncode, v.stdout[:300]))
            continue
        for i, (t, tf) in enumerate(zip(ins, mf["inputs"])):
            what = "%s/%s input %d (%s)" % (name, mname, i, t["name"])
            ok(t["dtype"] == tf["dtype"], "%s: dtype %s, torch %s" % (what, t["dtype"], tf["dtype"]))
            ok(t["ndim"] == len(tf["shape"]), "%s: rank %s, torch %d" % (what, t["ndim"], len(tf["shape"])))
            dyn = {x["axis"]: x for x in t["dynamic_dims"]}
            for ax, df in enumerate(tf["shape"]):
                if isinstance(df, int):
                    ok(t["shape"][ax] == df, "%s axis %d: %s, torch fixes %d" % (what, ax, t["shape"][ax], df))
                    continue
                x = dyn.get(ax)
                ok(x is not None, "%s axis %d: not dynamic, torch's is" % (what, ax))
                if x is None:
                    continue
                if df.get("derived"):  # 2*s77: named as torch names it (its range is its symbol's)
                    ok(x["symbol"] == df["symbol"], "%s axis %d: %s, torch %s" % (what, ax, x["symbol"], df["symbol"]))
                    continue
                if runner is not None:  # the range the compiled model took
                    want = list(accepted_range(runner["probes"], df["symbol"]))
                else:
                    want = [df["min"], df["max"]]
                ok([x["min"], x["max"]] == want, "%s axis %d: bounds %s, torch %s" % (what, ax, [x["min"], x["max"]], want))
        outs = specs["outputs"]
        ok(len(outs) == len(mf["outputs"]), "%s/%s: %d outputs, torch %d" % (name, mname, len(outs), len(mf["outputs"])))
        for i, (t, tf) in enumerate(zip(outs, mf["outputs"])):
            if t["dtype"] is None:  # the wrapper records names only (a warning says so)
                continue
            ok(t["dtype"] == tf["dtype"], "%s/%s output %d: dtype %s, torch %s" % (name, mname, i, t["dtype"], tf["dtype"]))
            fixed = [s if isinstance(s, int) else None for s in tf["shape"]]
            got = [s if isinstance(s, int) else None for s in t["shape"]]
            ok(got == fixed, "%s/%s output %d: dims %s, torch %s" % (name, mname, i, t["shape"], tf["shape"]))
        # every shape the compiled model was given: valid exactly where it ran
        for p in (runner or {}).get("probes", []):
            args = ["validate", path, "--json"]
            if len(f["models"]) > 1:
                args += ["--model", mname]
            for t, shape in zip(ins, p["shapes"]):
                args += ["--input", "%s=%s" % (t["name"], ",".join(str(v) for v in shape))]
            v = run(*args)
            ok(v.returncode == (0 if p["accepted"] else 1),
               "%s/%s %s %s: torch %s (%s), pt2scope validate exits %d %s" % (
                   name, mname, p["case"], p["shapes"], "took it" if p["accepted"] else "refused it",
                   p["error"], v.returncode, v.stdout.strip()[:300] + v.stderr.strip()))

    if loaded and doc["runtime"]["libraries"] and f.get("load_without_compiler") is None:
        floor = doc["runtime"]["needs"]["torch"]["min"]
        ok(floor is not None and version_tuple(floor) <= version_tuple(f["torch"]),
           "%s: torch floor %s, loaded by torch %s" % (name, floor, f["torch"]))
        libtorch, root = libtorch_of(f["torch"]), root_of(f["torch"])
        if libtorch:
            # with a target, this machine is not judged: the runtime entry is the libtorch alone
            c = run("check", path, "--target", "H100", "--libtorch", libtorch, "--json")
            e = [x for x in json.loads(c.stdout)["compatibility"] if x["kind"] == "runtime"] if c.stdout else []
            v = [x["verdict"] for x in e if x["target"].startswith("libtorch")]
            ok(v == ["compatible"], "%s: --libtorch %s says %s" % (name, libtorch, v or c.stderr.strip()))
        elif require == "1":
            ok(False, "%s: no libtorch %s in the oracle cache (service/tools/oracle.sh fetch)" % (name, release(f["torch"])))
        else:
            skip("%s --libtorch: libtorch %s not fetched (service/tools/oracle.sh fetch)" % (name, release(f["torch"])))
        if root:
            c = run("check", path, "--sysroot", root, "--json")
            e = [x for x in json.loads(c.stdout)["compatibility"] if x["kind"] == "runtime"] if c.stdout else []
            v = [(x["verdict"], x["reason"]) for x in e]
            ok(len(v) == 1 and v[0][0] == "compatible", "%s: torch loaded it in %s; --sysroot says %s %s" % (name, root, v, c.stderr.strip()))
        else:
            skip("%s --sysroot: no torch %s root (tests/fixtures/torch/make.sh)" % (name, release(f["torch"])))

    other = f.get("load_by_other_release")
    if other is not None:  # the other release's torch, in its root, refused it
        r = root_of(other["torch"])
        if r:
            c = run("check", path, "--sysroot", r, "--json")
            e = [x for x in json.loads(c.stdout)["compatibility"] if x["kind"] == "runtime"] if c.stdout else []
            ok(not other["loaded"] and len(e) == 1 and e[0]["verdict"] == "incompatible",
               "%s: torch %s in %s says '%s'; --sysroot says %s" % (name, other["torch"], r, other["error"], e))
            lib = re.match(r"Error in dlopen: (\S+): cannot open shared object file", other["error"])
            if lib and e:
                ok(e[0]["missing"]["libraries"][:1] == [lib.group(1)],
                   "%s: the loader misses %s; pt2scope names %s" % (name, lib.group(1), e[0]["missing"]["libraries"]))
        else:
            skip("%s --sysroot: no torch %s root (tests/fixtures/torch/make.sh)" % (name, release(other["torch"])))

    no_op = f.get("load_without_op")
    if no_op is not None:  # torch's loader refused it in a process without the operator
        op = re.search(r"Could not find schema for ([\w:.]+?)\.?(?: |$)", no_op["error"]).group(1)
        ok(not no_op["loaded"] and doc["runtime"]["needs"]["custom_ops"] == [op],
           "%s: torch says '%s'; runtime.needs.custom_ops is %s" % (name, no_op["error"], doc["runtime"]["needs"]["custom_ops"]))
        c = run("check", path, "--target", "H100", "--runtime", "debian13", "--json")
        e = [x for x in json.loads(c.stdout)["compatibility"] if x["kind"] == "runtime"] if c.stdout else []
        ok(len(e) == 1 and "custom_ops" in e[0]["unverified"] and op in e[0]["reason"],
           "%s: the runtime entry leaves %s open: %s" % (name, op, e))

    nc = f.get("load_without_compiler")
    if nc is not None:  # torch's loader compiled it with g++, and failed without
        ok(loaded is not None and not nc["loaded"], "%s: facts: loads with g++ and not without" % name)
        c = run("check", path, "--json")
        codes = [x["code"] for x in json.loads(c.stdout)["compatibility"] if x["kind"] == "cpu"]
        ok(codes == ["needs-compile"], "%s: torch compiles it at load (%s without g++); the CPU verdict is %s" % (name, nc["error"], codes))

    for m in doc["models"]:
        want = loaded["runners"][m["name"]]["metadata"].get("AOTI_CPU_ISA") if loaded else None
        if want and want != "INVALID_VEC_ISA":
            ok(m["cpu_isa"] is not None and m["cpu_isa"]["isa"] == want,
               "%s/%s: CPU ISA %s, torch built for %s" % (name, m["name"], m["cpu_isa"], want))

print("torch_real: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed else 0)
EOF
