#!/usr/bin/env bash
# Pipeline outputs of `check`, `validate` and `scan`:
#   - --format junit: one <testsuite> per package, one <testcase> per target (per node with
#     --nodes, "inputs" for validate, "read" for a scan without targets), each failure's type,
#     message and text exactly the entry's code (else verdict), reason and advice as --json
#     gives them; an unreadable package an <error> of its problem type; names with XML's
#     special characters, control bytes and invalid UTF-8 still well-formed XML;
#   - --format sarif: one result per incompatible verdict (per violation for validate), its
#     ruleId, ruleIndex, message and artifact from the same entry, unreadable packages as
#     notifications, the exit status in the invocation (tests/sarif/run.sh validates the
#     schema);
#   - scan's summary line, counted against the items of scan --json;
#   - the exit codes, one test each for check, validate and scan: 0 all compatible, 1 any
#     incompatible, 2 usage or no package found, 3 any package unreadable (3 wins over 1),
#     as --help says.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}/pt2scope
F=tests/fixtures
T=$(mktemp -d /tmp/pt2scope-formats-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# expect RC CMD...: run, compare the exit code; stdout in $T/out, stderr in $T/err
expect() {
    local want=$1 rc
    shift
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: exit $rc (want $want): $*"; head -3 "$T/err"; fi
}
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}

# junit_vs_json JUNIT JSON LABEL: "same N" when the JUnit report says exactly what the
# --json document (check's {"compatibility"} or {"nodes"}, or scan's array) says
junit_vs_json() {
    python3 - "$@" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
doc = json.load(open(sys.argv[2]))
label = sys.argv[3]
if isinstance(doc, list):   # scan --json: items, with verdicts per target
    packages = [(i["name"], i) for i in doc]
else:
    packages = [(sys.argv[4], doc)]
suites = root.findall("testsuite")
assert root.tag == "testsuites", root.tag
assert len(suites) == len(packages), (len(suites), len(packages))
n = 0
for suite, (name, it) in zip(suites, packages):
    assert suite.get("name") == name, (suite.get("name"), name)
    cases = suite.findall("testcase")
    if "type" in it:   # a problem item: one error
        slug = it["type"].rsplit("/", 1)[1]
        err = cases[0].find("error")
        assert (len(cases), cases[0].get("name"), err.get("type"), err.get("message"), err.text) == \
            (1, "read", slug, it["detail"], it["title"] + ": " + it["detail"]), ET.tostring(cases[0])
        assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "1")
        n += 1
        continue
    entries = it.get("compatibility", it.get("nodes", it.get("verdicts")))
    if entries is None:   # scan without targets
        assert [(c.get("name"), list(c)) for c in cases] == [("read", [])], ET.tostring(suite)
        n += 1
        continue
    bad = [e for e in entries if e["verdict"] == "incompatible"]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == \
        (str(len(entries)), str(len(bad)), "0"), ET.tostring(suite)[:300]
    for c, e in zip(cases, entries):
        assert c.get("classname") == name and c.get("name") == e[label], (c.attrib, e[label])
        f = c.find("failure")
        if e["verdict"] == "incompatible":
            body = e["reason"] + ("\nadvice: " + e["advice"] if e.get("advice") else "")
            if "advice" in e or "verdicts" not in it:   # scan's items keep the reason only
                assert f.text == body, (f.text, body)
            assert (f.get("type"), f.get("message")) == (e.get("code") or e["verdict"], e["reason"]), f.attrib
        else:
            assert f is None and c.find("system-out").text.startswith(e["verdict"] + ": " + e["reason"]), ET.tostring(c)
        n += 1
print("same", n)
PY
}

# 1. check: every target a test case, as check --json has them.
for args in "--target 8.0 --target H100" "--target B200 --target H100 --driver 12.4" "--target gfx90a"; do
    # shellcheck disable=SC2086
    expect 1 "$B" check $F/cuda_sm90a_v8.pt2 $args --format junit
    cp "$T/out" "$T/c.xml"
    # shellcheck disable=SC2086
    "$B" check $F/cuda_sm90a_v8.pt2 $args --json >"$T/c.json"
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["compatibility"]))' "$T/c.json")
    same "junit check $args" "$(junit_vs_json "$T/c.xml" "$T/c.json" target $F/cuda_sm90a_v8.pt2 2>&1)" "same $n"
