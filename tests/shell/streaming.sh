#!/usr/bin/env bash
# Uploads inspected as they stream (issue 25), seen from the daemon:
#  - every fixture and corpus package uploaded raw and as multipart, streamed
#    and with ?stream=0, gives the document GET ?path= gives for the file,
#    byte for byte once package.source (and, raw, the name) is set aside;
#  - a torch-like package with 2 x 24 MiB of weights (flag bit 3, data
#    descriptors, look-alike descriptors inside the weights) streams: both
#    weights dropped, under 1 MiB kept, nothing spooled, the same document;
#  - its zipfile twin (sizes in the local headers) streams too;
#  - hostile streams: junk before the zip (kept whole: the answer ?stream=0
#    gives), a body cut inside a dropped weight (422 unsupported, says
#    stream=0), a corrupt weight (422 truncated), a directory that lies
#    (422 unsupported); no spool file or descriptor is left behind.
. "$(dirname "$0")/lib/harness.bash" stream

mkdir -p "$TMP/models" "$TMP/spool"
cp tests/fixtures/*.pt2 "$TMP/models/"
# torch 2.14.1's own packages (tests/fixtures/torch/): the layout its writer really streams
cp tests/fixtures/torch/*.pt2 "$TMP/models/"
SHARED=${PT2SCOPE_SHARED:-../shared}
if [ -d "$SHARED/corpus/pt2" ]; then
    cp "$SHARED"/corpus/pt2/*.pt2 "$TMP/models/"
elif [ "${PT2SCOPE_REQUIRE_CORPUS:-0}" = 1 ]; then
    same "corpus present" "absent" "$SHARED/corpus/pt2"
else
    echo "SKIP streaming corpus: $SHARED/corpus/pt2 is absent" >&2
fi

# Torch-like (bit 3, descriptors) and zipfile-like packages with big weights,
# built from cuda_sm90a_v8.pt2's entries.
python3 - "$TMP/models" <<'PY'
import os, struct, sys, zipfile, zlib
out = sys.argv[1]
src = zipfile.ZipFile("tests/fixtures/cuda_sm90a_v8.pt2")
prefix = src.namelist()[0].split("/")[0] + "/"
entries = [(i.filename, src.read(i)) for i in src.infolist()]
w = bytearray(os.urandom(24 << 20))
# look-alike descriptors: the signature with a wrong CRC, and one with the right size
w[1000:1004] = b"PK\x07\x08"
w[70000:70016] = b"PK\x07\x08" + struct.pack("<III", 0, 69996, 69996)
weights = [(prefix + "data/weights/weight_big%d" % i, bytes(w)) for i in range(2)]
allents = entries[:1] + weights + entries[1:]

def torch_like(path, ents, lie=False):
    buf, cd = bytearray(), bytearray()
    for n, d in ents:
        crc, off, nb = zlib.crc32(d), len(buf), n.encode()
        buf += struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0x0808, 0, 0, 0, 0, 0, 0, len(nb), 0) + nb
        buf += d + struct.pack("<IIII", 0x08074B50, crc, len(d), len(d))
        if lie and n.endswith("archive_format"):
            off += 7
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x31E, 0, 0x0808, 0, 0, 0, crc, len(d),
                          len(d), len(nb), 0, 0, 0, 0, 0, off) + nb
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(ents), len(ents), len(cd), len(buf), 0)
    with open(path, "wb") as f:
        f.write(buf + cd + end)

torch_like(out + "/big_torch.pt2", allents)
with zipfile.ZipFile(out + "/big_zipfile.pt2", "w", zipfile.ZIP_STORED) as z:
    for n, d in allents:
        z.writestr(n, d)
hostile = sys.argv[1] + "/../hostile"
os.makedirs(hostile, exist_ok=True)
# sizes in the local headers: a flipped weight byte is found by its CRC-32
b = bytearray(open(out + "/big_zipfile.pt2", "rb").read())
i = zipfile.ZipFile(out + "/big_zipfile.pt2").getinfo(prefix + "data/weights/weight_big1")
b[i.header_offset + 30 + len(i.filename) + 12345] ^= 0xFF
open(hostile + "/corrupt.pt2", "wb").write(b)
torch_like(hostile + "/lie.pt2", allents, lie=True)
with open(out + "/big_torch.pt2", "rb") as f:
    b = f.read()
open(hostile + "/junk.pt2", "wb").write(b"#!junk\n" + b)
open(hostile + "/cut.pt2", "wb").write(b[: 40 << 20])
PY

"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root "$TMP/models" \
    --spool-dir "$TMP/spool" --max-upload 256M 2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }
U=http://127.0.0.1:$PORT

raw() { # raw FILE OUT [QUERY] -> status
    curl -s -o "$2" -w '%{http_code}' -H 'Content-Type: application/octet-stream' \
        --data-binary @"$1" "$U/v1/inspect?affinity=0${3:-}"
}
form() { # form FILE OUT [QUERY] -> status
    curl -s -o "$2" -w '%{http_code}' -F "file=@$1" "$U/v1/inspect?affinity=0${3:-}"
}
# strip DOC [NAME]: the document without package.source (and with package.name = NAME)
strip() {
    python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("instance", None)
p = d.get("package")
if isinstance(p, dict):
    p.pop("source", None)
    if len(sys.argv) > 2:
        p["name"] = sys.argv[2]
print(json.dumps(d, sort_keys=False, separators=(",", ":")))
PY
}
field() { # field DOC KEY: package.source.KEY
    python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["package"]["source"].get(sys.argv[2])))' "$1" "$2"
}

# 1. Every package: streamed, kept whole and multipart give the file's document.
n=0
for f in "$TMP"/models/*.pt2; do
    b=$(basename "$f")
    curl -s -o "$TMP/want.json" "$U/v1/inspect?affinity=0&path=$b"
    want=$(strip "$TMP/want.json")
    for mode in raw form; do
        for q in "" "&stream=0"; do
            st=$($mode "$f" "$TMP/got.json" "$q")
            if [ "$st" = 200 ]; then got=$(strip "$TMP/got.json" "$b"); else got=$(strip "$TMP/got.json"); fi
            same "$b $mode$q: document" "$got" "$want"
        done
    done
    n=$((n + 1))
done
same "packages compared" "$((n >= 53))" 1

# 2. The big torch-like package and its zipfile twin: weights dropped, little kept.
for b in big_torch big_zipfile; do
    same "$b: status" "$(raw "$TMP/models/$b.pt2" "$TMP/$b.json")" 200
    same "$b: streamed" "$(field "$TMP/$b.json" streamed)" true
    same "$b: entries dropped" "$(field "$TMP/$b.json" entries_dropped)" 2
    same "$b: nothing spooled" "$(field "$TMP/$b.json" bytes_spilled)" 0
    same "$b: under 1 MiB kept" "$(($(field "$TMP/$b.json" bytes_kept) < 1048576))" 1
    same "$b: bytes received" "$(field "$TMP/$b.json" bytes_received)" "$(stat -c %s "$TMP/models/$b.pt2")"
done
same "stream=0 keeps every byte" "$(raw "$TMP/models/big_torch.pt2" "$TMP/k.json" "&stream=0") $(field "$TMP/k.json" bytes_kept) $(field "$TMP/k.json" streamed_reason)" \
    "200 $(stat -c %s "$TMP/models/big_torch.pt2") \"stream=0 was asked: the upload was kept whole\""
same "kept whole: spooled past 8 MiB" "$(field "$TMP/k.json" bytes_spilled)" "$(($(stat -c %s "$TMP/models/big_torch.pt2") - 8388608))"

# 3. Hostile streams.
H=$TMP/hostile
# (the directory's offsets miss by the junk's 7 bytes: a 422 either way, the same one)
same "junk before the zip: as if kept whole" "$(raw "$H/junk.pt2" "$TMP/j.json") $(strip "$TMP/j.json")" \
    "$(raw "$H/junk.pt2" "$TMP/j0.json" "&stream=0") $(strip "$TMP/j0.json")"
problem() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["type"].rsplit("/",1)[-1], d["status"], d["detail"])' "$1"; }
same "cut inside a dropped weight" "$(raw "$H/cut.pt2" "$TMP/c.json")" 422
case "$(problem "$TMP/c.json")" in
"unsupported 422 the upload could not be followed as it streamed (the upload ended inside an entry's data"*"send it again with stream=0 to have it kept whole") pass=$((pass + 1)) ;;
*) fail=$((fail + 1)); echo "FAIL cut: $(problem "$TMP/c.json")" ;;
esac
same "corrupt weight" "$(raw "$H/corrupt.pt2" "$TMP/x.json") $(problem "$TMP/x.json" | cut -d' ' -f1,2)" "422 truncated 422"
same "corrupt weight: detail" "$(problem "$TMP/x.json" | grep -c 'its CRC-32 does not match its data; the upload is corrupt')" 1
same "a directory that lies" "$(raw "$H/lie.pt2" "$TMP/l.json") $(problem "$TMP/l.json" | cut -d' ' -f1,2)" "422 unsupported 422"
same "the lie is named" "$(problem "$TMP/l.json" | grep -c "archive_format' (local header at")" 1
same "the cut file kept whole" "$(raw "$H/cut.pt2" "$TMP/c0.json" "&stream=0") $(problem "$TMP/c0.json" | cut -d' ' -f1)" "422 truncated"

# 4. Nothing left behind.
same "spool empty" "$(find "$TMP/spool" -mindepth 1 | wc -l)" 0
same "no deleted file open" "$(find "/proc/$PID/fd" -lname '*(deleted)' 2>/dev/null | wc -l)" 0

echo "streaming: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
