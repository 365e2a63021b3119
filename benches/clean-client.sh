#!/usr/bin/env bash
# What passive validation shows with no test suite: a strictly clean
# client's session (benches/clean_client.py, the session of the test
# `a_clean_clients_session_shows_faults_passively`) through `conformance
# proxy` (release) and through Prism's validating proxy (`prism proxy
# spec/openapi.yaml UPSTREAM --errors`, @stoplight/prism-cli
# $PRISM_VERSION), in front of the reference server started correct and
# with each of its faults (`--list-faults`), a fresh server per fault.
#
# Ours shows a fault when its report holds a broken server rule; Prism when
# the session through it differs from the session through it against the
# correct server (an answer it turned into its own error, or a new
# `sl-violations`); what each says against the correct server is its false
# alarms. ONLY=regex runs the faults matching it.
#
# Usage: benches/clean-client.sh   (writes benches/results/clean-client.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ONLY="${ONLY:-}"
need_apt curl curl
need_apt npm npm
PRISM="$TOOLS/node/node_modules/.bin/prism"
if [ ! -x "$PRISM" ]; then
    log "installing @stoplight/prism-cli@$PRISM_VERSION (npm) into $TOOLS/node"
    mkdir -p "$TOOLS/node"
    npm install --no-audit --no-fund --prefix "$TOOLS/node" "@stoplight/prism-cli@$PRISM_VERSION"
fi
log "building conformance and reference-server (release)"
nice cargo build --release -q -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"
W="$WORK/clean-client"
rm -rf "$W"
mkdir -p "$W"

# session FAULT: one fault (`none`: the correct server) through both
# proxies; writes $W/FAULT.ours (broken rules, one a line) and
# $W/FAULT.prism (the client's lines through Prism).
session() {
    local fault="$1" args=(--port 0 --quiet) line upstream ours port
    [ "$fault" = none ] || args+=(--fault "$fault")
    "$SERVER" "${args[@]}" >"$W/server.out" 2>/dev/null &
    local server=$!
    PIDS+=("$server")
    line="$(wait_for_line "$W/server.out" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$server")"
    upstream="http://127.0.0.1:${line##*:}"
    sed "s#^base_url: .*#base_url: $upstream#" conformance/profiles/reference.yaml >"$W/profile.yaml"

    "$CONFORMANCE" proxy --profile "$W/profile.yaml" --json "$W/$fault.json" >"$W/ours.out" 2>/dev/null &
    local proxy=$!
    PIDS+=("$proxy")
    line="$(wait_for_line "$W/ours.out" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$proxy")"
    ours="$(echo "$line" | grep -oE 'http://127\.0\.0\.1:[0-9]+' | head -1)"
    python3 benches/clean_client.py "$ours" >"$W/$fault.direct"
    stop "$proxy"
    python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
for r in report["rules"]:
    if r["violations"]:
        print(r["id"])' "$W/$fault.json" >"$W/$fault.ours"

    port="$(free_port)"
    "$PRISM" proxy spec/openapi.yaml "$upstream/v2/api" --errors -p "$port" -v silent >"$W/prism.out" 2>&1 &
    local prism=$!
    PIDS+=("$prism")
    wait_for_http "http://127.0.0.1:$port/" 120 "$prism"
    python3 benches/clean_client.py "http://127.0.0.1:$port" "" >"$W/$fault.prism"
    stop "$prism"
    stop "$server"
}

warn_if_busy
mapfile -t FAULTS < <("$SERVER" --list-faults | awk '{print $1}')
[ -z "$ONLY" ] || mapfile -t FAULTS < <(printf '%s\n' "${FAULTS[@]}" | grep -E "$ONLY")
log "the correct server, then ${#FAULTS[@]} faults"
session none
ours_shown=() prism_shown=()
for fault in "${FAULTS[@]}"; do
    session "$fault"
    if grep -q '^server/' "$W/$fault.ours"; then ours_shown+=("$fault"); fi
    if ! cmp -s "$W/none.prism" "$W/$fault.prism"; then prism_shown+=("$fault"); fi
done

ours_false="$(paste -sd, "$W/none.ours")"
prism_false="$(awk '$2 != "" || $3 != "" {n++} END {print n + 0}' "$W/none.prism")"
requests="$(wc -l <"$W/none.prism")"
OUT="$RESULTS/clean-client.md"
{
    echo "# A clean client's session through each validating proxy"
    echo
    echo "Machine: $(machine). Prism: $("$PRISM" --version). ${requests} requests a session; a fresh reference server per fault."
    echo
    echo "| proxy | faults shown (of ${#FAULTS[@]}) | alarms against the correct server |"
    echo "| --- | --- | --- |"
    echo "| \`conformance proxy\` | ${#ours_shown[@]} | ${ours_false:-none} |"
    echo "| \`prism proxy --errors\` | ${#prism_shown[@]} | ${prism_false} of ${requests} answers |"
    echo
    echo "Shown by ours: ${ours_shown[*]:-none}."
    echo
    echo "Shown by Prism (its session differs from the correct server's): ${prism_shown[*]:-none}."
} | tee "$OUT"
log "wrote $OUT"
