#!/usr/bin/env bash
# The validating proxy beside Prism's (`prism proxy`), on one loopback setup:
# the reference server (release, --quiet) as the upstream; wrk -t2 -c32
# -d10s --latency, a valid GET of the component `catalog`, straight to the
# server, through `conformance proxy`, through `prism proxy spec/openapi.yaml`.
# Per proxy: requests/s, p99, the p99 it adds over the direct run, and its
# peak RSS (VmHWM). Memory flat over many exchanges: the proxy's RSS after
# one round and after REPEATS rounds (each exchange judged, then dropped).
# Fair: one run, the same server and wrk settings for all three, each
# warmed up 2 s before it is timed, the rounds interleaved. CPU per
# exchange of the proxy, the server and wrk (from /proc/PID/stat and bash's
# `time`): on a machine whose cores all three share, their sum bounds the
# rate any proxy can reach.
#
# Usage: benches/proxy.sh    (DURATION=10s REPEATS=3; writes benches/results/proxy.md)
#        BASELINE=path/to/an/older/conformance benches/proxy.sh: that binary's
#        proxy measured too, in the same rounds (a change's before and after).
BASELINE="${BASELINE:-}"
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION="${DURATION:-10s}"
REPEATS="${REPEATS:-3}"
OUT="$RESULTS/proxy.md"
W="$WORK/proxy"
rm -rf "$W"
mkdir -p "$W"
HEADERS=(-H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9")

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

warn_if_busy
log "building conformance and reference-server (release)"
cargo build --release -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"

"$SERVER" --port 0 --quiet >"$W/server.stdout" 2>/dev/null &
SERVER_PID=$!
PIDS+=("$SERVER_PID")
line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
UPSTREAM="http://127.0.0.1:${line##*:}"
sed "s#^base_url: .*#base_url: $UPSTREAM#" conformance/profiles/reference.yaml >"$W/profile.yaml"

"$CONFORMANCE" proxy --profile "$W/profile.yaml" --json "$W/proxy.json" >"$W/proxy.stdout" 2>"$W/proxy.stderr" &
PROXY_PID=$!
PIDS+=("$PROXY_PID")
line="$(wait_for_line "$W/proxy.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$PROXY_PID")"
OURS="$(echo "$line" | grep -oE 'http://127\.0\.0\.1:[0-9]+' | head -1)"

if [ -n "$BASELINE" ]; then
    "$BASELINE" proxy --profile "$W/profile.yaml" >"$W/baseline.stdout" 2>"$W/baseline.stderr" &
    BASELINE_PID=$!
    PIDS+=("$BASELINE_PID")
    line="$(wait_for_line "$W/baseline.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$BASELINE_PID")"
    BEFORE="$(echo "$line" | grep -oE 'http://127\.0\.0\.1:[0-9]+' | head -1)"
fi

port="$(free_port)"
"$PRISM" proxy spec/openapi.yaml "$UPSTREAM/v2/api" -p "$port" -v silent >"$W/prism.stdout" 2>"$W/prism.stderr" &
PRISM_PID=$!
PIDS+=("$PRISM_PID")
wait_for_http "http://127.0.0.1:$port/" 120 "$PRISM_PID"
THEIRS="http://127.0.0.1:$port"

# ticks PID: the CPU time PID (and the threads it waited for) has used, in clock ticks.
ticks() {
    awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"
}

# run LABEL URL PID: wrk; appends "LABEL<TAB>req/s<TAB>p99 ms<TAB>peak RSS MiB<TAB>RSS MiB
# <TAB>non-2xx<TAB>CPU µs per exchange of PID<TAB>of the server<TAB>of wrk".
run() {
    local label="$1" url="$2" pid="$3" f="$W/$1-$RUN"
    local status before server_before
    status="$(curl -s -o "$f.body" -w '%{http_code}' --max-time 5 "${HEADERS[@]}" "$url")"
    [ "$status" = 200 ] || { cat "$f.body" >&2; die "$label: GET $url answered $status"; }
    # Warm-up: connections made, pools filled, caches warm, before timing.
    timeout 60 wrk -t2 -c32 -d2s "${HEADERS[@]}" "$url" >/dev/null
    before="$(ticks "$pid")"
    server_before="$(ticks "$SERVER_PID")"
    # wrk's own CPU time (user and system), from bash's `time`.
    { TIMEFORMAT='%U %S'; time timeout 120 wrk -t2 -c32 -d"$DURATION" --latency "${HEADERS[@]}" "$url" >"$f.wrk"; } 2>"$f.time"
    python3 - "$label" "$f.wrk" "$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")" \
        "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")" "$(($(ticks "$pid") - before))" \
        "$(($(ticks "$SERVER_PID") - server_before))" "$(getconf CLK_TCK)" "$f.time" >>"$W/rows.tsv" <<'PY'
import re, sys
label, path, hwm, rss = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cpu, server_cpu, tck, timing = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8]
text = open(path).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
n = int(re.search(r"(\d+) requests in", text).group(1))
value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
p99 = float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
wrk_cpu = sum(float(x) for x in open(timing).read().split()[-2:])
us = lambda seconds: "%.1f" % (seconds / n * 1e6)
print("\t".join([label, "%.0f" % rps, "%.3f" % p99, "%.1f" % (hwm / 1024), "%.1f" % (rss / 1024),
                 bad.group(1) if bad else "0", us(cpu / tck), us(server_cpu / tck), us(wrk_cpu)]))
