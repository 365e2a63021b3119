#!/usr/bin/env bash
# Faults caught: every fault of the reference server (`--list-faults`), each
# started standalone, checked by ours and by schemathesis side by side.
#
# - ours: the release `conformance --profile` (the shipped profile pointed at
#   the faulty server), rule checks only (`--no-snapshots`: a snapshot diff
#   would flag any change at all). Caught: exit 1.
# - schemathesis: default checks, 417 a rejection, `ref` fixed to `catalog`
#   (the best row of benches/conformance.sh), MAX_EXAMPLES per operation. It
#   already reports failures against the correct server (ST202: a body the
#   free-form schema allows is refused with 417), so exit codes say nothing:
#   a fault is caught when the set of failure kinds it reports differs from
#   the set it reports against the correct server.
#
# Usage: benches/faults.sh      (writes benches/results/faults.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MAX_EXAMPLES="${MAX_EXAMPLES:-50}"
SEED="${SEED:-1}"
OUT="$RESULTS/faults.md"
W="$WORK/faults"
rm -rf "$W"
mkdir -p "$W"

need_venv "schemathesis==$SCHEMATHESIS_VERSION"
SCHEMATHESIS="$VENV/bin/schemathesis"
st_version="$("$SCHEMATHESIS" --version | awk '{print $NF}')"
log "building conformance and reference-server (release)"
cargo build --release -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"
export NO_COLOR=1
unset CI

schemathesis_config "$W/schemathesis.toml" catalog

# serve [FAULT]: starts the server, sets PORT and SERVER_PID.
serve() {
    local args=(--port 0)
    [ -n "${1:-}" ] && args+=(--fault "$1")
    "$SERVER" "${args[@]}" >"$W/server.stdout" 2>/dev/null &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local line
    line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
    PORT="${line##*:}"
}

# kinds LOG: the sorted failure kinds schemathesis reported, one line.
kinds() {
    grep -oE '❌ ST[0-9]+ [^:]+' "$1" | sort -u | tr '\n' ';' || true
}

ours() {
    sed "s#^base_url: .*#base_url: http://127.0.0.1:$PORT#" conformance/profiles/reference.yaml >"$W/profile.yaml"
    set +e
    "$CONFORMANCE" --profile "$W/profile.yaml" --no-snapshots >"$W/ours.log" 2>&1
    local status=$?
    set -e
    echo "$status"
}

theirs() {
    (cd "$W" && timeout 600 "$SCHEMATHESIS" --config-file "$W/schemathesis.toml" run "$ROOT/spec/openapi.yaml" \
        --url "http://127.0.0.1:$PORT/v2/api" -H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9" \
        --max-examples "$MAX_EXAMPLES" --seed "$SEED" --generation-database none --no-color >"$W/st.log" 2>&1 || true)
    kinds "$W/st.log"
}

log "baseline: the correct server"
serve ""
ours_base="$(ours)"
st_base="$(theirs)"
stop "$SERVER_PID"
log "ours exits $ours_base; schemathesis reports: ${st_base:-nothing}"

mapfile -t FAULTS < <("$SERVER" --list-faults | awk 'NF {print $1}' | grep -E '^[a-z0-9-]+$')
rows=()
ours_caught=0
st_caught=0
for fault in "${FAULTS[@]}"; do
    serve "$fault"
    o="$(ours)"
    t="$(theirs)"
    stop "$SERVER_PID"
    oc="no (exit $o: $(grep -E '^[0-9]+ passed' "$W/ours.log" | tail -1 || true))"
    [ "$o" = 1 ] && oc=yes && ours_caught=$((ours_caught + 1))
    tc=no; [ "$t" != "$st_base" ] && tc=yes && st_caught=$((st_caught + 1))
    log "$fault: ours $oc, schemathesis $tc"
    rows+=("| \`$fault\` | $oc | $tc |")
done

{
    echo "### Faults of the reference server caught, side by side"
    echo
    echo "| | caught | of |"
    echo "| --- | ---: | ---: |"
    echo "| ours: \`conformance --no-snapshots\` (rule checks, default seed) | $ours_caught | ${#FAULTS[@]} |"
    echo "| schemathesis $st_version: default checks, 417 a rejection, \`ref\` = \`catalog\`, $MAX_EXAMPLES examples | $st_caught | ${#FAULTS[@]} |"
    echo
    echo "Against the correct server: ours exits $ours_base; schemathesis reports \`${st_base:-nothing}\` (counted as its baseline)."
    echo
    echo "| Fault | ours | schemathesis |"
    echo "| --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Machine: $(machine)."
} >"$OUT"
cat "$OUT"
