#!/usr/bin/env bash
# A two-node ternd cluster on this machine, for trying it out (docs/deploy.md).
#
#   scripts/cluster-demo.sh [--balancer haproxy|nginx] [--for SECONDS | --check]
#
# Starts, all on 127.0.0.1 and all in one temporary directory:
#   - a private PostgreSQL server (initdb + postgres on a free port; as root it runs as the
#     `postgres` user, as anyone else as that user), with a role and a database `tern`;
#   - two ternd nodes, node-a and node-b, on that database, with one random API token and one
#     shared data directory (uploaded files);
#   - a load balancer in front of them (HAProxy, else nginx), round-robin, WebSocket upgrades
#     passed through, each response tagged `X-Tern-Upstream: HOST:PORT` of the node that served it.
# Then it prints where to point tern or an SDK and waits for Ctrl-C (or --for SECONDS). With
# --check it runs a smoke test instead and exits 0 (passed) or 1. Everything it started is
# stopped by PID on exit, and the temporary directory removed (TERN_DEMO_KEEP=1 keeps it, with
# the logs; TERN_DEMO_LOG_LEVEL sets the nodes' --log-level, default info; TERN_DEMO_NODE_ARGS
# adds options to each node's `ternd serve`, e.g. "--max-messages-per-second 0" for a benchmark;
# TERN_DEMO_PG_ARGS adds options to `postgres`, e.g. "-c log_min_duration_statement=0 -c
# track_functions=all" to time every statement in $WORK/pg/server.log and every function).
#
# The ternd binary: $TERND, else .build/debug/ternd or .build/release/ternd (the newer), else
# `swift build --product ternd`. tern (for the example and the relay check): $TERN, else the one
# beside ternd, else tern on PATH. PostgreSQL: $PG_BIN, else the newest /usr/lib/postgresql/*/bin,
# else initdb on PATH.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

MODE=wait
FOR=""
BALANCER=""
while [ $# -gt 0 ]; do
    case $1 in
        --check) MODE=check ;;
        --for) [ $# -ge 2 ] || { echo "cluster-demo: --for needs SECONDS" >&2; exit 2; }; FOR=$2; shift ;;
        --for=*) FOR=${1#--for=} ;;
        --balancer) [ $# -ge 2 ] || { echo "cluster-demo: --balancer needs haproxy or nginx" >&2; exit 2; }; BALANCER=$2; shift ;;
        --balancer=*) BALANCER=${1#--balancer=} ;;
        -h|--help) usage; exit 0 ;;
        *) echo "cluster-demo: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
if [ -n "$FOR" ] && ! [[ $FOR =~ ^[0-9]+$ ]]; then
    echo "cluster-demo: --for takes whole seconds, not '$FOR'" >&2
    exit 2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf 'cluster-demo: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# ---------------------------------------------------------------- binaries

if [ -n "${TERND:-}" ]; then
    [ -x "$TERND" ] || die "\$TERND=$TERND is not an executable"
else
    debug=$ROOT/.build/debug/ternd release=$ROOT/.build/release/ternd
    if [ -x "$debug" ] && [ -x "$release" ]; then
        if [ "$release" -nt "$debug" ]; then TERND=$release; else TERND=$debug; fi
    elif [ -x "$debug" ]; then TERND=$debug
    elif [ -x "$release" ]; then TERND=$release
    else
        say "no ternd in $ROOT/.build: swift build --product ternd"
        (cd "$ROOT" && swift build --product ternd) >&2
        TERND=$ROOT/.build/debug/ternd
        [ -x "$TERND" ] || die "swift build made no $TERND"
    fi
fi
TERND=$(cd "$(dirname "$TERND")" && pwd)/$(basename "$TERND")

TERN_BIN=${TERN:-}
if [ -z "$TERN_BIN" ]; then
    if [ -x "$(dirname "$TERND")/tern" ]; then TERN_BIN=$(dirname "$TERND")/tern
    else TERN_BIN=$(command -v tern || true)
    fi
fi

PGB=${PG_BIN:-}
if [ -z "$PGB" ]; then
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n -r); do
        if [ -x "$d/postgres" ]; then PGB=$d; break; fi
    done
