# shellcheck shell=bash
# servers.sh - loopback servers for the remote (URL) tests. Source it, start what
# a test needs, and stop everything on exit:
#
#   . tests/remote/servers.sh
#   trap remote_stop_all EXIT          # or call remote_stop_all from your cleanup
#   remote_start_nginx "$docroot" || exit 1
#   curl -r 0-99 "$REMOTE_NGINX_URL/model.pt2"
#
# Every server listens on 127.0.0.1 on a port it picked (nginx: a free port, retried
# if taken), is started in the background of the calling shell (call the functions
# directly, not in $(...), or the exports are lost; set -e and set -u are fine),
# and is ready when its start function returns 0; on failure the function prints
# why (with the server's log) on stderr and returns 1. A start function's
# variables describe the last server of that kind.
# State lives in $REMOTE_TMP (a temp dir), the pids in REMOTE_PIDS and
# $REMOTE_TMP/pids; remote_stop_all kills them (TERM, then KILL after 3 s) and
# removes $REMOTE_TMP. Should the shell die without it (SIGKILL), a watchdog
# does the same; the python and node servers also exit by themselves.
#
#   remote_start_nginx DOCROOT
#       Debian's nginx (PT2SCOPE_NGINX, else nginx on PATH, else /usr/sbin/nginx), one
#       process (master_process off) as the current user, config/logs/temp under
#       $REMOTE_TMP. Serves DOCROOT with Range support and ETags. Locations:
#         /NAME                 the file
#         /redirect/NAME        302, Location: /NAME (relative)
#         /chain/N/NAME         N redirects (N = 1..20) ending at /NAME (relative)
#         /to-metadata/...      302 to http://169.254.169.254/latest/meta-data/
#         /to-localhost/NAME    302 to http://localhost:PORT/NAME (same server, by name)
#         /to-userinfo/NAME     302 to http://user:pass@127.0.0.1:PORT/NAME (credentials in Location)
#         /slow/NAME            the file at 1 KiB/s (limit_rate 1k)
#         /norange/NAME         the file without Range support (200 to a Range request)
#       Exports REMOTE_NGINX_URL (http://127.0.0.1:PORT), REMOTE_NGINX_PORT,
#       REMOTE_NGINX_LOG (access log; one line per request, tab-separated:
#       METHOD REQUEST-URI STATUS RANGE BODY-BYTES REQUEST-TIME IF-MATCH IF-RANGE ETAG
#       AUTHORIZATION,
#       "-" for an absent header; nginx writes a line after the response, so read it
#       through the helpers below, which first sync with the server).
#   remote_nginx_requests [ERE]   number of logged requests whose REQUEST-URI matches ERE
#   remote_nginx_bytes [ERE]      sum of their BODY-BYTES
#   remote_nginx_ranges [ERE]     their Range headers, one a line ("-": none)
#   remote_nginx_log_reset        empty the access log
#
#   remote_start_changing DIR [strict|ignore] [AFTER]
#       One object at every path (httpserve.py). DIR's files, in name order, are its
#       successive versions: after every AFTER requests (default 1) the object becomes
#       the next version (new bytes, new ETag "vN-HASH", maybe a new size). strict
#       (default): If-Match naming another ETag is 412, a stale If-Range gets 200 and
#       the whole object; ignore: both headers are ignored. 206/Content-Range, 416
#       with "Content-Range: bytes */SIZE". Exports REMOTE_CHANGING_URL,
#       REMOTE_CHANGING_LOG (METHOD PATH RANGE IF-MATCH IF-RANGE STATUS BODY-BYTES ETAG,
#       tab-separated, written before the response).
#
#   remote_start_slow DIR SECONDS [headers|body]
#       DIR's files (httpserve.py); every request waits SECONDS before the status
#       line (headers, default) or after the headers and the first body byte (body).
#       Exports REMOTE_SLOW_URL, REMOTE_SLOW_LOG (format as the changing server's).
#
#   remote_start_s3 [--allow-unsigned] DATADIR BUCKET [KEY=]FILE...
#       s3rver (tests/remote/s3, npm ci) storing under DATADIR, with BUCKET created and
#       each FILE uploaded as KEY (default: its base name), behind a proxy that verifies
#       every request's SigV4 signature (s3/server.mjs) against REMOTE_S3_KEY and
#       REMOTE_S3_SECRET (S3RVER/S3RVER) for region us-east-1, service s3, and answers
#       S3's XML errors (403 SignatureDoesNotMatch, AccessDenied for an unsigned request
#       unless --allow-unsigned, ...). Path-style URLs: $REMOTE_S3_URL/BUCKET/KEY.
#       Exports REMOTE_S3_URL (the proxy: use it as AWS_ENDPOINT_URL), REMOTE_S3_BUCKET,
#       REMOTE_S3_REGION, REMOTE_S3_KEY, REMOTE_S3_SECRET, REMOTE_S3_LOG (METHOD URL RANGE
#       AUTH STATUS CODE, tab-separated, before the response; AUTH ok|bad|none, CODE the
#       proxy's own error code or "-"), REMOTE_S3RVER_URL (s3rver itself, unverified).
#       s3rver quirks the proxy passes through: a suffix range "bytes=-N" is answered
#       from offset 0 (206, Content-Range: bytes 0-N/SIZE), "bytes=0-0" with the whole
#       object (206, Content-Range: bytes 0-(SIZE-1)/SIZE); If-Match is ignored.
#   remote_s3_env                  AWS_ENDPOINT_URL=... AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...
#                                  AWS_REGION=... AWS_DEFAULT_REGION=... (for env)
#   remote_s3_requests [AUTH] [ERE]  logged requests with AUTH (ok|bad|none; "" any)
#                                  whose URL matches ERE
#
#   remote_stop_all                stop every server, remove $REMOTE_TMP

