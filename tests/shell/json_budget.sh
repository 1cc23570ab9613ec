#!/usr/bin/env bash
# The per-inspection JSON budget (service/lib/pt2_budget.h) seen from the
# daemon: uploads of 16 KB whose models/*.json inflate to 8 MiB of
# {"a":[0,0,...]} (4 M values, over 300 MiB of cJSON tree before the budget)
# are answered 200 with the budget's warning, eight at once on eight workers
# keep the peak RSS (VmHWM) within 2 x the 32 MiB budget of the idle RSS, and
# the RSS comes back within 10 % of idle afterwards. Sixteen such programs in
# one package: one scan, fifteen refusals unread. Overlapping zip entries
# are a 422 truncated naming the offsets.
. "$(dirname "$0")/lib/harness.bash" budget
atmost() { # atmost WHAT ACTUAL LIMIT (KiB)
    if [ "$2" -le "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1: ${2} KiB (want <= ${3} KiB)"; fi
}

# hostile.pt2: one 8 MiB program; sixteen.pt2: sixteen of them.
python3 - "$TMP" <<'PY'
import sys, zipfile
doc = b'{"a":[' + b"0," * ((8 << 20) // 2 - 5) + b"0]}"  # 8 MiB less one byte
for name, n in (("hostile", 1), ("sixteen", 16)):
    with zipfile.ZipFile("%s/%s.pt2" % (sys.argv[1], name), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive_format", "pt2")
        for i in range(n):
            z.writestr("models/m%02d.json" % i, doc)
PY
same "hostile upload is small" "$(($(stat -c %s "$TMP/hostile.pt2") < 20000))" 1

"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root tests/fixtures --workers 8 \
    2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }
U=http://127.0.0.1:$PORT
kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$PID/status"; }
upload() { # upload FILE OUT -> status
    curl -s -o "$2" -w '%{http_code}' -X POST -H 'Content-Type: application/octet-stream' \
        --data-binary @"$1" "$U/v1/inspect?nocache=1"
}
warnings() { python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["warnings"]))' "$1"; }
round() { # round FILE: eight uploads at once; their statuses, sorted
    local i
    for i in 1 2 3 4 5 6 7 8; do { upload "$1" "$TMP/r$i.json"; echo; } >"$TMP/s$i" & done
    wait
    cat "$TMP"/s? | sort | uniq -c | tr -s ' ' | sed 's/^ //'
}

# Idle: after two rounds of ordinary uploads, so the eight workers and their arenas exist and
# have reached the size ordinary work keeps them at.
same "warm-up round" "$(round tests/fixtures/cuda_sm90a_v8.pt2)" "8 200"
same "second warm-up round" "$(round tests/fixtures/cuda_sm90a_v8.pt2)" "8 200"
idle=$(kib VmRSS)
echo 5 >"/proc/$PID/clear_refs" 2>/dev/null || echo "note: VmHWM not reset, the peak includes start-up"

same "hostile round" "$(round "$TMP/hostile.pt2")" "8 200"
same "hostile warning" "$(warnings "$TMP/r1.json")" \
    "models/m00.json: not parsed, over the inspection's JSON budget (500000 values, 32 MiB of parse tree) at byte 838860"
peak=$(kib VmHWM)
atmost "peak RSS over idle under 8 hostile uploads" $((peak - idle)) $((2 * 32 * 1024))
# after: the least of five readings 100 ms apart (a worker may still be freeing its last answer)
after=$(kib VmRSS)
for _ in 1 2 3 4; do
    sleep 0.1
    a=$(kib VmRSS)
    [ "$a" -lt "$after" ] && after=$a
done
atmost "RSS after the hostile round, over idle" $((after - idle)) $((idle / 10))
echo "json_budget: idle ${idle} KiB, peak ${peak} KiB, after ${after} KiB"

same "sixteen programs" "$(upload "$TMP/sixteen.pt2" "$TMP/16.json")" 200
warnings "$TMP/16.json" >"$TMP/16.txt"
same "sixteen: warnings" "$(wc -l <"$TMP/16.txt")" 16
same "sixteen: the first" "$(head -1 "$TMP/16.txt")" \
    "models/m00.json: not parsed, over the inspection's JSON budget (500000 values, 32 MiB of parse tree) at byte 838860"
same "sixteen: the last" "$(tail -1 "$TMP/16.txt")" \
    "models/m15.json: not parsed, the inspection's JSON budget was spent by models/m00.json"

out=$(curl -s -o "$TMP/ov.json" -w '%{http_code}' "$U/v1/inspect?path=broken_overlap.pt2")
same "overlapping entries: status" "$out" 422
same "overlapping entries: problem" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["type"].rsplit("/",1)[1], d["detail"])' "$TMP/ov.json")" \
    "truncated truncated or corrupt zip: overlapping entries: the entry at byte 0 (to byte 60) overlaps the entry at byte 0"

echo "json_budget: $pass passed, $fail failed"
[ "$fail" = 0 ]