fi
if [ -z "$PGB" ] && command -v initdb >/dev/null; then PGB=$(dirname "$(command -v initdb)"); fi
[ -n "$PGB" ] && [ -x "$PGB/initdb" ] && [ -x "$PGB/postgres" ] ||
    die "PostgreSQL server binaries not found (apt-get install postgresql, or set PG_BIN)"

if [ -z "$BALANCER" ]; then
    if command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ]; then BALANCER=haproxy
    elif command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then BALANCER=nginx
    else die "neither haproxy nor nginx is installed (apt-get install haproxy)"
    fi
fi
case $BALANCER in
    haproxy|nginx) ;;
    *) die "--balancer takes haproxy or nginx, not '$BALANCER'" ;;
esac
BALANCER_BIN=$(command -v "$BALANCER" || echo "/usr/sbin/$BALANCER")
[ -x "$BALANCER_BIN" ] || die "$BALANCER is not installed (apt-get install $BALANCER)"
command -v curl >/dev/null || die "curl is needed"

# ---------------------------------------------------------------- cleanup

WORK=""
SLEEPER=""
PIDS=()      # everything started, in start order
NAMES=()
declare -A REPORTED=()

alive() { # PID: running (a zombie is not)
    local s
    s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [ -n "$s" ] && [ "$s" != Z ]
}