done
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target 8.0 --format junit
same "junit check: the document" "$(sed -n '1,4p;$p' "$T/out")" "$(printf '%s\n' \
    '<?xml version="1.0" encoding="UTF-8"?>' '<testsuites name="pt2scope check">' \
    "  <testsuite name=\"$F/cuda_sm90a_v8.pt2\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">" \
    "    <testcase classname=\"$F/cuda_sm90a_v8.pt2\" name=\"8.0\">" '</testsuites>' | sed '3s/failures="0"/failures="1"/')"
# README's example is this output.
same "junit: README's example" "$("$B" check $F/cuda_sm90a_v8.pt2 --target 8.0 --format junit)" \
    "$(sed -n '/^\$ build\/pt2scope check tests\/fixtures\/cuda_sm90a_v8.pt2 --target 8.0 --format junit$/,/^```$/p' README.md | sed '1d;$d')"
# --nodes: one case per node, named by the node
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json --format junit
cp "$T/out" "$T/n.xml"
"$B" check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json --json >"$T/n.json"
same "junit check --nodes" "$(junit_vs_json "$T/n.xml" "$T/n.json" name $F/cuda_sm90a_v8.pt2 2>&1)" "same 3"
# An unreadable package: one error of its problem type, exit 3.
expect 3 "$B" check $F/broken_not_zip.pt2 --target H100 --format junit
same "junit unreadable: stderr" "$(cat "$T/err")" \
    "pt2scope: $F/broken_not_zip.pt2: not a zip archive (no end-of-central-directory record)"
same "junit unreadable" "$(python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
e = s.find("testcase/error")
print(s.get("errors"), s.find("testcase").get("name"), e.get("type"), e.get("message"))' "$T/out")" \
    "1 read not-a-zip not a zip archive (no end-of-central-directory record)"

# 2. validate: one case, "inputs", failing with every violation.
expect 1 "$B" validate $F/cuda_check_functions_v8.pt2 --input arg0_1=1,10 --input arg1_1=3,99 \
    --input arg2_1=4 --input arg3_1=8,6 --input arg4_1=8 --format junit
cp "$T/out" "$T/v.xml"
"$B" validate $F/cuda_check_functions_v8.pt2 --input arg0_1=1,10 --input arg1_1=3,99 \
    --input arg2_1=4 --input arg3_1=8,6 --input arg4_1=8 --json >"$T/v.json"
same "junit validate" "$(python3 - "$T/v.xml" "$T/v.json" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
d = json.load(open(sys.argv[2]))
text = lambda v: v if isinstance(v, str) else v["message"]
rule = lambda v: "invalid" if isinstance(v, str) else v.get("code") or "invalid"
c = s.find("testcase")
f = c.find("failure")
want = (c.get("name"), f.get("type"), f.get("message"), f.text.split("\n"), s.get("failures"))
got = ("inputs", rule(d["errors"][0]), text(d["errors"][0]), [text(v) for v in d["errors"]], "1")
print("same" if want == got else "%s != %s" % (want, got), len(d["errors"]))
PY
)" "same 2"
expect 0 "$B" validate $F/cpu_names_only_v7.pt2 --input arg3_1=8,32 --input arg4_1=1 --format junit
same "junit validate: valid, with its note" "$(python3 -c '
import sys, xml.etree.ElementTree as ET
c = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase")
print(c.get("name"), c.find("failure"), c.find("system-out").text)' "$T/out")" \
    "inputs None note: the package records input names but not their shapes: only the names were checked"

# 3. scan: one suite per item of scan --json, problems included.
for args in "" "--target B200 --target 8.0" "--target gfx90a --target H100 --driver 12.4"; do
    # shellcheck disable=SC2086
    "$B" scan $F $args --format junit >"$T/s.xml" 2>"$T/s.err"
    # shellcheck disable=SC2086
    "$B" scan $F $args --json >"$T/s.json" 2>/dev/null
    same "junit scan $args" "$(junit_vs_json "$T/s.xml" "$T/s.json" target 2>&1 | cut -d' ' -f1)" "same"
    same "junit scan $args: nothing on stderr" "$(cat "$T/s.err")" ""
done

# 4. XML's special characters, control bytes and invalid UTF-8 in a name.
mkdir -p "$T/odd"
cp $F/cuda_sm90a_v8.pt2 "$T/odd/a&b<c>\"d'e"$'\x01\x1b'$'\xff'.pt2
expect 1 "$B" scan "$T/odd" --target 8.0 --format junit
same "junit: an odd name" "$(python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
print(s.get("name").rsplit("/", 1)[1], s.find("testcase").get("name"))' "$T/out")" "a&b<c>\"d'e???.pt2 8.0"

