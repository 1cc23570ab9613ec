#!/usr/bin/env bash
# docker/Dockerfile, read statically (building it needs a Docker daemon and
# the base images, which a test machine may have neither of):
#  - every FROM is pinned to a Debian point release (debian:12.N[-slim]) or
#    a digest, never a moving tag;
#  - the build stage has one apt-get install, naming every Debian package
#    service/tools/deps.sh maps the build's modules and tools to, plus
#    clang-format, nodejs and npm, so make never calls apt-get there; make
#    runs after it, behind deps.sh's build check;
#  - the runtime stage installs no curl or wget, runs as the uid the
#    Kubernetes manifests use, and has a HEALTHCHECK through
#    `pt2scoped --healthcheck`;
#  - docker/Dockerfile.dockerignore keeps build/ and node_modules out.
# The same checks then run on broken copies, each of which must fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
TMP=$(mktemp -d /tmp/pt2scope-dockerfile-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

# Instructions one a line (continuations joined), "STAGE<TAB>INSTRUCTION".
instructions() {
    awk '
    /^[[:space:]]*#/ { next }
    { line = line $0 }
    /\\$/ { sub(/\\$/, "", line); next }
    line ~ /[^[:space:]]/ {
        gsub(/[[:space:]]+/, " ", line); sub(/^ /, "", line)
        if (line ~ /^FROM /) stage++
        print stage "\t" line
    }
    { line = "" }' "$1"
}

# The Debian packages deps.sh maps the build's pkg-config modules and tools to.
deps_packages() {
    local v pair
    for v in build_mods build_tools; do
        for pair in $(awk -v v="$v" '
            $0 ~ "^" v "=\"" { on = 1; sub("^" v "=\"", "") }
            on { s = s " " $0; if ($0 ~ /"/) on = 0 }
            END { gsub(/"/, "", s); print s }' service/tools/deps.sh); do
            echo "${pair#*:}"
        done
    done
    printf '%s\n' clang-format nodejs npm
}

# check DOCKERFILE DOCKERIGNORE: one line per problem on stdout, nothing when all is well.
check() {
    local df=$1 ign=$2 ins from n pkg install uid k8s_uids
    ins=$(instructions "$df")
    n=$(grep -c $'\tFROM ' <<<"$ins")
    [ "$n" = 2 ] || echo "stages: $n FROM lines, want 2 (build, runtime)"
    while IFS= read -r from; do
        from=${from#*FROM }
        from=${from%% *}
        [[ $from =~ ^debian:12\.[0-9]+(-slim)?(@sha256:[0-9a-f]{64})?$ ]] ||
            echo "unpinned base image: $from"
    done < <(grep $'\tFROM ' <<<"$ins")
    # The build stage.
    n=$(grep -c $'^1\tRUN .*apt-get install' <<<"$ins")
    [ "$n" = 1 ] || echo "build stage: $n apt-get install commands, want 1"
    n=$(grep $'^1\t' <<<"$ins" | grep -c 'apt-get')
    [ "$n" = 1 ] || echo "build stage: apt-get in $n instructions, want 1"
    install=" $(grep $'^1\tRUN .*apt-get install' <<<"$ins" | head -1) "
    while IFS= read -r pkg; do
        [[ $install == *" $pkg "* ]] || echo "build stage: apt-get install lacks $pkg"
    done < <(deps_packages)
    grep $'^1\tRUN ' <<<"$ins" | grep -q 'deps.sh build && .*make all' ||
        echo "build stage: make all does not run behind 'service/tools/deps.sh build'"
    # The runtime stage.
    grep $'^2\tRUN .*apt-get install' <<<"$ins" | grep -qwE 'curl|wget' &&
        echo "runtime stage: installs curl or wget"
    n=$(grep -c $'^2\tHEALTHCHECK ' <<<"$ins")
    [ "$n" = 1 ] || echo "runtime stage: $n HEALTHCHECK instructions, want 1"
    grep $'^2\tHEALTHCHECK ' <<<"$ins" | grep -qF -- '--timeout=' ||
        echo "HEALTHCHECK: no --timeout"
    grep $'^2\tHEALTHCHECK ' <<<"$ins" |
        grep -qF 'CMD ["/usr/local/bin/pt2scoped", "--healthcheck"]' ||
        echo "HEALTHCHECK: not CMD [\"/usr/local/bin/pt2scoped\", \"--healthcheck\"]"
    uid=$(grep $'^2\tUSER ' <<<"$ins" | tail -1 | sed 's/.*USER //; s/:.*//')
    [[ $uid =~ ^[1-9][0-9]*$ ]] || echo "runtime stage: USER '$uid' is not a numeric non-root uid"
    k8s_uids=$(grep -ho 'runAsUser: [0-9]*' docker/k8s/*.yaml | sort -u | sed 's/runAsUser: //')
    [ "$k8s_uids" = "$uid" ] ||
        echo "runtime stage: USER $uid, the manifests run as $(echo $k8s_uids)"
    for k in build '\*\*/node_modules'; do
        grep -qx "$k" "$ign" 2>/dev/null || echo "dockerignore: lacks ${k//\\/}"
    done
}

expect() { # expect WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n%s\nwant\n%s\n' "$1" "$2" "$3"; fi
}

expect "docker/Dockerfile" "$(check docker/Dockerfile docker/Dockerfile.dockerignore)" ""
expect "deps.sh names the build's packages" "$(deps_packages | tr '\n' ' ')" \
    "libzip-dev libcjson-dev libmicrohttpd-dev libcurl4-openssl-dev nettle-dev zlib1g-dev gcc pkg-config clang-format nodejs npm "

# broken SED-SCRIPT WANT: docker/Dockerfile edited by SED-SCRIPT fails with exactly WANT.
broken() {
    sed "$1" docker/Dockerfile >"$TMP/Dockerfile"
    expect "broken (${2%%$'\n'*})" "$(check "$TMP/Dockerfile" docker/Dockerfile.dockerignore)" "$2"
}
broken 's/^FROM debian:12\.[0-9]*-slim/FROM debian:12-slim/' "unpinned base image: debian:12-slim"
broken 's/^FROM debian:12\.[0-9]* AS build/FROM debian:latest AS build/' \
    "unpinned base image: debian:latest"
broken 's/ clang-format / /' "build stage: apt-get install lacks clang-format"
broken 's/ nettle-dev / /' "build stage: apt-get install lacks nettle-dev"
broken 's/^RUN bash service\/tools\/deps.sh build && make clean && make all/RUN apt-get update \&\& make all/' \
    "build stage: apt-get in 2 instructions, want 1
build stage: make all does not run behind 'service/tools/deps.sh build'"
broken 's/libcurl4 libnettle8/libcurl4 curl libnettle8/' "runtime stage: installs curl or wget"
broken '/^HEALTHCHECK/,/CMD/d' "runtime stage: 0 HEALTHCHECK instructions, want 1
HEALTHCHECK: no --timeout
HEALTHCHECK: not CMD [\"/usr/local/bin/pt2scoped\", \"--healthcheck\"]"
broken 's/^USER 10001:10001/USER 0/' "runtime stage: USER '0' is not a numeric non-root uid
runtime stage: USER 0, the manifests run as 10001"
printf 'build\n' >"$TMP/ignore"
expect "broken dockerignore" "$(check docker/Dockerfile "$TMP/ignore")" \
    "dockerignore: lacks **/node_modules"

echo "dockerfile: $pass passed, $fail failed"
[ "$fail" = 0 ]