REMOTE_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The state belongs to the shell that started the servers (REMOTE_OWNER is never
# exported): sourced again there it is kept, in a child shell it starts afresh.
if [ "${REMOTE_OWNER:-}" != "$$" ]; then
    REMOTE_OWNER=$$ REMOTE_TMP='' REMOTE_SEQ=0 REMOTE_WATCHDOG=''
    REMOTE_PIDS=()
fi
# Seconds a server may take to be ready.
REMOTE_START_TIMEOUT=${REMOTE_START_TIMEOUT:-15}

_remote_say() { echo "remote: $*" >&2; }
_remote_fail() {
    _remote_say "$@"
    return 1
}

# A shell killed outright (SIGKILL, no EXIT trap) leaves servers behind: this
# watchdog, started with $REMOTE_TMP, then stops them and removes the dir.
_remote_watchdog() { # _remote_watchdog SHELL-PID DIR
    local p s=
    trap - EXIT INT HUP
    trap '[ -n "$s" ] && kill "$s" 2>/dev/null && wait "$s"; exit 0' TERM
    while kill -0 "$1" 2>/dev/null; do
        sleep 0.5 &
        s=$!
        wait "$s" || :
    done
    [ -f "$2/pids" ] || { rm -rf "$2"; exit 0; }
    while read -r p _; do kill -TERM "$p" 2>/dev/null || :; done <"$2/pids"
    sleep 1
    while read -r p _; do kill -KILL "$p" 2>/dev/null || :; done <"$2/pids"
    rm -rf "$2"
}

# _remote_dir NAME: a fresh directory for one server; its path in REMOTE_D
_remote_dir() {
    if [ -z "$REMOTE_TMP" ] || [ ! -d "$REMOTE_TMP" ]; then
        REMOTE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pt2scope-remote-XXXXXX") ||
            _remote_fail "cannot create a temp dir" || return 1
        _remote_watchdog $$ "$REMOTE_TMP" </dev/null >/dev/null 2>&1 &
        REMOTE_WATCHDOG=$!
    fi
    REMOTE_SEQ=$((REMOTE_SEQ + 1))
    REMOTE_D=$REMOTE_TMP/$1-$REMOTE_SEQ
    mkdir -p "$REMOTE_D" || return 1
}

_remote_add_pid() { # _remote_add_pid PID NAME
    REMOTE_PIDS+=("$1")
    echo "$1 $2" >>"$REMOTE_TMP/pids"
}

_remote_alive() { kill -0 "$1" 2>/dev/null; }

_remote_stop_pid() { # _remote_stop_pid PID...: TERM, wait up to 3 s, KILL; reap
    local p left
    for p in "$@"; do kill -TERM "$p" 2>/dev/null || :; done
    for _ in $(seq 1 150); do
        left=0
        for p in "$@"; do _remote_alive "$p" && left=1; done
        [ "$left" = 0 ] && break
        sleep 0.02
    done
    for p in "$@"; do
        _remote_alive "$p" && { kill -KILL "$p" 2>/dev/null || :; }
        wait "$p" 2>/dev/null || :
    done
    return 0
}

# _remote_wait_file FILE PID NAME LOG: wait until FILE is non-empty while PID lives
_remote_wait_file() {
    local i n=$((REMOTE_START_TIMEOUT * 50))
    for ((i = 0; i < n; i++)); do
        [ -s "$1" ] && return 0
        if ! _remote_alive "$2"; then
            wait "$2" 2>/dev/null || :
            _remote_say "$3 exited while starting; its log ($4):"
            sed 's/^/  /' "$4" >&2
            return 1
        fi
        sleep 0.02
    done
    _remote_say "$3 not ready after ${REMOTE_START_TIMEOUT}s; its log ($4):"
    sed 's/^/  /' "$4" >&2
    _remote_stop_pid "$2"
    return 1
}

_remote_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

_remote_nginx_bin() {
    if [ -n "${PT2SCOPE_NGINX:-}" ]; then
        [ -x "$PT2SCOPE_NGINX" ] || _remote_fail "PT2SCOPE_NGINX=$PT2SCOPE_NGINX is not executable" || return 1
        echo "$PT2SCOPE_NGINX"
    elif command -v nginx >/dev/null 2>&1; then
        command -v nginx
    elif [ -x /usr/sbin/nginx ]; then
        echo /usr/sbin/nginx
    else
        _remote_fail "nginx is not installed: run 'make deps' (as root: apt-get install -y --no-install-recommends nginx)"
    fi
}

_remote_nginx_conf() { # _remote_nginx_conf DIR DOCROOT PORT TOKEN
    local d=$1 root=$2 port=$3 token=$4 n
    cat <<EOF
# generated by tests/remote/servers.sh
daemon off;
master_process off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 256; }
http {
    default_type application/octet-stream;
    sendfile on;
    server_tokens off;
    keepalive_timeout 10;
    client_body_temp_path $d/tmp/client_body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    # "-" for an absent header; escape=none keeps the ETag's quotes.
    map \$http_range \$log_range { "" "-"; default \$http_range; }
    map \$http_if_match \$log_if_match { "" "-"; default \$http_if_match; }
    map \$http_if_range \$log_if_range { "" "-"; default \$http_if_range; }
    map \$sent_http_etag \$log_etag { "" "-"; default \$sent_http_etag; }
    map \$http_authorization \$log_auth { "" "-"; default \$http_authorization; }
    log_format pt2 escape=none "\$request_method\t\$request_uri\t\$status\t\$log_range\t\$body_bytes_sent\t\$request_time\t\$log_if_match\t\$log_if_range\t\$log_etag\t\$log_auth";
    server {
        listen 127.0.0.1:$port;
        server_name localhost;
        root "$root";
        absolute_redirect off;
        etag on;
        access_log $d/access.log pt2;
        location / { }
        location = /__sync {
            access_log off;
            add_header X-Remote-Token $token;
            return 204;
        }
        location /redirect/ {
            if (\$request_uri ~ "^/redirect/(.*)\$") { return 302 /\$1; }
        }
        location /chain/ {
            if (\$request_uri ~ "^/chain/1/(.*)\$") { return 302 /\$1; }
EOF
    for n in $(seq 2 20); do
        printf '            if ($request_uri ~ "^/chain/%d/(.*)$") { return 302 /chain/%d/$1; }\n' "$n" $((n - 1))
    done
    cat <<EOF
            return 404;
        }
        location /to-metadata/ {
            return 302 http://169.254.169.254/latest/meta-data/;
        }
        location /to-localhost/ {
            if (\$request_uri ~ "^/to-localhost/(.*)\$") { return 302 http://localhost:$port/\$1; }
        }
        location /to-userinfo/ {
            if (\$request_uri ~ "^/to-userinfo/(.*)\$") { return 302 http://user:pass@127.0.0.1:$port/\$1; }
        }
        location /slow/ {
            alias "$root/";
            limit_rate 1k;
        }
        location /norange/ {
            alias "$root/";
            max_ranges 0;
        }
    }
}
EOF
}

remote_start_nginx() {
    [ $# = 1 ] || _remote_fail "usage: remote_start_nginx DOCROOT" || return 1
    local bin root port token pid ready i hdr
    bin=$(_remote_nginx_bin) || return 1
    root=$(cd "$1" 2>/dev/null && pwd) || _remote_fail "nginx: no directory $1" || return 1
    case $root in *[\"\;\$\\]*) _remote_fail "nginx: unusable DOCROOT path $root" || return 1 ;; esac
    _remote_dir nginx || return 1
    mkdir -p "$REMOTE_D/tmp" || return 1
    token=$RANDOM$RANDOM
    # The port is free when picked; another process may take it before nginx
    # binds, so a bind failure retries with another.
    for _ in 1 2 3 4 5; do
        port=$(_remote_free_port) || _remote_fail "nginx: no free port" || return 1
        _remote_nginx_conf "$REMOTE_D" "$root" "$port" "$token" >"$REMOTE_D/nginx.conf"
        : >"$REMOTE_D/error.log"
        "$bin" -p "$REMOTE_D/" -c "$REMOTE_D/nginx.conf" -e "$REMOTE_D/error.log" \
            </dev/null >>"$REMOTE_D/error.log" 2>&1 &
        pid=$!
        _remote_add_pid "$pid" nginx
        ready=0
        for ((i = 0; i < REMOTE_START_TIMEOUT * 50; i++)); do
            hdr=$(curl -s -m 1 -o /dev/null -D - "http://127.0.0.1:$port/__sync" 2>/dev/null) || hdr=
            case $hdr in *"X-Remote-Token: $token"*) ready=1; break ;; esac
            _remote_alive "$pid" || break
            sleep 0.02
        done
        [ "$ready" = 1 ] && break
        _remote_stop_pid "$pid"
        grep -q 'Address already in use' "$REMOTE_D/error.log" && continue
        _remote_say "nginx ($bin) did not start on 127.0.0.1:$port; $REMOTE_D/error.log:"
        sed 's/^/  /' "$REMOTE_D/error.log" >&2
        return 1
    done
    [ "$ready" = 1 ] || _remote_fail "nginx: no free port after 5 tries" || return 1
    export REMOTE_NGINX_PORT=$port
    export REMOTE_NGINX_URL=http://127.0.0.1:$port
    export REMOTE_NGINX_LOG=$REMOTE_D/access.log
}

# Every request nginx answered before this one is in the log: nginx is one
# process, and it writes a request's line before it serves the next event.
remote_nginx_sync() {
    [ -n "${REMOTE_NGINX_URL:-}" ] && [ -f "${REMOTE_NGINX_LOG:-}" ] ||
        _remote_fail "no nginx: call remote_start_nginx first" || return 1
    curl -s -m 5 -o /dev/null "$REMOTE_NGINX_URL/__sync"
}

remote_nginx_requests() {
    remote_nginx_sync || return 1
    awk -F'\t' -v re="${1:-}" '$2 ~ re { n++ } END { print n + 0 }' "$REMOTE_NGINX_LOG"
}

remote_nginx_bytes() {
    remote_nginx_sync || return 1
    awk -F'\t' -v re="${1:-}" '$2 ~ re { n += $5 } END { printf "%d\n", n }' "$REMOTE_NGINX_LOG"
}

remote_nginx_ranges() {
    remote_nginx_sync || return 1
    awk -F'\t' -v re="${1:-}" '$2 ~ re { print $4 }' "$REMOTE_NGINX_LOG"
}

remote_nginx_log_reset() {
    remote_nginx_sync || return 1
    : >"$REMOTE_NGINX_LOG"
}

# _remote_start_py NAME KIND PY-ARGS...: httpserve.py; its URL in REMOTE_URL, log in REMOTE_LOG
_remote_start_py() {
    local name=$1 kind=$2 pid
    shift 2
    _remote_dir "$name" || return 1
    python3 "$REMOTE_HOME/httpserve.py" "$kind" --port-file "$REMOTE_D/port" \
        --log "$REMOTE_D/requests.log" --parent $$ "$@" </dev/null >"$REMOTE_D/stderr.log" 2>&1 &
    pid=$!
    _remote_add_pid "$pid" "$name"
    _remote_wait_file "$REMOTE_D/port" "$pid" "$name server" "$REMOTE_D/stderr.log" || return 1
    REMOTE_URL=http://127.0.0.1:$(cat "$REMOTE_D/port")
    REMOTE_LOG=$REMOTE_D/requests.log
}

remote_start_changing() {
    [ $# -ge 1 ] && [ $# -le 3 ] && [ -d "$1" ] ||
        _remote_fail "usage: remote_start_changing DIR [strict|ignore] [AFTER]" || return 1
    local f versions=()
    for f in "$1"/*; do [ -f "$f" ] && versions+=("$f"); done
    [ ${#versions[@]} -ge 1 ] || _remote_fail "changing: no files in $1" || return 1
    _remote_start_py changing changing --mode "${2:-strict}" --after "${3:-1}" -- "${versions[@]}" || return 1
    export REMOTE_CHANGING_URL=$REMOTE_URL REMOTE_CHANGING_LOG=$REMOTE_LOG
}

remote_start_slow() {
    [ $# -ge 2 ] && [ $# -le 3 ] && [ -d "$1" ] ||
        _remote_fail "usage: remote_start_slow DIR SECONDS [headers|body]" || return 1
    _remote_start_py slow slow --delay "$2" --stall "${3:-headers}" -- "$1" || return 1
    export REMOTE_SLOW_URL=$REMOTE_URL REMOTE_SLOW_LOG=$REMOTE_LOG
}

remote_start_s3() {
    local unsigned=() pid ports
    if [ "${1:-}" = --allow-unsigned ]; then unsigned=(--allow-unsigned); shift; fi
    [ $# -ge 2 ] || _remote_fail "usage: remote_start_s3 [--allow-unsigned] DATADIR BUCKET [KEY=]FILE..." || return 1
    [ -f "$REMOTE_HOME/s3/node_modules/s3rver/package.json" ] ||
        _remote_fail "tests/remote/s3/node_modules is missing: run 'make test-shell' (it runs npm ci there) or: (cd tests/remote/s3 && npm ci)" ||
        return 1
    command -v node >/dev/null 2>&1 || _remote_fail "node is not installed (make deps)" || return 1
    local dir=$1 bucket=$2
    shift 2
    _remote_dir s3 || return 1
    REMOTE_S3_KEY=${REMOTE_S3_KEY:-S3RVER} REMOTE_S3_SECRET=${REMOTE_S3_SECRET:-S3RVER}
    REMOTE_S3_REGION=${REMOTE_S3_REGION:-us-east-1}
    # s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 keeps in
    # its legacy provider: without it every listing that has a next page is a 500.
    node --openssl-legacy-provider "$REMOTE_HOME/s3/server.mjs" --dir "$dir" --bucket "$bucket" --port-file "$REMOTE_D/port" \
        --log "$REMOTE_D/requests.log" --region "$REMOTE_S3_REGION" --access-key "$REMOTE_S3_KEY" \
        --secret "$REMOTE_S3_SECRET" --parent $$ ${unsigned[@]+"${unsigned[@]}"} "$@" \
        </dev/null >"$REMOTE_D/stderr.log" 2>&1 &
    pid=$!
    _remote_add_pid "$pid" s3
    _remote_wait_file "$REMOTE_D/port" "$pid" "s3 server" "$REMOTE_D/stderr.log" || return 1
    read -r -a ports <"$REMOTE_D/port"
    export REMOTE_S3_URL=http://127.0.0.1:${ports[0]} REMOTE_S3RVER_URL=http://127.0.0.1:${ports[1]}
    export REMOTE_S3_BUCKET=$bucket REMOTE_S3_LOG=$REMOTE_D/requests.log
    export REMOTE_S3_KEY REMOTE_S3_SECRET REMOTE_S3_REGION
}

remote_s3_env() {
    [ -n "${REMOTE_S3_URL:-}" ] || _remote_fail "no s3: call remote_start_s3 first" || return 1
    echo "AWS_ENDPOINT_URL=$REMOTE_S3_URL AWS_ACCESS_KEY_ID=$REMOTE_S3_KEY" \
        "AWS_SECRET_ACCESS_KEY=$REMOTE_S3_SECRET AWS_REGION=$REMOTE_S3_REGION" \
        "AWS_DEFAULT_REGION=$REMOTE_S3_REGION"
}

remote_s3_requests() {
    [ -f "${REMOTE_S3_LOG:-}" ] || _remote_fail "no s3: call remote_start_s3 first" || return 1
    awk -F'\t' -v auth="${1:-}" -v re="${2:-}" \
        '(auth == "" || $4 == auth) && $2 ~ re { n++ } END { print n + 0 }' "$REMOTE_S3_LOG"
}

remote_stop_all() {
    if [ -n "$REMOTE_WATCHDOG" ]; then
        kill -TERM "$REMOTE_WATCHDOG" 2>/dev/null || :
        wait "$REMOTE_WATCHDOG" 2>/dev/null || :
        REMOTE_WATCHDOG=
    fi
    [ ${#REMOTE_PIDS[@]} -gt 0 ] && _remote_stop_pid "${REMOTE_PIDS[@]}"
    REMOTE_PIDS=()
    [ -z "$REMOTE_TMP" ] || rm -rf "$REMOTE_TMP"
    REMOTE_TMP=
    return 0
}