# 5. SARIF: results, rules and notifications from the same entries as --json.
sarif_vs_json() { # sarif_vs_json SARIF JSON: "same N" when the results are the incompatible entries
    python3 - "$@" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
doc = json.load(open(sys.argv[2]))
items = doc if isinstance(doc, list) else [dict(doc, name=sys.argv[3])]
want, notes = [], []
for it in items:
    if "type" in it:
        notes.append((it["type"].rsplit("/", 1)[1], it["name"] + ": " + it["detail"], it["name"]))
        continue
    for e in it.get("compatibility", it.get("verdicts", [])):
        if e["verdict"] == "incompatible":
            want.append((e.get("code") or e["verdict"], e["target"], e["reason"], it["name"]))
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
got = []
for r in run["results"]:
    assert rules[r["ruleIndex"]] == r["ruleId"] and r["level"] == "error", r
    assert r["message"]["text"].startswith(r["properties"]["target"] + ": incompatible: " + r["properties"]["reason"]), r
    got.append((r["ruleId"], r["properties"]["target"], r["properties"]["reason"],
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]))
gotn = [(n["descriptor"]["id"], n["message"]["text"], n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for n in run["invocations"][0].get("toolExecutionNotifications", [])]
assert sorted(set(rules)) == sorted(set(g[0] for g in got)), rules
print("same %d %d" % (len(got), len(gotn)) if (got, gotn) == (want, notes) else "got %s %s\nwant %s %s" % (got, gotn, want, notes))
PY
}
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target 8.0 --target H100 --target B200 --format sarif
cp "$T/out" "$T/c.sarif"
"$B" check $F/cuda_sm90a_v8.pt2 --target 8.0 --target H100 --target B200 --json >"$T/c.json"
same "sarif check" "$(sarif_vs_json "$T/c.sarif" "$T/c.json" $F/cuda_sm90a_v8.pt2 2>&1)" "same 2 0"
same "sarif check: advice in the message" "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
print(r["message"]["text"].split("\n")[1] == "advice: " + r["properties"]["advice"])' "$T/c.sarif")" True
expect 0 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --format sarif
same "sarif check: compatible, no result" "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
print(r["results"], r["tool"]["driver"]["rules"], r["invocations"])' "$T/out")" \
    "[] [] [{'executionSuccessful': True, 'exitCode': 0}]"
for args in "--target B200 --target 8.0" "--target gfx90a --target H100 --driver 12.4"; do
    # shellcheck disable=SC2086
    "$B" scan $F $args --format sarif >"$T/s.sarif" 2>/dev/null
    # shellcheck disable=SC2086
    "$B" scan $F $args --json >"$T/s.json" 2>/dev/null
    same "sarif scan $args" "$(sarif_vs_json "$T/s.sarif" "$T/s.json" 2>&1 | cut -d' ' -f1)" "same"
done
same "sarif scan: a notification per unreadable fixture, exit 3" "$(python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]
print(len(i["toolExecutionNotifications"]), i["exitCode"], i["executionSuccessful"])' "$T/s.sarif")" \
    "$(python3 -c 'import json,sys; print(sum("type" in i for i in json.load(open(sys.argv[1]))))' "$T/s.json") 3 False"
expect 1 "$B" validate $F/cuda_check_functions_v8.pt2 --input arg0_1=1,10 --input arg1_1=3,99 \
    --input arg2_1=4 --input arg3_1=8,6 --input arg4_1=8 --format sarif
same "sarif validate: a result per violation" "$(python3 - "$T/out" "$T/v.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
d = json.load(open(sys.argv[2]))
text = lambda v: v if isinstance(v, str) else v["message"]
rule = lambda v: "invalid" if isinstance(v, str) else v.get("code") or "invalid"
got = [(r["ruleId"], r["message"]["text"]) for r in run["results"]]
print(got == [(rule(v), text(v)) for v in d["errors"]], len(got))
PY
)" "True 2"
# A path's URI: absolute paths as file://, bytes outside the URI syntax %-encoded.
mkdir -p "$T/u v"
cp $F/cuda_sm90a_v8.pt2 "$T/u v/100%#1.pt2"
expect 1 "$B" check "$T/u v/100%#1.pt2" --target 8.0 --format sarif
same "sarif: the artifact URI" "$(python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])' "$T/out")" \
    "file://${T// /%20}/u%20v/100%25%231.pt2"

