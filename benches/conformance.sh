#!/usr/bin/env bash
# Conformance speed: the whole conformance suite against its embedded default
# (the release binary with no arguments starts the reference server in-process
# and runs every check and snapshot), as a whole process, median of 5 runs;
# beside schemathesis (PyPI) running its default checks on spec/openapi.yaml
# against the same reference server, release build, started standalone on a
# free port, median of PEER_RUNS runs (default 5).
#
# schemathesis is bounded so that it ends: --max-examples (MAX_EXAMPLES, default
# 100) test cases per operation and phase, a fixed --seed, no example database
# (so a run never replays the failures of the one before), and an outer timeout.
# It runs from target/bench-work/conformance/, so nothing it writes lands in the
# repository.
#
# 417: the interface answers a request that fails validation with 417, which
# schemathesis does not count as a rejection by default. The script writes a
# schemathesis.toml (passed with `schemathesis --config-file FILE run ...`) that
# sets `expected-statuses` of the two checks that expect a rejection to
# schemathesis 4.32's own defaults plus "417":
#   [checks.negative_data_rejection]   schema-invalid data must be rejected
#   [checks.missing_required_header]   a request without a required header must be rejected
# (the default of missing_required_header is exactly 400, 401, 403, 406, 415,
# 422). Every other check keeps its defaults; positive_data_acceptance among them
# (2xx, 3xx, 401, 403, 404, 409, 429, 5xx): the spec's body is a free-form object
# whose fields each component defines, so a schema-valid body that a component
# refuses with 417 is flagged there. That is reported, not configured away.
#
# Two schemathesis rows: the spec alone (the `ref`s it draws are unknown, so it
# meets 404 before the body rules), and the same with `ref` fixed to a known
# component through the config's [parameters], so it reaches the rules.
#
# Target: ours under 1 s, and at least 20x faster than schemathesis.
#
# Usage: benches/conformance.sh      (from anywhere; writes benches/results/conformance.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-5}"
PEER_RUNS="${PEER_RUNS:-5}"
MAX_EXAMPLES="${MAX_EXAMPLES:-100}"
SEED="${SEED:-1}"
OUT="$RESULTS/conformance.md"
W="$WORK/conformance"
rm -rf "$W"
mkdir -p "$W"

# --- tools -------------------------------------------------------------------
need_apt hyperfine hyperfine
need_venv "schemathesis==$SCHEMATHESIS_VERSION"
SCHEMATHESIS="$VENV/bin/schemathesis"
st_version="$("$SCHEMATHESIS" --version | awk '{print $NF}')"

log "building conformance and reference-server (release)"
cargo build --release -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"

# Neither a colour code nor CI's stricter snapshot mode in what is timed.
export NO_COLOR=1
unset CI

# --- ours: one run to see that it passes, then the timing ---------------------
log "conformance (embedded default), once"
set +e
"$CONFORMANCE" >"$W/ours.log" 2>&1
ours_status=$?
set -e
ours_summary="$(grep -E '^[0-9]+ checks?: [0-9]+ passed, [0-9]+ failed' "$W/ours.log" | tail -1 || true)"
log "conformance exited $ours_status: ${ours_summary:-no summary line}"
[ "$ours_status" -eq 0 ] || log "warning: the suite does not pass; timing it anyway (see $W/ours.log)"

# --- schemathesis: its config, the standalone server ----------------------------
schemathesis_config "$W/schemathesis.toml"
# Second row: the same, plus one piece of test data. With the spec alone the
# `ref`s schemathesis draws are unknown, so its requests stop at 404 before a
# body or 417 rule is reached; fixing `ref` to the component `catalog` (no auth
# required) lets it reach them.
schemathesis_config "$W/schemathesis-ref.toml" catalog

"$SERVER" --port 0 >"$W/server.stdout" 2>"$W/server.stderr" &
SERVER_PID=$!
PIDS+=("$SERVER_PID")
line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
BASE="${line#listening on }/v2/api"
log "reference server for schemathesis at $BASE"

q() { printf '%q ' "$@"; }
# st_cmd CONFIG LOG: the shell command hyperfine times for one schemathesis run,
# from $W (where it may write), its output kept in LOG (the last run's remains).
# Workers: its default (1), which keeps a seeded run deterministic.
st_cmd() {
    echo "cd $(q "$W") && timeout 900 $(q "$SCHEMATHESIS" --config-file "$1" run "$ROOT/spec/openapi.yaml" \
        --url "$BASE" -H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9" \
        --max-examples "$MAX_EXAMPLES" --seed "$SEED" --generation-database none --no-color) >$(q "$2") 2>&1"
}

