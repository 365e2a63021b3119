#!/usr/bin/env bash
# A server that limits its clients' rate sets the floor of a run's time: its
# requests divided by the rate it allows. Against the reference server's
# `rate-limit` variant (200 requests a second per client, a burst of 20, 429
# with Retry-After: 1 and the IETF RateLimit headers), how close a run comes
# to that floor and how many of its requests are re-sent:
#
# - declared: as a team adopts the gate, `conformance choices` observes the
#   pace and the profile declares it (`rate:`); then a `CI=true` run;
# - learnt: no `rate:` declared; the run backs off when limited;
# - schemathesis (PEER=0 leaves it out), as benches/faults.sh runs it: its
#   time and whether it reports the limit as a failure.
#
# Requests are counted by the server's own access log (every answer, 429s
# apart). The floor is (answered - burst) / rate.
#
# Usage: benches/limited.sh   (RUNS=5; writes benches/results/limited.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-5}"
PEER="${PEER:-1}"
RATE=200
BURST=20
OUT="$RESULTS/limited.md"
W="$WORK/limited"
rm -rf "$W"
mkdir -p "$W"

warn_if_busy
log "building conformance and reference-server (release)"
cargo build --release -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"
export NO_COLOR=1
unset CI

# start: a fresh rate-limited server logging to $W/server.log; sets URL.
start() {
    "$SERVER" --port 0 --variant rate-limit >"$W/server.stdout" 2>"$W/server.log" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local line
    line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
    URL="http://127.0.0.1:${line##*:}"
}

# counts: "answered limited" from the server's access log.
counts() {
    python3 -c '
import re, sys
answered = limited = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"status=(\d+)", line)
    if not m:
        continue
    if m.group(1) == "429":
        limited += 1
    else:
        answered += 1
print(answered, limited)' "$W/server.log"
}

# run MODE: one timed CI run against a fresh server; prints "seconds answered limited exit".
run() {
    local mode="$1" profile="$W/$1.yaml"
    start
    sed "s#^base_url: .*#base_url: $URL#" conformance/profiles/reference.yaml >"$profile"
    if [ "$mode" = declared ]; then
        "$CONFORMANCE" choices --profile "$profile" | grep '^rate:' >>"$profile" ||
            die "choices observed no rate"
    fi
    "$CONFORMANCE" --profile "$profile" --snapshots "$W/snapshots-$mode" --accept >/dev/null 2>&1 || true
    stop "$SERVER_PID"
    start
    sed -i "s#^base_url: .*#base_url: $URL#" "$profile"
    local t0 t1 code
    t0="$(date +%s.%N)"
    set +e
    CI=true "$CONFORMANCE" --profile "$profile" --snapshots "$W/snapshots-$mode" >"$W/$mode.log" 2>&1
    code=$?
    set -e
    t1="$(date +%s.%N)"
    stop "$SERVER_PID"
    echo "$(python3 -c "print($t1 - $t0)") $(counts) $code"
}

median() { python3 -c 'import statistics, sys; print("%.3f" % statistics.median(map(float, sys.argv[1:])))' "$@"; }

rows=()
for mode in declared learnt; do
    times=() answered=0 limited=0 codes=""
    for ((i = 1; i <= RUNS; i++)); do
        read -r t a l c < <(run "$mode")
        times+=("$t")
        answered="$a" limited="$l" codes="$codes$c"
        log "$mode run $i: ${t}s, $a answered, $l limited, exit $c"
    done
    med="$(median "${times[@]}")"
    floor="$(python3 -c "print(max(0.0, ($answered - $BURST) / $RATE))")"
    over="$(python3 -c "print('%.1f%%' % (100.0 * ($med / $floor - 1)))")"
    resent="$(python3 -c "print('%.1f%%' % (100.0 * $limited / max(1, $answered)))")"
    rows+=("| ours, rate $mode | $(ms "$med") | $(ms "$floor") | $over | $limited of $answered ($resent) | $(echo "$codes" | grep -q '^0*$' && echo green || echo "exits $codes") |")
done

if [ "$PEER" = 1 ]; then
    need_venv "schemathesis==$SCHEMATHESIS_VERSION"
    schemathesis_config "$W/schemathesis.toml" catalog
    start
    t0="$(date +%s.%N)"
    set +e
    (cd "$W" && timeout 600 "$VENV/bin/schemathesis" --config-file "$W/schemathesis.toml" run "$ROOT/spec/openapi.yaml" \
        --url "$URL/v2/api" -H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9" \
        --max-examples 50 --seed 1 --generation-database none --no-color >"$W/schemathesis.log" 2>&1)
    st_code=$?
    set -e
    t1="$(date +%s.%N)"
    stop "$SERVER_PID"
    read -r a l < <(counts)
    st_time="$(python3 -c "print($t1 - $t0)")"
    rows+=("| schemathesis $SCHEMATHESIS_VERSION (one run, its own request count) | $(ms "$st_time") | – | – | $l limit answers of $((a + l)) | exit $st_code |")
fi

{
    echo "### A rate-limited server: time against the floor, requests re-sent"
    echo
    echo "The reference server's \`rate-limit\` variant ($RATE requests a second per client, a burst of $BURST), a fresh server per run; median of $RUNS \`CI=true\` runs after \`--accept\`. Floor: (requests answered - burst) / rate. Re-sent: the server's 429s over the requests it answered."
    echo
    echo "| Run | median | floor | over the floor | limited | verdict |"
    echo "| --- | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Machine: $(machine)."
} >"$OUT"
cat "$OUT"
