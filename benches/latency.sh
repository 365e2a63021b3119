#!/usr/bin/env bash
# A slow server: the whole conformance suite against the reference server
# started with `--latency 50` (50 ms before every answer), as a whole process,
# median of RUNS runs, with the default concurrency (16); beside schemathesis
# with its fastest worker setting (`--workers auto`) and the same settings as
# benches/conformance.sh's `ref` row, against the same slow server.
#
# Target: ours under 3 s.
#
# Usage: benches/latency.sh      (writes benches/results/latency.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-5}"
PEER_RUNS="${PEER_RUNS:-3}"
LATENCY_MS="${LATENCY_MS:-50}"
MAX_EXAMPLES="${MAX_EXAMPLES:-100}"
SEED="${SEED:-1}"
OUT="$RESULTS/latency.md"
W="$WORK/latency"
rm -rf "$W"
mkdir -p "$W"

need_apt hyperfine hyperfine
need_venv "schemathesis==$SCHEMATHESIS_VERSION"
SCHEMATHESIS="$VENV/bin/schemathesis"
st_version="$("$SCHEMATHESIS" --version | awk '{print $NF}')"
log "building conformance and reference-server (release)"
cargo build --release -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"
export NO_COLOR=1
unset CI

"$SERVER" --port 0 --quiet --latency "$LATENCY_MS" >"$W/server.stdout" 2>"$W/server.stderr" &
SERVER_PID=$!
PIDS+=("$SERVER_PID")
line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
URL="${line#listening on }"
log "reference server with ${LATENCY_MS} ms latency at $URL"

sed "s#^base_url: .*#base_url: $URL#" conformance/profiles/reference.yaml >"$W/profile.yaml"
set +e
"$CONFORMANCE" --profile "$W/profile.yaml" --no-snapshots >"$W/ours.log" 2>&1
ours_status=$?
set -e
ours_summary="$(grep -E '^[0-9]+ checks?: [0-9]+ passed, [0-9]+ failed' "$W/ours.log" | tail -1 || true)"
requests="$(grep -oE 'Requests: [^;]*' "$W/ours.log" | head -1 || true)"
log "conformance exited $ours_status: $ours_summary"

schemathesis_config "$W/schemathesis.toml" catalog

q() { printf '%q ' "$@"; }
warn_if_busy
log "timing ours: median of $RUNS runs"
hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$W/ours.json" \
    "$(q "$CONFORMANCE" --profile "$W/profile.yaml" --no-snapshots)" >&2
log "timing schemathesis --workers auto: median of $PEER_RUNS runs"
hyperfine -i --warmup 0 --runs "$PEER_RUNS" --export-json "$W/st.json" \
    "cd $(q "$W") && timeout 1800 $(q "$SCHEMATHESIS" --config-file "$W/schemathesis.toml" run "$ROOT/spec/openapi.yaml" \
        --url "$URL/v2/api" -H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9" \
        --workers auto --max-examples "$MAX_EXAMPLES" --seed "$SEED" --generation-database none --no-color) >$(q "$W/st.log") 2>&1" >&2
stop "$SERVER_PID"
ours_median="$(hyperfine_medians "$W/ours.json")"
st_median="$(hyperfine_medians "$W/st.json")"
st_cases="$(grep -A1 'Test cases:' "$W/st.log" | tail -1 | sed 's/^ *//' || true)"

{
    echo "### A slow server: ${LATENCY_MS} ms before every answer"
    echo
    echo "| Runner | median | runs | outcome | peer / ours |"
    echo "| --- | ---: | ---: | --- | ---: |"
    echo "| ours: \`conformance --profile … --no-snapshots\`, default concurrency (${requests:-16 at once}) | $(ms "$ours_median") | $RUNS | ${ours_summary:-see log} | |"
    echo "| schemathesis $st_version \`--workers auto\`, \`ref\` = \`catalog\`, $MAX_EXAMPLES examples | $(ms "$st_median") | $PEER_RUNS | ${st_cases:-see log} | $(ratio "$st_median" "$ours_median")× |"
    echo
    echo "Both against one release build of reference-server started with \`--latency ${LATENCY_MS}\`. Target: ours under 3 s. Machine: $(machine)."
} >"$OUT"
cat "$OUT"