stop_pid() { # PID SIGNAL SECONDS: signal, wait, then SIGKILL
    local pid=$1 sig=$2 secs=$3 i
    alive "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
    kill "-$sig" "$pid" 2>/dev/null || true
    for ((i = 0; i < secs * 10; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        say "pid $pid did not stop after SIG$sig in ${secs}s: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    return 0
}

cleanup() {
    local rc=$? i
    set +e
    trap - EXIT INT TERM
    [ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
    if [ ${#PIDS[@]} -gt 0 ]; then
        say "stopping ${NAMES[*]}"
        # The reverse of the start order: the balancer, the nodes, then PostgreSQL.
        for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
            case ${NAMES[$i]} in
                postgres) stop_pid "${PIDS[$i]}" INT 30 ;;   # fast shutdown
                node-*) stop_pid "${PIDS[$i]}" TERM 20 ;;
                *) stop_pid "${PIDS[$i]}" TERM 10 ;;
            esac
        done
    fi
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then
        if [ "${TERN_DEMO_KEEP:-}" = 1 ]; then say "kept $WORK"
        else rm -rf "$WORK"
        fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

started() { # NAME PID
    NAMES+=("$1")
    PIDS+=("$2")
}

show_log() { # FILE: its last lines, on failure
    [ -s "$1" ] || return 0
    say "--- last lines of $1:"
    tail -n 20 "$1" | sed 's/^/    /' >&2
}

# A free TCP port on 127.0.0.1 (nothing accepts on it now; the caller retries if it loses a race).
free_port() {
    local p i
    for ((i = 0; i < 100; i++)); do
        p=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    die "no free port found"
}

accepts() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# ---------------------------------------------------------------- PostgreSQL

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tern-cluster.XXXXXX")
chmod 711 "$WORK"   # the postgres user must reach $WORK/pg
PGDIR=$WORK/pg
mkdir -m 700 "$PGDIR"

if [ "$(id -u)" = 0 ]; then
    # PostgreSQL refuses to run as root: initdb and postgres run as the postgres user.
    PG_OS_USER=postgres
    id "$PG_OS_USER" >/dev/null 2>&1 || PG_OS_USER=nobody
    chown "$PG_OS_USER:" "$PGDIR" 2>/dev/null || chown "$PG_OS_USER" "$PGDIR"
    command -v setpriv >/dev/null || die "setpriv (util-linux) is needed to run PostgreSQL as $PG_OS_USER"
    AS_PG=(setpriv "--reuid=$PG_OS_USER" "--regid=$(id -g "$PG_OS_USER")" --init-groups)
else
    PG_OS_USER=$(id -un)
    AS_PG=(env)
fi

PG_SUPER_PASSWORD=$(random_hex 16)
TERN_DB_PASSWORD=$(random_hex 16)
TOKEN=$(random_hex 20)

printf '%s\n' "$PG_SUPER_PASSWORD" > "$PGDIR/pwfile"
[ "$(id -u)" = 0 ] && chown "$PG_OS_USER" "$PGDIR/pwfile"
chmod 600 "$PGDIR/pwfile"
say "initdb ($PGB, as $PG_OS_USER) in $PGDIR/data"
if ! (cd "$PGDIR" && exec "${AS_PG[@]}" "$PGB/initdb" -D "$PGDIR/data" -U postgres --pwfile="$PGDIR/pwfile" \
        -A scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync) > "$PGDIR/initdb.log" 2>&1; then
    show_log "$PGDIR/initdb.log"
    die "initdb failed"
fi
rm -f "$PGDIR/pwfile"

PG_PORT=""
for attempt in 1 2 3 4 5; do
    port=$(free_port)
    # `exec`: $! is the postmaster itself (setpriv and env exec it too).
    (cd "$PGDIR" && exec "${AS_PG[@]}" "$PGB/postgres" -D "$PGDIR/data" -p "$port" -k "$PGDIR" \
        -c listen_addresses=127.0.0.1 -c logging_collector=off -c max_connections=200 ${TERN_DEMO_PG_ARGS:-}) \
        >> "$PGDIR/server.log" 2>&1 &
    pid=$!
    for ((i = 0; i < 300; i++)); do
        alive "$pid" || break
        if "$PGB/pg_isready" -q -h 127.0.0.1 -p "$port" -t 1; then PG_PORT=$port; break; fi
        sleep 0.1
    done
    if [ -n "$PG_PORT" ]; then started postgres "$pid"; break; fi
    stop_pid "$pid" INT 10
    say "postgres did not start on port $port (attempt $attempt)"
done
[ -n "$PG_PORT" ] || { show_log "$PGDIR/server.log"; die "PostgreSQL did not start"; }
say "postgres pid $pid on 127.0.0.1:$PG_PORT"

psql_admin() {
    PGPASSWORD=$PG_SUPER_PASSWORD "$PGB/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"
}
psql_admin -d postgres -c "CREATE ROLE tern LOGIN PASSWORD '$TERN_DB_PASSWORD'" >/dev/null
PGPASSWORD=$PG_SUPER_PASSWORD "$PGB/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres -O tern tern
DB_URL="postgres://tern:$TERN_DB_PASSWORD@127.0.0.1:$PG_PORT/tern"

# ---------------------------------------------------------------- ternd nodes

# Each node has a data directory of its own, as on separate machines (uploaded files and data
# exports are in PostgreSQL).
DATA=$WORK/data
mkdir -m 700 "$DATA"
declare -A NODE_PORT=() NODE_PID=()

start_node() { # NAME
    local name=$1 pid line i
    # The database URL (it holds a password) and the token go in the environment, out of `ps`.
    TERND_DATABASE=$DB_URL TERND_API_TOKEN=$TOKEN \
        "$TERND" serve --node-id "$name" --host 127.0.0.1 --port 0 --data-dir "$DATA/$name" \
        --log-level "${TERN_DEMO_LOG_LEVEL:-info}" ${TERN_DEMO_NODE_ARGS:-} \
        > "$WORK/$name.out" 2> "$WORK/$name.log" &
    pid=$!
    started "$name" "$pid"
    line=""
    for ((i = 0; i < 1200; i++)); do   # a debug build on a fresh database may take a while
        line=$(grep -m1 '^listening ' "$WORK/$name.out" 2>/dev/null || true)
        [ -n "$line" ] && break
        alive "$pid" || break
        sleep 0.1
    done
    if [ -z "$line" ]; then
        show_log "$WORK/$name.log"
        die "$name did not start"
    fi
    NODE_PID[$name]=$pid
    NODE_PORT[$name]=${line##*:}
    say "$name pid $pid on 127.0.0.1:${NODE_PORT[$name]}"
}

# One after the other: the first applies the schema migrations.
start_node node-a
start_node node-b
PORT_A=${NODE_PORT[node-a]}
PORT_B=${NODE_PORT[node-b]}

# ---------------------------------------------------------------- load balancer

write_haproxy_config() { # PORT
    cat > "$WORK/haproxy.cfg" <<EOF
# Written by scripts/cluster-demo.sh (docs/deploy.md has the production version).
global
    # No maxconn: HAProxy derives it from the open-file limit (a larger one than the limit allows
    # would stop it at start).

defaults
    mode http
    option redispatch
    retries 2
    timeout connect 5s
    timeout http-request 10s
    timeout client 60s
    timeout server 60s
    # After a WebSocket upgrade: how long a quiet socket may stay open (ternd pings every 30 s).
    timeout tunnel 1h
    timeout client-fin 10s

frontend tern
    bind 127.0.0.1:$1
    default_backend ternd

backend ternd
    # Round-robin, so that two successive connections visibly go to different nodes (docs/deploy.md
    # uses leastconn, better for long-lived WebSockets).
    balance roundrobin
    # GET / answers 200 {} (the SDK's warm-up request).
    option httpchk GET /
    http-check expect status 200
    http-response set-header X-Tern-Upstream %si:%sp
    server node-a 127.0.0.1:$PORT_A check inter 1s fall 2 rise 2
    server node-b 127.0.0.1:$PORT_B check inter 1s fall 2 rise 2
EOF
}

write_nginx_config() { # PORT
    mkdir -p "$WORK/nginx"
    cat > "$WORK/nginx/nginx.conf" <<EOF
# Written by scripts/cluster-demo.sh (docs/deploy.md has the production version).
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;

events {
    worker_connections 2000;
}

http {
    access_log $WORK/nginx/access.log;
    client_body_temp_path $WORK/nginx/client_body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;

    map \$http_upgrade \$connection_upgrade {
        default upgrade;
        ''      close;
    }

    upstream ternd {
        server 127.0.0.1:$PORT_A max_fails=1 fail_timeout=10s;
        server 127.0.0.1:$PORT_B max_fails=1 fail_timeout=10s;
    }

    server {
        listen 127.0.0.1:$1;
        client_max_body_size 26m;

        location / {
            proxy_pass http://ternd;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            proxy_request_buffering off;
            add_header X-Tern-Upstream \$upstream_addr always;
        }
    }
}
EOF
}

LB_PORT=""
for attempt in 1 2 3 4 5; do
    port=$(free_port)
    if [ "$BALANCER" = haproxy ]; then
        write_haproxy_config "$port"
        "$BALANCER_BIN" -c -q -f "$WORK/haproxy.cfg" > "$WORK/haproxy.log" 2>&1 ||
            { show_log "$WORK/haproxy.log"; die "haproxy refused its config"; }
        # -db: foreground, no daemon, no master process: $! is haproxy.
        "$BALANCER_BIN" -db -f "$WORK/haproxy.cfg" >> "$WORK/haproxy.log" 2>&1 &
        log=$WORK/haproxy.log
    else
        write_nginx_config "$port"
        "$BALANCER_BIN" -p "$WORK/nginx/" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -t \
            > "$WORK/nginx/check.log" 2>&1 ||
            { show_log "$WORK/nginx/check.log"; die "nginx refused its config"; }
        # daemon off: $! is the nginx master; it stops its workers on SIGTERM.
        "$BALANCER_BIN" -p "$WORK/nginx/" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" \
            >> "$WORK/nginx/stderr.log" 2>&1 &
        log=$WORK/nginx/error.log
    fi
    pid=$!
    for ((i = 0; i < 100; i++)); do
        alive "$pid" || break
        if accepts "$port"; then LB_PORT=$port; break; fi
        sleep 0.1
    done
    if [ -n "$LB_PORT" ]; then started "$BALANCER" "$pid"; break; fi
    stop_pid "$pid" TERM 5
    say "$BALANCER did not start on port $port (attempt $attempt)"
done
[ -n "$LB_PORT" ] || { show_log "$log"; die "$BALANCER did not start"; }
say "$BALANCER pid $pid on 127.0.0.1:$LB_PORT"
LB=http://127.0.0.1:$LB_PORT

# ---------------------------------------------------------------- check

FAILED=0
pass() { printf '  ok    %s\n' "$*"; }
fail() { printf '  FAIL  %s\n' "$*"; FAILED=1; }

# CODE BODY UPSTREAM of one REST call: rest METHOD URL [BODY]
rest() {
    local method=$1 url=$2 out data=()
    [ $# -ge 3 ] && data=(--data "$3")
    out=$(curl -sS -m 10 -D "$WORK/headers" -o "$WORK/body" -w '%{http_code}' -X "$method" \
        -H "Api-Token: $TOKEN" -H 'Content-Type: application/json' "${data[@]}" "$url") || out=000
    REST_CODE=$out
    REST_BODY=$(cat "$WORK/body" 2>/dev/null || true)
    REST_UPSTREAM=$(tr -d '\r' < "$WORK/headers" 2>/dev/null | awk -F': ' 'tolower($1) == "x-tern-upstream" {print $2}')
}

node_of() { # HOST:PORT -> node name
    case ${1##*:} in
        "$PORT_A") echo node-a ;;
        "$PORT_B") echo node-b ;;
        *) echo "?($1)" ;;
    esac
}

# A WebSocket upgrade as the Sendbird SDK makes it; prints the status line, the upstream, and
# whether the server's LOGI frame followed.
ws_upgrade() { # USER
    local out status up logi
    out=$(curl -sS -i -N -m 3 \
        -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
        -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \
        "$LB/?p=JS&pv=x&sv=4.0.0&ai=LOCAL&user_id=$1" 2>/dev/null | tr -d '\r' | tr '\0' ' ' || true)
    status=$(printf '%s\n' "$out" | head -n1)
    up=$(printf '%s\n' "$out" | awk -F': ' 'tolower($1) == "x-tern-upstream" {print $2; exit}')
    if printf '%s' "$out" | grep -aq 'LOGI'; then logi=yes; else logi=no; fi
    echo "$status|$up|$logi"
}

run_check() {
    echo "smoke check through $BALANCER at $LB:"
    local u seen=""
    for u in alice bob; do
        local nick
        nick="$(tr '[:lower:]' '[:upper:]' <<< "${u:0:1}")${u:1}"
        rest POST "$LB/v3/users" "{\"user_id\":\"$u\",\"nickname\":\"$nick\",\"profile_url\":\"\"}"
        if [ "$REST_CODE" = 200 ] && [[ $REST_BODY == *"\"user_id\":\"$u\""* ]]; then
            pass "POST /v3/users $u -> 200 (served by $(node_of "$REST_UPSTREAM"))"
        else
            fail "POST /v3/users $u -> $REST_CODE $REST_BODY"
        fi
        seen+=" $(node_of "$REST_UPSTREAM")"
    done
    rest GET "$LB/v3/users/alice"
    if [ "$REST_CODE" = 200 ] && [[ $REST_BODY == *'"nickname":"Alice"'* ]]; then
        pass "GET /v3/users/alice -> 200, nickname Alice (served by $(node_of "$REST_UPSTREAM"))"
    else
        fail "GET /v3/users/alice -> $REST_CODE $REST_BODY"
    fi
    seen+=" $(node_of "$REST_UPSTREAM")"
    for u in a b; do
        local p=$PORT_A
        [ $u = b ] && p=$PORT_B
        rest GET "http://127.0.0.1:$p/v3/users/bob"
        if [ "$REST_CODE" = 200 ] && [[ $REST_BODY == *'"user_id":"bob"'* ]]; then
            pass "GET /v3/users/bob straight from node-$u -> 200 (one database)"
        else
            fail "GET /v3/users/bob from node-$u -> $REST_CODE $REST_BODY"
        fi
    done
    rest GET "$LB/v3/users/alice"
    seen+=" $(node_of "$REST_UPSTREAM")"
    if [[ $seen == *node-a* && $seen == *node-b* ]]; then
        pass "REST calls were spread over both nodes:$seen"
    else
        fail "REST calls did not reach both nodes:$seen"
    fi

    local r1 r2 s1 s2 n1 n2
    r1=$(ws_upgrade alice)
    r2=$(ws_upgrade bob)
    IFS='|' read -r s1 n1 l1 <<< "$r1"
    IFS='|' read -r s2 n2 l2 <<< "$r2"
    for r in "alice|$s1|$n1|$l1" "bob|$s2|$n2|$l2"; do
        IFS='|' read -r u s n l <<< "$r"
        if [[ $s == *" 101"* ]] && [ "$l" = yes ]; then
            pass "WebSocket upgrade as $u -> $s, LOGI received (served by $(node_of "$n"))"
        else
            fail "WebSocket upgrade as $u -> '${s:-no answer}', LOGI: $l"
        fi
    done
    if [ -n "$n1" ] && [ -n "$n2" ] && [ "$n1" != "$n2" ]; then
        pass "two successive WebSocket connections landed on different nodes"
    else
        fail "the two WebSocket connections went to '$n1' and '$n2'"
    fi

    # A message sent on node-b reaches a client connected to node-a (relayed through the database).
    if [ -n "$TERN_BIN" ] && [ -x "$TERN_BIN" ]; then
        local home=$WORK/tern-home text tpid i got=no
        mkdir -p "$home"
        text="relay-check-$(random_hex 4)"
        HOME=$home XDG_CONFIG_HOME=$home/config XDG_CACHE_HOME=$home/cache XDG_STATE_HOME=$home/state \
            "$TERN_BIN" tail --server "http://127.0.0.1:$PORT_A" --user bob --json > "$WORK/tail.out" 2> "$WORK/tail.err" &
        tpid=$!
        for ((i = 0; i < 100; i++)); do
            grep -q '"connected"' "$WORK/tail.out" 2>/dev/null && break
            alive "$tpid" || break
            sleep 0.1
        done
        if HOME=$home XDG_CONFIG_HOME=$home/config XDG_CACHE_HOME=$home/cache XDG_STATE_HOME=$home/state \
            "$TERN_BIN" send --server "http://127.0.0.1:$PORT_B" --user alice --to bob "$text" > "$WORK/send.out" 2>&1; then
            for ((i = 0; i < 100; i++)); do
                if grep -q "$text" "$WORK/tail.out" 2>/dev/null; then got=yes; break; fi
                sleep 0.1
            done
            if [ $got = yes ]; then
                pass "tern send on node-b -> tern tail on node-a got the message (relayed through cluster_events)"
            else
                fail "tern tail on node-a did not get the message sent on node-b"
                show_log "$WORK/tail.out"; show_log "$WORK/tail.err"
            fi
        else
            fail "tern send on node-b failed: $(cat "$WORK/send.out")"
        fi
        stop_pid "$tpid" TERM 5
    else
        echo "  skip  relay check (no tern binary; set \$TERN)"
    fi

    if [ $FAILED = 0 ]; then
        echo "smoke check passed"
    else
        echo "smoke check FAILED"
        show_log "$WORK/node-a.log"; show_log "$WORK/node-b.log"; show_log "$log"
    fi
}

if [ "$MODE" = check ]; then
    run_check
    exit "$FAILED"
fi

# ---------------------------------------------------------------- wait

TERN_EXAMPLE=${TERN_BIN:-tern}
if [ "$BALANCER" = haproxy ]; then LB_CONFIG=$WORK/haproxy.cfg; else LB_CONFIG=$WORK/nginx/nginx.conf; fi
cat <<EOF

ternd cluster up ($BALANCER in front of two nodes on one PostgreSQL):

  Point tern or an SDK at:  $LB   (WebSocket: ws://127.0.0.1:$LB_PORT/)
  API token (Api-Token):    $TOKEN
  node-a:                   http://127.0.0.1:$PORT_A   pid ${NODE_PID[node-a]}   log $WORK/node-a.log
  node-b:                   http://127.0.0.1:$PORT_B   pid ${NODE_PID[node-b]}   log $WORK/node-b.log
  PostgreSQL:               $DB_URL   (pid ${PIDS[0]})
  data directories:         $DATA/node-a, $DATA/node-b (files and exports are in PostgreSQL)
$(printf '  %-26s%s' "$BALANCER config:" "$LB_CONFIG")

Try:
  TERN_SERVER=$LB $TERN_EXAMPLE --user alice
  $TERN_EXAMPLE send --server $LB --user bob --to alice 'hello from bob'
  curl -H 'Api-Token: $TOKEN' $LB/v3/users
  kill ${NODE_PID[node-a]}    # node-a dies: its clients reconnect through the balancer to node-b

EOF
if [ -n "$FOR" ]; then
    say "running for $FOR s (Ctrl-C stops everything)"
else
    say "running; Ctrl-C stops everything"
fi

start=$SECONDS
while [ -z "$FOR" ] || [ $((SECONDS - start)) -lt "$FOR" ]; do
    sleep 1 &
    SLEEPER=$!
    wait "$SLEEPER" || true
    for ((i = 0; i < ${#PIDS[@]}; i++)); do
        p=${PIDS[$i]}
        if [ -z "${REPORTED[$p]:-}" ] && ! alive "$p"; then
            REPORTED[$p]=1
            say "${NAMES[$i]} (pid $p) has exited"
        fi
    done
done
exit 0
