#!/usr/bin/env bash
# tests/image/run.sh - `make image-test`: docker/Dockerfile built and the
# image run the way docker/k8s runs it: uid 10001, a read-only root, the
# model root mounted read-only at /models, a writable spool only. Checks
# /livez, an inspection of the mounted fixture and of an upload, the
# image's own HEALTHCHECK command (healthy, and unhealthy at a wrong
# address), and the exit code of SIGTERM (0, README "Shutdown").
#
# Engine: a working docker (`docker info` succeeds), else Debian's buildah
# (as root: chroot isolation, vfs storage, the image mounted and run with
# unshare + chroot in fresh mount and network namespaces, as uid 10001).
# Neither: one SKIP line. The Debian base images the FROM lines name come
# from a registry when one answers, else from debootstrap (Debian's mirror,
# as apt is configured), tagged with the FROM lines' names; the rootfs
# tarball and apt's downloaded packages are cached under
# ${PT2SCOPE_CACHE:-~/.cache/pt2scope}/image, so a rerun builds from cache.
# PT2SCOPE_IMAGE_ENGINE=docker|buildah|none forces the choice.
set -u
cd "$(dirname "$0")/../.." || exit 1
CACHE=${PT2SCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pt2scope}/image
TAG=localhost/pt2scope:image-test
FIXTURE=cuda_sm90a_v8.pt2
TMP=$(mktemp -d /tmp/pt2scope-image-XXXXXX)
PID= CTR= DCTR=
pass=0 fail=0
t0=$(date +%s)
say() { echo "image: $*"; }
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}
finish() {
    say "$(($(date +%s) - t0)) s in all"
    echo "image: $pass passed, $fail failed"
    [ "$fail" = 0 ]
    exit
}
skip() {
    echo "SKIP image-test: $1"
    echo "image: 0 passed, 0 failed"
    exit 0
}
cleanup() {
    if [ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null; then wait "$PID" 2>/dev/null; fi
    [ -n "$CTR" ] && { buildah umount "$CTR" >/dev/null 2>&1; buildah rm "$CTR" >/dev/null 2>&1; }
    [ -n "$DCTR" ] && docker rm -f "$DCTR" >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT

engine=${PT2SCOPE_IMAGE_ENGINE:-}
if [ -z "$engine" ]; then
    if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then engine=docker
    elif command -v buildah >/dev/null 2>&1; then engine=buildah
    else engine=none; fi
fi
case $engine in
none) skip "neither buildah nor a working docker engine (docker info fails): the image is not built" ;;
buildah) [ "$(id -u)" = 0 ] || skip "buildah's chroot isolation and the run need root" ;;
docker) ;;
*) echo "FAIL: PT2SCOPE_IMAGE_ENGINE=$engine (docker, buildah or none)"; exit 1 ;;
esac
export STORAGE_DRIVER=${STORAGE_DRIVER:-vfs}
mkdir -p "$CACHE/apt"