PY
}

: >"$W/rows.tsv"
for ((round = 1; round <= REPEATS; round++)); do
    RUN="r$round"
    log "round $round of $REPEATS"
    run direct "$UPSTREAM/v2/api/component/catalog/auth" "$SERVER_PID"
    run ours "$OURS/v2/api/component/catalog/auth" "$PROXY_PID"
    if [ -n "$BASELINE" ]; then
        run baseline "$BEFORE/v2/api/component/catalog/auth" "$BASELINE_PID"
    fi
    run prism "$THEIRS/component/catalog/auth" "$PRISM_PID"
done
kill -INT "$PROXY_PID" 2>/dev/null || true
sleep 1
judged="$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["exchanges"], r["must_violations"])' "$W/proxy.json" 2>/dev/null || echo "? ?")"

python3 - "$W/rows.tsv" "$prism_version" "$DURATION" "$REPEATS" "$judged" "$(machine)" >"$OUT" <<'PY'
import os, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
prism_version, duration, repeats, judged, machine = sys.argv[2:7]
by = {}
for label, rps, p99, hwm, rss, bad, cpu, server_cpu, wrk_cpu in rows:
    by.setdefault(label, []).append((float(rps), float(p99), float(hwm), float(rss), int(bad),
                                     float(cpu), float(server_cpu), float(wrk_cpu)))
med = lambda xs: statistics.median(xs)
direct_p99 = med([r[1] for r in by["direct"]])
print("### The validating proxy beside Prism's\n")
print(f"wrk -t2 -c32 -d{duration} --latency, a valid GET, the reference server (release, --quiet) upstream; median of {repeats} rounds. The proxy judged {judged.split()[0]} exchanges in all ({judged.split()[1]} MUST violations: wrk's requests break no rule).\n")
print("| | requests/s | p99 | p99 added | peak RSS | RSS after round 1 → last | non-2xx | CPU per exchange: proxy / server / wrk |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
names = {"direct": "straight to the server", "ours": "through `conformance proxy`", "baseline": "through the BASELINE binary's `conformance proxy`", "prism": f"through `prism proxy` (Prism {prism_version})"}
for label in ("direct", "ours", "baseline", "prism"):
    rs = by.get(label, [])
    if not rs:
        continue
    p99 = med([r[1] for r in rs])
    added = "" if label == "direct" else "%.2f ms" % (p99 - direct_p99)
    proxy_cpu = "–" if label == "direct" else "%.1f µs" % med([r[5] for r in rs])
    cpu = f"{proxy_cpu} / {med([r[6] for r in rs]):.1f} µs / {med([r[7] for r in rs]):.1f} µs"
    print(f"| {names[label]} | {med([r[0] for r in rs]):,.0f} | {p99:.2f} ms | {added} | {max(r[2] for r in rs):.1f} MiB | {rs[0][3]:.1f} → {rs[-1][3]:.1f} MiB | {sum(r[4] for r in rs)} | {cpu} |")
ours = med([r[0] for r in by.get("ours", [(0,)])])
theirs = med([r[0] for r in by.get("prism", [(1,)])]) or 1
print(f"\nThroughput, ours over Prism's: {ours / theirs:.1f}x.\n")
if "ours" in by:
    rss = " → ".join("%.1f" % r[3] for r in by["ours"])
    print(f"Memory of `conformance proxy` after each round (RSS, MiB; {judged.split()[0]} exchanges judged, then dropped): {rss}.\n")
# What bounds a proxy on this machine: every exchange through it costs the
# CPU of wrk, the proxy and the server, all on the same cores.
if "ours" in by:
    rs = by["ours"]
    total = med([r[5] + r[6] + r[7] for r in rs])
    cores = os.cpu_count()
    print(f"CPU per exchange through `conformance proxy`, all three processes: {total:.1f} µs, so {cores} cores carry at most {cores / total * 1e6:,.0f} exchanges/s; the proxy's own share is {med([r[5] for r in rs]):.1f} µs.\n")
print(f"Machine: {machine}.")
PY
cat "$OUT"
