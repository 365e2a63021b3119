#!/usr/bin/env bash
# Throughput and latency of the reference server beside Prism's mock server
# on the same spec: wrk on loopback, a GET with valid headers, release build.
#
#   reference-server/bench/bench.sh            # 10 s, 32 connections, 2 threads
#   DURATION=30s CONNS=64 reference-server/bench/bench.sh
#   SKIP_PRISM=1 reference-server/bench/bench.sh
#
# Needs wrk (Debian package `wrk`, installed here when run as root) and, for
# the comparison, npm (Prism, npm package @stoplight/prism-cli, is installed
# under target/bench/prism). Prints a Markdown table for the README.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
DURATION="${DURATION:-10s}"
CONNS="${CONNS:-32}"
THREADS="${THREADS:-2}"
PRISM_VERSION="${PRISM_VERSION:-5}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y -qq wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
    else
        echo "bench: wrk is missing; install the Debian package: sudo apt-get install wrk" >&2
        exit 1
    fi
fi

HEADERS=(-H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9")

# wrk's summary as "rps p99_ms errors".
summarise() {
    awk '
        /Requests\/sec:/ { rps = $2 }
        /^ +99%/ {
            v = $2; unit = v; gsub(/[0-9.]/, "", unit); sub(/[a-z]+$/, "", v);
            p99 = (unit == "us") ? v / 1000 : (unit == "s") ? v * 1000 : (unit == "m") ? v * 60000 : v
        }
        /Non-2xx or 3xx responses:/ { errors = $5 }
        /Socket errors:/ { errors = errors " socket(" $0 ")" }
        END { printf "%s %.3f %s\n", rps, p99, (errors == "" ? 0 : errors) }
    ' "$1"
}

peak_rss_mib() {
    awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"
}

wait_for_port() {
    for _ in $(seq 1 300); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "bench: nothing listens on port $1" >&2
    return 1
}

echo "bench: building the release binary" >&2
cargo build --release -q -p reference-server
"$TARGET/release/reference-server" --port 0 --quiet >"$WORK/server.out" &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 1 100); do [ -s "$WORK/server.out" ] && break; sleep 0.05; done
URL="$(head -n1 "$WORK/server.out" | sed 's/^listening on //')"
echo "bench: reference server at $URL" >&2
wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "${HEADERS[@]}" \
    "$URL/v2/api/component/catalog/auth" >"$WORK/server.wrk"
read -r S_RPS S_P99 S_ERR < <(summarise "$WORK/server.wrk")
S_RSS="$(peak_rss_mib "$SERVER")"
kill -TERM "$SERVER"; wait "$SERVER" || true

P_RPS=""; P_P99=""; P_ERR=""; P_RSS=""
if [ -z "${SKIP_PRISM:-}" ]; then
    PRISM_DIR="${PRISM_DIR:-$TARGET/bench/prism}"
    if [ ! -x "$PRISM_DIR/node_modules/.bin/prism" ]; then
        echo "bench: installing @stoplight/prism-cli@$PRISM_VERSION into $PRISM_DIR" >&2
        mkdir -p "$PRISM_DIR"
        npm install --prefix "$PRISM_DIR" --no-audit --no-fund --silent "@stoplight/prism-cli@$PRISM_VERSION" >&2
    fi
    PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # Prism serves the spec's paths without the servers' /v2/api prefix.
    node "$PRISM_DIR/node_modules/@stoplight/prism-cli/dist/index.js" mock -h 127.0.0.1 -p "$PORT" \
        spec/openapi.yaml >"$WORK/prism.log" 2>&1 &
    PRISM=$!
    PIDS+=("$PRISM")
    wait_for_port "$PORT"
    echo "bench: prism at http://127.0.0.1:$PORT" >&2
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "${HEADERS[@]}" \
        "http://127.0.0.1:$PORT/component/catalog/auth" >"$WORK/prism.wrk"
    read -r P_RPS P_P99 P_ERR < <(summarise "$WORK/prism.wrk")
    P_RSS="$(peak_rss_mib "$PRISM")"
    kill -TERM "$PRISM"; wait "$PRISM" || true
fi

echo
echo "wrk -t$THREADS -c$CONNS -d$DURATION, GET .../component/catalog/auth with valid headers, $(nproc) cores"
echo
echo "| server | requests/s | p99 latency | peak RSS | non-2xx |"
echo "|---|---:|---:|---:|---:|"
echo "| reference-server (release) | $S_RPS | $S_P99 ms | $S_RSS MiB | $S_ERR |"
if [ -n "$P_RPS" ]; then
    echo "| Prism mock $PRISM_VERSION | $P_RPS | $P_P99 ms | $P_RSS MiB | $P_ERR |"
    awk -v a="$S_RPS" -v b="$P_RPS" 'BEGIN { if (b > 0) printf "\nthroughput ratio: %.1fx\n", a / b }'
fi
