#!/usr/bin/env bash
# Server speed: wrk on loopback against the release build of reference-server,
# then against Prism's mock server (@stoplight/prism-cli) on spec/openapi.yaml.
#
# Load: wrk -t2 -c32 -d10s --latency, a GET of the component `catalog` (it does
# not require auth) with valid client headers. Prism's mock serves the paths
# without the servers' /v2/api prefix, so it gets /component/catalog/auth.
# Measured per server: requests/s, p99 latency (wrk), and peak RSS of the server
# process (VmHWM from /proc/PID/status, read after the run, before it is ended).
#
# Each server runs twice, each time a fresh process: with its default logging (ours
# writes an access line per request to stderr, Prism an info line per request to
# stdout; both go to a file under target/bench-work/server/), and with logging off
# (ours --quiet, Prism -v silent). Ratios compare like with like.
#
# REPEATS rounds (default 3), each server a fresh process in every round; the
# table holds the median and the range over the rounds, and the largest peak
# RSS. Each measured run follows a WARMUP (default 2 s) of the same load on the same
# process; peak RSS covers both. Only 127.0.0.1 is loaded; every wrk run is
# bounded in time (and by an outer timeout).
#
# Target: ours >= 20x Prism's throughput, ours p99 < 5 ms.
#
# Then memory under slow clients (ours only, a few seconds): MEM_CLIENTS (300)
# connections at once, each sending a 60 KiB JSON body in 4 KiB chunks 100 ms
# apart (benches/slow_clients.py), MEM_WAVES (2) waves one after the other;
# measured: the server's peak RSS (VmHWM) and its RSS once the load is over
# (VmRSS), and how the clients were answered. Rows: the defaults (512
# connections, 16 MiB of bodies in flight), tight caps (64 connections, 4
# MiB), and BASELINE_SERVER=PATH, another build of reference-server (one from
# before the caps), when given.
#
# Usage: benches/server.sh                (from anywhere; writes benches/results/server.md
#                                          and benches/results/server-memory.md)
#        benches/server.sh --memory-only  (the memory measure alone: no wrk, no Prism)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION="${DURATION:-10s}"
REPEATS="${REPEATS:-3}"
WARMUP="${WARMUP:-2s}"
THREADS=2
CONNECTIONS=32
OUT="$RESULTS/server.md"
W="$WORK/server"
rm -rf "$W"
mkdir -p "$W"
HEADERS=(-H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9")
MEMORY_ONLY=0
[ "${1:-}" = "--memory-only" ] && MEMORY_ONLY=1
MEM_CLIENTS="${MEM_CLIENTS:-300}"
MEM_WAVES="${MEM_WAVES:-2}"

# --- tools -------------------------------------------------------------------
if [ "$MEMORY_ONLY" = 0 ]; then
    need_apt wrk wrk
    need_apt curl curl
    need_apt npm npm
    PRISM="$TOOLS/node/node_modules/.bin/prism"
    if [ ! -x "$PRISM" ]; then
        log "installing @stoplight/prism-cli@$PRISM_VERSION (npm) into $TOOLS/node"
        mkdir -p "$TOOLS/node"
        npm install --no-audit --no-fund --prefix "$TOOLS/node" "@stoplight/prism-cli@$PRISM_VERSION"
    fi
    prism_version="$("$PRISM" --version)"
fi

log "building reference-server (release)"
cargo build --release -p reference-server
SERVER="$CARGO_TARGET_DIR/release/reference-server"

# --- one measurement ------------------------------------------------------------
# measure LABEL URL: check that URL answers 200 with the headers, run wrk on it,
# read the server's peak RSS; appends "LABEL<TAB>req/s<TAB>p99 ms<TAB>RSS MiB<TAB>non-2xx"
# to $W/rows.tsv. SERVER_PID is the server process.
measure() {
    local label="$1" url="$2" status f="$W/$1-$RUN"
    status="$(curl -s -o "$f.body" -w '%{http_code}' --max-time 5 "${HEADERS[@]}" "$url")"
    [ "$status" = 200 ] || { cat "$f.body" >&2; die "$label: GET $url answered $status, not 200"; }
    # Warm-up, not measured: the same load for WARMUP (Prism's JIT, our
    # allocator and the kernel's sockets start from the same footing).
    log "$label: warm-up, wrk -d$WARMUP"
    timeout 60 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${HEADERS[@]}" "$url" >"$f.warmup"
    log "$label: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency $url"
    timeout 120 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "${HEADERS[@]}" "$url" >"$f.wrk"
    cat "$f.wrk" >&2
    local hwm
    hwm="$(awk '/^VmHWM:/ {print $2}' "/proc/$SERVER_PID/status")"
    python3 - "$label" "$f.wrk" "$hwm" >>"$W/rows.tsv" <<'PY'
import re, sys
label, path, hwm_kb = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
p99_ms = float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
errors = re.search(r"Socket errors:.*", text)
print("\t".join([label, "%.0f" % rps, "%.3f" % p99_ms, "%.1f" % (hwm_kb / 1024),
                 bad.group(1) if bad else "0", errors.group(0) if errors else ""]))
PY
}

# ours LABEL EXTRA-ARGS...: start the reference server on a free port, measure, stop.
ours() {
    local label="$1"
    shift
    "$SERVER" --port 0 "$@" >"$W/$label-$RUN.stdout" 2>"$W/$label-$RUN.stderr" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local line port
    line="$(wait_for_line "$W/$label-$RUN.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
    port="${line##*:}"
    measure "$label" "http://127.0.0.1:$port/v2/api/component/catalog/auth"
    stop "$SERVER_PID"
}

# prism LABEL EXTRA-ARGS...: start Prism's mock on a free port, measure, stop.
prism() {
    local label="$1" port
    shift
    port="$(free_port)"
    "$PRISM" mock spec/openapi.yaml -p "$port" "$@" >"$W/$label-$RUN.stdout" 2>"$W/$label-$RUN.stderr" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_for_http "http://127.0.0.1:$port/" 120 "$SERVER_PID"
    measure "$label" "http://127.0.0.1:$port/component/catalog/auth"
    stop "$SERVER_PID"
}

# memory LABEL BINARY ARGS...: start BINARY --port 0 --quiet ARGS, run the slow
# clients MEM_WAVES times, read VmRSS before, VmHWM and VmRSS after; appends
# "LABEL<TAB>args<TAB>start MiB<TAB>peak MiB<TAB>after MiB<TAB>answers" to $W/memory.tsv.
memory() {
    local label="$1" bin="$2"
    shift 2
    "$bin" --port 0 --quiet "$@" >"$W/$label.stdout" 2>"$W/$label.stderr" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local line port wave answers=() start_kb
    line="$(wait_for_line "$W/$label.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
    port="${line##*:}"
    start_kb="$(awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status")"
    for ((wave = 1; wave <= MEM_WAVES; wave++)); do
        log "$label: wave $wave, $MEM_CLIENTS slow clients x 60 KiB"
        answers+=("$(timeout 120 python3 benches/slow_clients.py "$port" "$MEM_CLIENTS" 61440 4096 0.1)")
    done
    sleep 1
    local hwm rss
    hwm="$(awk '/^VmHWM:/ {print $2}' "/proc/$SERVER_PID/status")"
    rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status")"
    stop "$SERVER_PID"
    awk -v l="$label" -v a="${*:-(defaults)}" -v s="$start_kb" -v h="$hwm" -v r="$rss" -v ans="$(IFS=';'; echo "${answers[*]}")" \
        'BEGIN { printf "%s\t%s\t%.1f\t%.1f\t%.1f\t%s\n", l, a, s / 1024, h / 1024, r / 1024, ans }' >>"$W/memory.tsv"
}