# 6. scan's summary line: the items of scan --json, counted.
for args in "" "--target B200" "--target H100 --target 8.0 --driver 12.4" "--runtime debian12" "--runtime rhel8"; do
    # shellcheck disable=SC2086
    "$B" scan $F $args >"$T/s.txt" 2>/dev/null
    # shellcheck disable=SC2086
    "$B" scan $F $args --json 2>/dev/null >"$T/s.json"
    same "summary $args" "$(tail -1 "$T/s.txt")" "$(python3 - "$T/s.json" "$args" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))
bad = sum("type" in i for i in items)
v = [i["overall"]["verdict"] for i in items if "overall" in i]
n = len(items)
head = "%d package%s: " % (n, "" if n == 1 else "s")
if not sys.argv[2]:
    print(head + "%d readable, %d unreadable" % (n - bad, bad))
else:
    unv = v.count("unverified")
    print(head + "%d compatible, %s%d incompatible, %d unreadable" % (
        len(v) - unv - v.count("incompatible"), "%d unverified, " % unv if unv else "",
        v.count("incompatible"), bad))
PY
)"
done

# 7. Exit codes: one test per code and command.
expect 0 "$B" check $F/cuda_sm90a_v8.pt2 --target H100
expect 0 "$B" validate $F/cuda_sm90a_v8.pt2 --input image=8,3,512,512 --input scale=8
expect 0 "$B" scan $F/cuda_sm90a_v8.pt2 $F/cpu_x86_64.pt2 --target H100
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target A100
expect 1 "$B" validate $F/cuda_sm90a_v8.pt2 --input image=8,4,512,512 --input scale=8
expect 1 "$B" scan $F/cuda_sm90a_v8.pt2 $F/cpu_x86_64.pt2 --target A100
# 2: usage errors, and no package found
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --format xml
same "usage: an unknown format" "$(cat "$T/err")" "pt2scope: usage: --format takes text, json, junit or sarif"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --json --format junit
same "usage: --json and --format junit" "$(cat "$T/err")" "pt2scope: usage: --json and --format junit/sarif exclude each other"
expect 2 "$B" inspect $F/cuda_sm90a_v8.pt2 --format sarif
same "usage: inspect takes no --format" "$(cat "$T/err")" "pt2scope: usage: inspect does not take --format"
expect 2 "$B" check $F/no_such_package.pt2 --target H100 --format junit
same "no package: nothing on stdout" "$(cat "$T/out")" ""
expect 2 "$B" validate $F/no_such_package.pt2 --input image=8
mkdir -p "$T/empty"
expect 2 "$B" scan "$T/empty" --format sarif
same "scan: nothing found, an empty report" "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
print(r["results"], r["invocations"][0]["exitCode"])' "$T/out")" "[] 2"
expect 2 "$B" scan "$T/empty" --target H100
same "scan: nothing found, said" "$(cat "$T/err")" "pt2scope: scan: no packages (*.pt2) found"
# 3: a package that cannot be read, and 3 wins over 1
expect 3 "$B" check $F/broken_truncated.pt2 --target H100
expect 3 "$B" check $F/broken_bad_aoti_json.pt2 --target H100 --json
same "check --json unreadable: the problem" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])' <"$T/out")" 422
expect 3 "$B" validate $F/broken_not_zip.pt2 --input image=8 --format sarif
same "validate unreadable: a notification" "$(python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]
print(i["toolExecutionNotifications"][0]["descriptor"]["id"], i["exitCode"])' "$T/out")" "not-a-zip 3"
expect 3 "$B" scan $F/broken_not_zip.pt2 $F/cpu_x86_64.pt2
expect 3 "$B" scan $F/cuda_sm90a_v8.pt2 $F/broken_not_zip.pt2 --target A100
same "3 wins over 1: both counted" "$(tail -1 "$T/out")" "2 packages: 0 compatible, 1 incompatible, 1 unreadable"
# check-kernel the same: a file with no kernel in it cannot be read as one, a missing one is none
expect 3 "$B" check-kernel $F/k8s/nodes.json --target H100
same "check-kernel: not a kernel" "$(cat "$T/err")" "pt2scope: $F/k8s/nodes.json: no GPU kernels recognised"
expect 2 "$B" check-kernel $F/no_such.cubin --target H100
# --help documents them
expect 0 "$B" --help
same "--help: exit status" "$(grep -A1 '^exit status' "$T/out")" "$(printf '%s\n' \
    'exit status: 0 ok/compatible/valid, 1 incompatible/invalid, 2 usage error or no package' \
    '             found, 3 a package could not be read (3 wins over 1)')"

echo "formats: $pass passed, $fail failed"
[ "$fail" = 0 ]