# ---- base images ----------------------------------------------------------
# The Debian mirror apt uses here (deb822 or one-line sources), for debootstrap.
mirror() {
    local m
    m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
    [ -n "$m" ] || m=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    echo "${m:-http://deb.debian.org/debian}"
}
# base IMAGE: the image named debian:12.N[-slim] in the engine's storage.
base() {
    local ref=docker.io/library/$1 tar=$CACHE/debian-bookworm-minbase.tar c
    if [ "$engine" = docker ]; then
        docker image inspect "$1" >/dev/null 2>&1 && return 0
        timeout 60 docker pull -q "$1" >/dev/null 2>&1 && return 0
    else
        buildah inspect --type image "$ref" >/dev/null 2>&1 && return 0
        timeout 60 buildah pull -q "$ref" >/dev/null 2>&1 && return 0
    fi
    say "no registry answers for $1 ($(($(date +%s) - t0)) s so far)"
    if [ ! -s "$tar" ]; then
        command -v debootstrap >/dev/null 2>&1 || { echo "FAIL: no registry and no debootstrap for $1"; return 1; }
        say "debootstrap: bookworm, minbase, from $(mirror)"
        rm -rf "$CACHE/rootfs"
        debootstrap --variant=minbase bookworm "$CACHE/rootfs" "$(mirror)" >"$TMP/debootstrap.log" 2>&1 ||
            { echo "FAIL: debootstrap"; tail -20 "$TMP/debootstrap.log"; return 1; }
        rm -rf "$CACHE/rootfs/var/cache/apt/archives"/*.deb "$CACHE/rootfs/var/lib/apt/lists"/*
        tar -C "$CACHE/rootfs" -cf "$tar.part" . && mv "$tar.part" "$tar" && rm -rf "$CACHE/rootfs"
    fi
    # one import serves every FROM line (debian:12.N and -slim): the others are tags of it
    if [ -n "$IMPORTED" ]; then
        if [ "$engine" = docker ]; then docker tag "$IMPORTED" "$1"; else buildah tag "$IMPORTED" "$ref"; fi
        return
    fi
    if [ "$engine" = docker ]; then
        docker import -c 'CMD ["bash"]' "$tar" "$1" >/dev/null && IMPORTED=$1
        return
    fi
    IMPORTED=$ref
    c=$(buildah from scratch) &&
        buildah add "$c" "$tar" / >/dev/null &&
        buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            --cmd bash --label io.pt2scope.base=debootstrap "$c" &&
        buildah commit -q "$c" "$ref" >/dev/null
    local rc=$?
    buildah rm "$c" >/dev/null 2>&1
    return $rc
}
IMPORTED=
for img in $(awk '$1 == "FROM" { print $2 }' docker/Dockerfile | sort -u); do
    base "$img" || finish
done
say "base images ready after $(($(date +%s) - t0)) s"

# ---- build ----------------------------------------------------------------
# Behind a TLS-intercepting proxy (this machine's own extra CAs, or PT2SCOPE_EXTRA_CA):
# the Dockerfile's extra-ca build secret.
secret=()
ca=${PT2SCOPE_EXTRA_CA:-}
if [ -z "$ca" ]; then
    cat /usr/local/share/ca-certificates/*.crt >"$TMP/extra-ca.pem" 2>/dev/null
    [ -s "$TMP/extra-ca.pem" ] && ca=$TMP/extra-ca.pem
fi
[ -n "$ca" ] && secret=(--secret "id=extra-ca,src=$ca") && say "extra CA certificates: $ca"
t1=$(date +%s)
if [ "$engine" = docker ]; then
    DOCKER_BUILDKIT=1 docker build -q "${secret[@]}" -f docker/Dockerfile -t "$TAG" . \
        >"$TMP/build.log" 2>&1
else
    # --layers: a rerun reuses the apt layer; apt's downloads persist in the cache.
    buildah bud --isolation chroot --format docker --pull-never --layers "${secret[@]}" \
        --ignorefile docker/Dockerfile.dockerignore -v "$CACHE/apt:/var/cache/apt/archives" \
        -f docker/Dockerfile -t "$TAG" . >"$TMP/build.log" 2>&1
fi
rc=$?
same "build" "$rc" 0
say "built in $(($(date +%s) - t1)) s"
[ "$rc" = 0 ] || { tail -30 "$TMP/build.log"; finish; }
# What each build leaves behind (the old COPY and make layers, a GB each under vfs) goes;
# the layers the next build reuses stay.
[ "$engine" = buildah ] && buildah rmi --prune >/dev/null 2>&1

# ---- run ------------------------------------------------------------------
# The image's own configuration: user, environment, entrypoint, healthcheck.
config() { # config FIELD -> one value a line (Env, Entrypoint, User, Healthcheck)
    if [ "$engine" = docker ]; then docker image inspect "$TAG"; else buildah inspect --type image "$TAG"; fi |
        python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
c = (d.get("Docker") or {}).get("config") or d.get("Config") or {}
v = c.get(sys.argv[1])
if sys.argv[1] == "Healthcheck":
    v = (v or {}).get("Test", [])
print("\n".join(v) if isinstance(v, list) else (v or ""))' "$1"
}
same "image user" "$(config User)" "10001:10001"
same "image healthcheck" "$(config Healthcheck | tr '\n' ' ')" "CMD /usr/local/bin/pt2scoped --healthcheck "
mapfile -t ENVS < <(config Env)
mapfile -t ENTRY < <(config Entrypoint)
mapfile -t HC < <(config Healthcheck | tail -n +2)

# in_image [-u] CMD...: run CMD in the daemon's namespaces and root (as uid 10001 with -u).
in_image() {
    local as=()
    [ "$1" = -u ] && { as=(-S 10001 -G 10001); shift; }
    if [ "$engine" = docker ]; then
        if [ ${#as[@]} -gt 0 ]; then docker exec -u 10001:10001 "$DCTR" "$@"
        else docker exec -u 0 "$DCTR" "$@"; fi
    else
        nsenter -t "$PID" -n -m -r -w "${as[@]}" "$@"
    fi
}
# http PATH [curl args]: status and body from inside the daemon's network.
http() {
    local p=$1; shift
    if [ "$engine" = docker ]; then
        curl -s -m 10 -w '\n%{http_code}' "$@" "http://127.0.0.1:$HPORT$p"
    else
        nsenter -t "$PID" -n curl -s -m 10 -w '\n%{http_code}' "$@" "http://127.0.0.1:8080$p"
    fi
}

if [ "$engine" = docker ]; then
    DCTR=$(docker run -d --read-only --user 10001:10001 --tmpfs /var/spool/pt2scope:uid=10001,gid=10001 \
        -v "$PWD/tests/fixtures:/models:ro" -p 127.0.0.1::8080 "$TAG") || finish
    HPORT=$(docker port "$DCTR" 8080/tcp | head -1 | sed 's/.*://')
    PID=$(docker inspect -f '{{.State.Pid}}' "$DCTR")
else
    CTR=$(buildah from --pull-never "$TAG") && ROOT=$(buildah mount "$CTR") || finish
    export PT2_FIXTURES=$PWD/tests/fixtures
    # Fresh mount and network namespaces: the root bound read-only onto itself, the
    # fixtures read-only at /models, a tmpfs spool owned by 10001, /proc and a minimal
    # /dev; then the entrypoint as 10001 with the image's environment only. Each step
    # execs the next, so $! is the daemon.
    unshare --mount --net -- sh -c '
        set -e
        R=$1; shift
        ip link set lo up
        mount --make-rprivate /
        mount --bind "$R" "$R"
        mount -o remount,bind,ro "$R"
        mount --bind "$PT2_FIXTURES" "$R/models"
        mount -o remount,bind,ro "$R/models"
        mount -t tmpfs -o size=64m,mode=0700,uid=10001,gid=10001 tmpfs "$R/var/spool/pt2scope"
        mount -t proc proc "$R/proc"
        mount -t tmpfs -o size=1m,mode=0755 tmpfs "$R/dev"
        for d in null zero full random urandom; do
            : >"$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done
        exec chroot --userspec=10001:10001 "$R" /usr/bin/env -i "$@"' \
        sh "$ROOT" "${ENVS[@]}" "${ENTRY[@]}" >"$TMP/daemon.log" 2>&1 &
    PID=$!
fi
for _ in $(seq 1 100); do
    [ "$(http /livez | tail -1)" = 200 ] && break
    sleep 0.1
done
out=$(http /livez)
same "/livez" "$(echo $out)" "ok 200"
same "runs as uid 10001" "$(awk '/^Uid:/ { print $2, $3 }' "/proc/$PID/status")" "10001 10001"
same "read-only root" "$(in_image sh -c 'touch /written 2>/dev/null && echo written || echo refused')" \
    "refused"
same "spool writable by 10001" "$(in_image -u sh -c ': >/var/spool/pt2scope/x && rm /var/spool/pt2scope/x && echo ok')" "ok"

# package.name, kind, size and entries of an answer (its body: all but the status line)
pkg() { python3 -c 'import json,sys; p=json.loads(sys.stdin.read().strip().rsplit("\n",1)[0])["package"]; print(p["name"], p["kind"], p["size"], p["entries"])'; }
out=$(http "/v1/inspect?path=$FIXTURE")
same "inspect a mounted fixture: status" "$(echo "$out" | tail -1)" 200
same "inspect a mounted fixture: package" "$(echo "$out" | pkg 2>&1)" "$FIXTURE aoti 34001 12"
out=$(http /v1/inspect -X POST -H 'Content-Type: application/octet-stream' --data-binary @tests/fixtures/cpu_x86_64.pt2)
same "inspect an upload (the spool under a read-only root): status" "$(echo "$out" | tail -1)" 200

hc=$(in_image -u /usr/bin/env -i "${ENVS[@]}" "${HC[@]}" 2>&1); rc=$?
same "HEALTHCHECK command: exit" "$rc" 0
say "healthcheck said: $hc"
in_image -u /usr/bin/env -i "${ENVS[@]}" PT2SCOPE_LISTEN=127.0.0.1:1 "${HC[@]}" >/dev/null 2>&1
same "HEALTHCHECK command at a wrong address: exit" "$?" 1

if [ "$engine" = docker ]; then
    docker kill -s TERM "$DCTR" >/dev/null; rc=$(docker wait "$DCTR"); docker logs "$DCTR" >"$TMP/daemon.log" 2>&1
else
    kill -TERM "$PID"; wait "$PID"; rc=$?
fi
PID=
same "SIGTERM: exit code" "$rc" 0
[ "$rc" = 0 ] || tail -20 "$TMP/daemon.log"
finish