warn_if_busy
if [ "$MEMORY_ONLY" = 0 ]; then
warn_if_busy
: >"$W/rows.tsv"
# Rounds interleave the four, so a passing disturbance falls on all of them alike.
for ((round = 1; round <= REPEATS; round++)); do
    log "round $round of $REPEATS"
    RUN="r$round"
    ours ours-default
    ours ours-quiet --quiet
    prism prism-default
    prism prism-silent -v silent
done

# --- the table ----------------------------------------------------------------------
python3 - "$W/rows.tsv" "$prism_version" "$DURATION" "$REPEATS" "$(machine)" >"$OUT" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    label, rps, p99, rss, bad, errs = line.rstrip("\n").split("\t")
    runs.setdefault(label, []).append(dict(rps=float(rps), p99=float(p99), rss=float(rss), bad=int(bad), errs=errs))
# Per server: the median and range of requests/s and of p99 over the rounds,
# the largest peak RSS, every non-2xx answer.
rows = {}
for label, rs in runs.items():
    rps, p99 = [r["rps"] for r in rs], [r["p99"] for r in rs]
    rows[label] = dict(
        rps=statistics.median(rps), rps_lo=min(rps), rps_hi=max(rps),
        p99=statistics.median(p99), p99_lo=min(p99), p99_hi=max(p99),
        rss=max(r["rss"] for r in rs), bad=sum(r["bad"] for r in rs),
        errs="; ".join(r["errs"] for r in rs if r["errs"]),
    )
