#!/usr/bin/env bash
# False alarms: every legal variant of the reference server (`--list-variants`:
# behaviours the description allows that our spec's choices do not make),
# each started standalone, checked by ours and by schemathesis side by side;
# then the faults caught with all compatible variants switched on.
#
# - ours: the release `conformance`, as a team adopts it: `conformance
#   choices` prints the choices it observes, they go into the profile, then
#   `--accept` records the snapshots and `CI=true` gates against them. A
#   false alarm: either run exits other than 0. A second column runs the
#   same two steps with no choices declared (only `model_uuid` where a
#   variant moves it: no runner can find it unaided), where every
#   difference from ours must stay a SHOULD warning.
# - schemathesis: the configuration of benches/faults.sh. Any failure it
#   reports against a correct server is a false alarm; it already reports
#   ST202 against the plain reference server, so the table also says which
#   kinds are new for the variant.
#
# Usage: benches/variants.sh    (writes benches/results/variants.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MAX_EXAMPLES="${MAX_EXAMPLES:-50}"
SEED="${SEED:-1}"
OUT="$RESULTS/variants.md"
W="$WORK/variants"
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

# serve ARGS...: starts the server with ARGS, sets PORT and SERVER_PID.
serve() {
    "$SERVER" --port 0 "$@" >"$W/server.stdout" 2>/dev/null &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local line
    line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
    PORT="${line##*:}"
}

kinds() {
    grep -oE '❌ ST[0-9]+ [^:]+' "$1" | sort -u | tr '\n' ';' || true
}

# profile FILE EXTRA: the shipped profile without its choices, at PORT, plus EXTRA.
profile() {
    sed -e "s#^base_url: .*#base_url: http://127.0.0.1:$PORT#" -e '/^# What the reference server chose/,$d' \
        conformance/profiles/reference.yaml >"$1"
    printf '%s' "$2" >>"$1"
}

# adopt DIR EXTRA: record then gate; prints the worst exit code.
adopt() {
    local dir="$1" extra="$2"
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$extra" = observe ]; then
        profile "$dir/profile.yaml" ""
        "$CONFORMANCE" choices --profile "$dir/profile.yaml" >"$dir/choices.yaml" 2>"$dir/choices.err" || true
        extra="$(cat "$dir/choices.yaml")"
    fi
    profile "$dir/profile.yaml" "$extra"
    set +e
    "$CONFORMANCE" --profile "$dir/profile.yaml" --accept >"$dir/accept.log" 2>&1
    local a=$?
    CI=true "$CONFORMANCE" --profile "$dir/profile.yaml" >"$dir/ci.log" 2>&1
    local c=$?
    set -e
    if [ "$a" != 0 ]; then echo "$a"; else echo "$c"; fi
}

moved_model_uuid() {
    case "$1" in
        *model-uuid-header*) printf 'choices:\n  model_uuid: "header:X-Model-Uuid"\n' ;;
        *model-uuid-body*) printf 'choices:\n  model_uuid: "body:modelUuid"\n' ;;
        *) printf '' ;;
    esac
}

theirs() {
    (cd "$W" && timeout 600 "$SCHEMATHESIS" --config-file "$W/schemathesis.toml" run "$ROOT/spec/openapi.yaml" \
        --url "http://127.0.0.1:$PORT/v2/api" -H "X-Client-Id: conformance-client" -H "X-Client-Secret: demo-secret-7Qx9" \
        --max-examples "$MAX_EXAMPLES" --seed "$SEED" --generation-database none --no-color >"$W/st.log" 2>&1 || true)
    kinds "$W/st.log"
}

log "baseline: the plain reference server"
serve
st_base="$(theirs)"
stop "$SERVER_PID"

