#!/usr/bin/env bash
# The reference server on large input: how long it takes to start on a
# fixture of 100,000 fields, and to answer one Authorize whose body holds
# 6,000 unknown keys (a 417 listing each), against the shipped fixture and
# against a component of that large fixture. Both were quadratic (a field
# name looked up in a list, per field and per key): 17 s and 1.75 s.
#
# Release build of reference-server; BASELINE_SERVER=PATH adds a row for
# another build of it (one from before the fix). RUNS (3) rounds of ours,
# BASELINE_RUNS (RUNS) of the baseline, median.
# Writes benches/results/server-input.md.
#
# Usage: benches/server-input.sh
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-3}"
# The build before the fix takes minutes per round: BASELINE_RUNS=1 spares them.
BASELINE_RUNS="${BASELINE_RUNS:-$RUNS}"
OUT="$RESULTS/server-input.md"
W="$WORK/server-input"
rm -rf "$W"
mkdir -p "$W"
need_apt curl curl

log "building reference-server (release)"
nice cargo build --release -q -p reference-server
OURS="$CARGO_TARGET_DIR/release/reference-server"

# The shipped fixture plus a component whose settings declare 100,000
# string fields, and a model that gives 20,000 of them (4 MiB, the most a
# fixture may be).
python3 - "$ROOT/reference-server/fixtures/default.yaml" "$W/large.yaml" "$W/unknown.json" <<'PY'
import json, sys
shipped, large, unknown = sys.argv[1:]
lines = ["  - uuid: 11111111-2222-4333-8444-555555555555", "    name: Large", "    tag: large",
         "    requires_auth: false", "    settings:", "      auth:"]
lines += ["        - {name: f%d, type: string}" % i for i in range(100000)]
lines += ["    models:", "      - uuid: 11111111-2222-4333-8444-666666666666",
          "        fields: {%s}" % ", ".join("f%d: x" % i for i in range(20000))]
text = open(shipped).read().rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
assert len(text.encode()) <= 4 << 20, len(text.encode())
open(large, "w").write(text)
# 6,000 keys no component defines, under the 64 KiB body limit.
open(unknown, "w").write(json.dumps({"k%d" % i: 1 for i in range(6000)}, separators=(",", ":")))
PY

# start BIN FIXTURE: starts the server and waits for its listening line; sets
# SERVER_PID, SERVER_URL and STARTED_IN (seconds from exec to that line).
start() {
    local bin="$1" fixture="$2" log="$W/server.log" began ended
    began="$(date +%s.%N)"
    "$bin" --port 0 --quiet --fixture "$fixture" >"$log" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    SERVER_URL="$(wait_for_line "$log" '^listening on ' 600 "$SERVER_PID" | sed 's/^listening on //')"
    ended="$(date +%s.%N)"
    STARTED_IN="$(python3 -c 'import sys; print("%.3f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$began" "$ended")"
}

# answer_time REF MODEL: seconds for one Authorize of the 6,000 unknown keys.
answer_time() {
    curl -s -o "$W/answer.json" -w '%{time_total}' --max-time 120 -X POST \
        "$SERVER_URL/v2/api/component/$1/auth?modelUuid=$2" \
        -H 'X-Client-Id: conformance-client' -H 'X-Client-Secret: demo-secret-7Qx9' \
        -H 'Content-Type: application/json' --data-binary "@$W/unknown.json"
}

median() { python3 -c 'import sys, statistics; print("%.3f" % statistics.median(map(float, sys.argv[1:])))' "$@"; }

warn_if_busy
rows=()
servers=("ours:$OURS")
[ -n "${BASELINE_SERVER:-}" ] && servers+=("baseline:$BASELINE_SERVER")
for entry in "${servers[@]}"; do
    name="${entry%%:*}" bin="${entry#*:}"
    starts=() shipped=() large=() runs="$RUNS"
    [ "$name" = baseline ] && runs="$BASELINE_RUNS"
    for ((r = 0; r < runs; r++)); do
        log "$name: round $((r + 1)) of $runs"
        start "$bin" "$W/large.yaml"
        starts+=("$STARTED_IN")
        shipped+=("$(answer_time catalog 8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3)")
        grep -q '"unknown_field"' "$W/answer.json" || die "$name: no 417 listing unknown fields"
        large+=("$(answer_time large 11111111-2222-4333-8444-666666666666)")
        grep -q '"unknown_field"' "$W/answer.json" || die "$name: no 417 listing unknown fields"
        stop "$SERVER_PID"
    done
    rows+=("| $name (rounds: $runs) | $(median "${starts[@]}") s | $(median "${shipped[@]}") s | $(median "${large[@]}") s |")
done

{
    echo "# The reference server on large input"
    echo
    echo "$(machine). Release builds, the median of each build's rounds (\`benches/server-input.sh\`)."
    echo
    echo "| build | start on a fixture of 100,000 fields | one body of 6,000 unknown keys (shipped fixture's \`catalog\`) | the same body to the 100,000-field component |"
    echo "| --- | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
} | tee "$OUT"
