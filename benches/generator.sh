#!/usr/bin/env bash
# Generator speed: our generator against progenitor's CLI (cargo-progenitor) on
# spec/openapi.yaml, each as a whole process from a release build, median of 5
# runs (hyperfine, one warm-up run each, no shell in between).
#
# progenitor 0.15 panics on an operation whose error responses have distinct
# bodies (our 400 and 417 envelopes; its issue #344). The script records exactly
# what it says, then times both tools on a copy of the spec, made here under
# target/bench-work/, whose 417 response is merged into the 400 body schema: the
# fair second row. The spec in the repository is never modified.
#
# Target: ours faster than progenitor.
#
# Usage: benches/generator.sh      (from anywhere; writes benches/results/generator.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-5}"
OUT="$RESULTS/generator.md"
W="$WORK/generator"
rm -rf "$W"
mkdir -p "$W"

# --- tools -------------------------------------------------------------------
need_apt hyperfine hyperfine
need_venv pyyaml

need_progenitor
# cargo-progenitor has no --version of its own; cargo's record of installs has it.
progenitor_version="$(cargo install --list --root "$TOOLS/cargo" | awk '/^cargo-progenitor v/ {sub(/^v/, "", $2); sub(/:$/, "", $2); print $2}')"

log "building the generator (release)"
cargo build --release -p generator
GENERATOR="$CARGO_TARGET_DIR/release/generator"

# --- the merged copy of the spec ---------------------------------------------
# ErrorResponse becomes the union of the 400 and 417 envelopes (every property
# of both; required only what both require: code and status), and the 417
# response points at it, so every error status of an operation has one body.
MERGED="$W/openapi-417-merged-into-400.yaml"
"$VENV/bin/python" - spec/openapi.yaml "$MERGED" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
schemas = spec["components"]["schemas"]
e400, e417 = schemas["ErrorResponse"], schemas["ValidationErrorResponse"]
merged = {
    "type": "object",
    "description": "The 400 and 417 envelopes merged into one body (benchmark copy only).",
    "required": [k for k in e400["required"] if k in e417["required"]],
    "properties": {**e400["properties"], **e417["properties"]},
}
schemas["ErrorResponse"] = merged
del schemas["ValidationErrorResponse"]
content = spec["components"]["responses"]["ValidationFailed"]["content"]
content["application/json"]["schema"] = {"$ref": "#/components/schemas/ErrorResponse"}
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
PY

# The commands timed. progenitor is run as its binary (cargo-progenitor
# progenitor ...), which is what `cargo progenitor ...` execs, without cargo's
# own start-up in front of it.
# Each prints a shell-quoted command line (for hyperfine, and for eval here).
ours_cmd() { printf '%q ' "$GENERATOR" "$1" --out "$W/ours-$2.rs"; }
peer_cmd() { printf '%q ' "$PROGENITOR" progenitor -i "$1" -o "$W/progenitor-$2" -n bench-client -v 0.1.0; }

# --- does progenitor take the spec as it is? -----------------------------------
log "progenitor on spec/openapi.yaml, once"
set +e
eval "$(peer_cmd spec/openapi.yaml original)" >"$W/progenitor-original.log" 2>&1
peer_status=$?
set -e
if [ "$peer_status" -eq 0 ]; then
    peer_rejects=""
else
    # The panic's message: the line after "panicked at FILE:LINE:COL:" (and
    # the location itself), or else the last lines it printed.
    # The thread id and the local registry path are dropped: they vary by run and machine.
    peer_rejects="$(grep -A1 'panicked at' "$W/progenitor-original.log" | head -2 |
        sed -E 's/ \([0-9]+\) panicked/ panicked/; s#at /[^ ]*/(progenitor[^/ ]*/)#at \1#' || true)"
    [ -n "$peer_rejects" ] || peer_rejects="$(tail -3 "$W/progenitor-original.log")"
    log "progenitor rejects spec/openapi.yaml (exit $peer_status): $peer_rejects"
fi
# Ours must take both, or the comparison means nothing.
eval "$(ours_cmd spec/openapi.yaml original)" || die "our generator failed on spec/openapi.yaml"
eval "$(ours_cmd "$MERGED" merged)" || die "our generator failed on the merged copy"
eval "$(peer_cmd "$MERGED" merged)" >"$W/progenitor-merged.log" 2>&1 || {
    cat "$W/progenitor-merged.log" >&2
    die "progenitor failed on the merged copy too"
}

# --- timing ---------------------------------------------------------------------
warn_if_busy
cmds=("$(ours_cmd spec/openapi.yaml original)" "$(ours_cmd "$MERGED" merged)" "$(peer_cmd "$MERGED" merged)")
[ "$peer_status" -eq 0 ] && cmds+=("$(peer_cmd spec/openapi.yaml original)")
log "timing: median of $RUNS runs each"
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$W/hyperfine.json" "${cmds[@]}" >&2
mapfile -t med < <(hyperfine_medians "$W/hyperfine.json")
ours_orig="${med[0]}" ours_merged="${med[1]}" peer_merged="${med[2]}"

if [ "$peer_status" -eq 0 ]; then
    peer_orig_cell="$(ms "${med[3]}")"
    faster_orig="$(ratio "${med[3]}" "$ours_orig")×"
else
    peer_orig_cell="rejected (exit $peer_status, see below)"
    faster_orig="n/a"
fi

{
    echo "### Generator: \`spec/openapi.yaml\` → Rust bindings, whole process, median of $RUNS runs"
    echo
    echo "| Input | ours (\`generator\`) | progenitor ${progenitor_version:-$PROGENITOR_VERSION} (\`cargo progenitor\`) | progenitor / ours |"
    echo "| --- | ---: | ---: | ---: |"
    echo "| \`spec/openapi.yaml\` | $(ms "$ours_orig") | $peer_orig_cell | $faster_orig |"
    echo "| copy with the 417 body merged into the 400 body | $(ms "$ours_merged") | $(ms "$peer_merged") | $(ratio "$peer_merged" "$ours_merged")× |"
    echo
    if [ "$peer_status" -ne 0 ]; then
        echo "progenitor rejects \`spec/openapi.yaml\` (exit $peer_status), it panics with:"
        echo
        echo '```'
        echo "$peer_rejects"
        echo '```'
        echo
    fi
    echo "Target: ours faster than progenitor. Machine: $(machine)."
} >"$OUT"
cat "$OUT"