# --- timing ---------------------------------------------------------------------
warn_if_busy
log "timing ours: median of $RUNS runs"
hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$W/ours.json" "$(q "$CONFORMANCE")" >&2
ours_median="$(hyperfine_medians "$W/ours.json")"

for variant in plain ref; do
    config="$W/schemathesis.toml"
    [ "$variant" = ref ] && config="$W/schemathesis-ref.toml"
    log "timing schemathesis ($variant): median of $PEER_RUNS runs"
    hyperfine -i --warmup 0 --runs "$PEER_RUNS" --export-json "$W/schemathesis-$variant.json" \
        "$(st_cmd "$config" "$W/schemathesis-$variant.log")" >&2
done
stop "$SERVER_PID"
st_plain="$(hyperfine_medians "$W/schemathesis-plain.json")"
st_ref="$(hyperfine_medians "$W/schemathesis-ref.json")"

# exits FILE: the distinct exit codes of the timed runs in hyperfine's JSON.
exits() {
    python3 -c 'import json, sys; print(",".join(sorted({str(c) for c in json.load(open(sys.argv[1]))["results"][0]["exit_codes"]})))' "$1"
}
# st_outcome LOG: schemathesis's "Test cases:" line and its failure kinds, one cell.
st_outcome() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
summary = text[text.find("SUMMARY"):]
cases = re.search(r"Test cases:\s*\n\s*(.+)", summary)
fails = re.findall(r"❌ (ST\d+ [^:\n]+: \d+)", summary)
warns = re.findall(r"⚠️ ([^:\n]+)", summary)
parts = [cases.group(1).strip() if cases else "no summary"]
parts += ["failures: " + "; ".join(fails)] if fails else []
parts += ["warnings: " + "; ".join(warns)] if warns else []
print(". ".join(parts).replace("|", "\\|"))
PY
}
# st_failures LOG: the FAILURES block (what schemathesis flagged), if any.
st_failures() { sed -n '/= FAILURES =/,/= \(WARNINGS\|SUMMARY\) =/p' "$1" | sed '$d'; }

{
    echo "### Conformance: the whole suite against the reference server, whole process"
    echo
    echo "| Runner | median | runs | exit | outcome | peer / ours |"
    echo "| --- | ---: | ---: | ---: | --- | ---: |"
    echo "| ours: \`conformance\` (no arguments: embedded reference server, every check and snapshot) | $(ms "$ours_median") | $RUNS | $(exits "$W/ours.json") | ${ours_summary:-see log} | |"
    echo "| schemathesis $st_version: default checks, 417 a rejection | $(ms "$st_plain") | $PEER_RUNS | $(exits "$W/schemathesis-plain.json") | $(st_outcome "$W/schemathesis-plain.log") | $(ratio "$st_plain" "$ours_median")× |"
    echo "| schemathesis $st_version: the same, \`ref\` fixed to \`catalog\` | $(ms "$st_ref") | $PEER_RUNS | $(exits "$W/schemathesis-ref.json") | $(st_outcome "$W/schemathesis-ref.log") | $(ratio "$st_ref" "$ours_median")× |"
    echo
    echo "schemathesis: \`schemathesis --config-file schemathesis.toml run spec/openapi.yaml --url http://127.0.0.1:PORT/v2/api -H 'X-Client-Id: …' -H 'X-Client-Secret: …' --max-examples $MAX_EXAMPLES --seed $SEED --generation-database none\`, one worker, against the release build of reference-server started standalone; the config adds 417 to the expected statuses of negative_data_rejection and missing_required_header (see the script)."
    for variant in plain ref; do
        failures="$(st_failures "$W/schemathesis-$variant.log")"
        if [ -n "$failures" ]; then
            echo
            echo "What schemathesis flagged ($variant row, last run):"
            echo
            echo '```'
            printf '%s\n' "$failures" | sed -E 's#http://127\.0\.0\.1:[0-9]+#http://127.0.0.1:PORT#g'
            echo '```'
        fi
    done
    echo
    echo "Target: ours under 1 s and ≥ 20× faster than schemathesis. Machine: $(machine)."
} >"$OUT"
cat "$OUT"
