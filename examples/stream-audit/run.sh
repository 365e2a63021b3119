#!/usr/bin/env bash
# A log pipeline feeding `conformance audit -`: a writer (standing in for
# Vector, Fluent Bit or a Kafka consumer) appends one exchange a line
# (NDJSON, each line a HAR entry) to two shard files, round robin; each
# shard is followed by `tail -F` into its own `conformance audit -`, which
# judges every exchange as it arrives and rewrites its JSON report every
# second. When the writer stops, `tail --pid` ends, each audit reads the end
# of its stream, prints its report and exits with the gate's code (1: a MUST
# rule was broken in that shard). Ctrl-C or SIGTERM end an audit the same
# way, with the report of what it read.
#
# Usage: examples/stream-audit/run.sh   (CONFORMANCE=path/to/conformance to
# use a given build; otherwise it is built with cargo)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
if [ -z "${CONFORMANCE:-}" ]; then
    cargo build -q -p conformance
    CONFORMANCE="${CARGO_TARGET_DIR:-$ROOT/target}/debug/conformance"
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PROFILE="conformance/profiles/reference.yaml"

# The exchanges the pipeline carries: three good ones and one client
# mistake (no X-Client-Secret), each one line.
exchange() { # METHOD PATH SECRET? BODY?
    local headers='{"name": "X-Client-Id", "value": "conformance-client"}'
    [ "$3" = secret ] && headers+=', {"name": "X-Client-Secret", "value": "demo-secret-7Qx9"}'
    local post=""
    [ -n "${4:-}" ] && post=', "postData": {"mimeType": "application/json", "text": "'"${4//\"/\\\"}"'"}'
    headers+=', {"name": "Content-Type", "value": "application/json"}'
    printf '{"request": {"method": "%s", "url": "http://127.0.0.1:8080%s", "headers": [%s]%s}, "response": {"status": %s, "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "X-Project-Uuid", "value": "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d"}], "content": {"text": "{}"}}}\n' \
        "$1" "$2" "$headers" "$post" "$([ "$3" = secret ] && echo 200 || echo 401)"
}
LINES=(
    "$(exchange GET /v2/api/component/catalog/auth secret)"
    "$(exchange POST '/v2/api/component/catalog/auth?modelUuid=8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3' secret '{"account":"acme","pin":1234}')"
    "$(exchange GET /v2/api/component/catalog/auth secret)"
    "$(exchange GET /v2/api/component/catalog/auth no-secret)"
)

: >"$WORK/shard-0.ndjson"
: >"$WORK/shard-1.ndjson"
# The writer: one exchange every 0.3 s, shard by shard.
(
    for i in 0 1 2 3 4 5 6 7; do
        printf '%s\n' "${LINES[$((i % 4))]}" >>"$WORK/shard-$((i % 2)).ndjson"
        sleep 0.3
    done
) &
WRITER=$!

AUDITS=()
for shard in 0 1; do
    # tail -F follows the file as it grows; --pid ends it with the writer.
    tail -n +1 -F --pid="$WRITER" "$WORK/shard-$shard.ndjson" 2>/dev/null |
        "$CONFORMANCE" audit --profile "$PROFILE" - --json "$WORK/shard-$shard.json" --every 1s \
            >"$WORK/shard-$shard.txt" 2>&1 &
    AUDITS+=("$!")
done

sleep 1.5
for shard in 0 1; do
    printf 'while running, shard %s report: %s exchanges\n' "$shard" \
        "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["exchanges"])' "$WORK/shard-$shard.json" 2>/dev/null || echo 'not yet')"
done
wait "$WRITER"
for shard in 0 1; do
    code=0
    wait "${AUDITS[$shard]}" || code=$?
    printf '\nshard %s: audit exited %s\n' "$shard" "$code"
    sed 's/^/  /' "$WORK/shard-$shard.txt"
done