prism_version, duration, repeats, machine = sys.argv[2:6]
names = {
    "ours-default": "ours: `reference-server --port 0` (access log to a file)",
    "ours-quiet": "ours: `reference-server --port 0 --quiet`",
    "prism-default": f"Prism {prism_version}: `prism mock spec/openapi.yaml` (info log to a file)",
    "prism-silent": f"Prism {prism_version}: `prism mock spec/openapi.yaml -v silent`",
}
pairs = {"ours-default": "prism-default", "ours-quiet": "prism-silent"}
print(f"### Server: wrk -t2 -c32 -d{duration} --latency, GET `.../component/catalog/auth` with valid client headers, loopback, median of {repeats} runs")
print()
print("| Server | requests/s (min–max) | p99 latency (min–max) | peak RSS | non-2xx | ours / Prism (requests/s) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for label in ["ours-default", "ours-quiet", "prism-default", "prism-silent"]:
    r = rows[label]
    ratio = "%.1f×" % (r["rps"] / rows[pairs[label]]["rps"]) if label in pairs else ""
    print(f"| {names[label]} | {r['rps']:,.0f} ({r['rps_lo']:,.0f}–{r['rps_hi']:,.0f}) "
          f"| {r['p99']:.2f} ms ({r['p99_lo']:.2f}–{r['p99_hi']:.2f}) | {r['rss']:.1f} MiB | {r['bad']} | {ratio} |")
errs = [f"{l}: {r['errs']}" for l, r in rows.items() if r["errs"]]
if errs:
    print()
    print("wrk reported: " + "; ".join(errs) + ".")
print()
print(f"Target: ours ≥ 20× Prism's throughput, p99 < 5 ms. Machine: {machine}; wrk and the server share its cores.")
PY
cat "$OUT"
fi

# --- memory under slow clients ----------------------------------------------------
: >"$W/memory.tsv"
if [ -n "${BASELINE_SERVER:-}" ]; then
    memory baseline "$BASELINE_SERVER"
fi
memory ours "$SERVER"
memory ours-tight "$SERVER" --max-connections 64 --max-inflight-body-bytes 4194304
MEM_OUT="$RESULTS/server-memory.md"
{
    echo "### Server memory: $MEM_CLIENTS slow clients at once, each a 60 KiB body in 4 KiB chunks 100 ms apart, $MEM_WAVES waves"
    echo
    echo "| Server | flags | RSS at start | peak RSS (VmHWM) | RSS after the load | answers per wave |"
    echo "| --- | --- | ---: | ---: | ---: | --- |"
    while IFS=$'\t' read -r label args start hwm rss answers; do
        name="ours"
        [ "$label" = baseline ] && name="baseline: \`$BASELINE_SERVER\`"
        echo "| $name | \`$args\` | $start MiB | $hwm MiB | $rss MiB | $answers |"
    done <"$W/memory.tsv"
    echo
    echo "Machine: $(machine)."
} >"$MEM_OUT"
cat "$MEM_OUT"