mapfile -t VARIANTS < <("$SERVER" --list-variants | awk 'NF {print $1}' | grep -E '^[a-z0-9-]+$')
rows=()
ours_alarms=0
ours_undeclared_alarms=0
st_alarms=0
for v in "${VARIANTS[@]}"; do
    serve --variant "$v"
    o="$(adopt "$W/$v/observed" observe)"
    u="$(adopt "$W/$v/undeclared" "$(moved_model_uuid "$v")")"
    t="$(theirs)"
    stop "$SERVER_PID"
    oc=pass; [ "$o" != 0 ] && oc="**false alarm** (exit $o)" && ours_alarms=$((ours_alarms + 1))
    uc=pass; [ "$u" != 0 ] && uc="**false alarm** (exit $u)" && ours_undeclared_alarms=$((ours_undeclared_alarms + 1))
    warned="$(grep -cE '^  WARN' "$W/$v/undeclared/accept.log" || true)"
    tc=pass
    if [ -n "$t" ]; then
        st_alarms=$((st_alarms + 1))
        new=""; [ "$t" != "$st_base" ] && new=" (new for the variant)"
        tc="**false alarm**: \`$t\`$new"
    fi
    log "$v: ours $oc / undeclared $uc ($warned SHOULD warnings); schemathesis $tc"
    rows+=("| \`$v\` | $oc | $uc, $warned SHOULD warnings | $tc |")
done

# Faults caught with every compatible variant on, choices observed.
compatible=()
for v in "${VARIANTS[@]}"; do
    case "$v" in
        missing-credential-417 | unknown-model-403 | model-uuid-body | get-body-fields-ignored) ;; # each conflicts with an earlier one
        *) compatible+=(--variant "$v") ;;
    esac
done
serve "${compatible[@]}"
profile "$W/compat.yaml" ""
"$CONFORMANCE" choices --profile "$W/compat.yaml" >"$W/compat-choices.yaml"
stop "$SERVER_PID"
mapfile -t FAULTS < <("$SERVER" --list-faults | awk 'NF {print $1}' | grep -E '^[a-z0-9-]+$')
fault_rows=()
plain_caught=0
varied_caught=0
for fault in "${FAULTS[@]}"; do
    serve --fault "$fault"
    sed "s#^base_url: .*#base_url: http://127.0.0.1:$PORT#" conformance/profiles/reference.yaml >"$W/plain.yaml"
    set +e
    "$CONFORMANCE" --profile "$W/plain.yaml" --no-snapshots >"$W/plain.log" 2>&1
    p=$?
    set -e
    stop "$SERVER_PID"
    serve --fault "$fault" "${compatible[@]}"
    profile "$W/varied.yaml" "$(cat "$W/compat-choices.yaml")"
    set +e
    "$CONFORMANCE" --profile "$W/varied.yaml" --no-snapshots >"$W/varied.log" 2>&1
    q=$?
    set -e
    stop "$SERVER_PID"
    pc="no (exit $p)"; [ "$p" = 1 ] && pc=yes && plain_caught=$((plain_caught + 1))
    qc="no (exit $q)"; [ "$q" = 1 ] && qc=yes && varied_caught=$((varied_caught + 1))
    fault_rows+=("| \`$fault\` | $pc | $qc |")
done

{
    echo "### Legal variants: false alarms, side by side"
    echo
    echo "| | false alarms | of |"
    echo "| --- | ---: | ---: |"
    echo "| ours: \`conformance choices\`, then \`--accept\`, then \`CI=true\` | $ours_alarms | ${#VARIANTS[@]} |"
    echo "| ours, no choices declared (SHOULD warnings only) | $ours_undeclared_alarms | ${#VARIANTS[@]} |"
    echo "| schemathesis $st_version: default checks, 417 a rejection, \`ref\` = \`catalog\`, $MAX_EXAMPLES examples | $st_alarms | ${#VARIANTS[@]} |"
    echo
    echo "Against the plain reference server schemathesis reports \`${st_base:-nothing}\`."
    echo
    echo "| Variant | ours (choices observed) | ours (none declared) | schemathesis |"
    echo "| --- | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    echo "### Faults caught, plain and with every compatible variant on"
    echo
    echo "Variants on: \`${compatible[*]}\`; profile: the shipped one with the choices \`conformance choices\` observed on that server."
    echo
    echo "| | caught | of |"
    echo "| --- | ---: | ---: |"
    echo "| plain reference server, shipped profile | $plain_caught | ${#FAULTS[@]} |"
    echo "| with the variants on | $varied_caught | ${#FAULTS[@]} |"
    echo
    echo "| Fault | plain | variants on |"
    echo "| --- | --- | --- |"
    printf '%s\n' "${fault_rows[@]}"
    echo
    echo "Machine: $(machine)."
} >"$OUT"
cat "$OUT"
