#!/usr/bin/env bash
# `conformance audit` at scale: exchanges per second and memory over a long
# NDJSON stream (EXCHANGES, default 1,000,000 lines: clean Auth Claims and
# Authorize calls with a client fault every 20th), read from a file and from
# standard input (`cat FILE | conformance audit -`), and over the same
# exchanges as one HAR file (HAR_EXCHANGES, default 100,000); then one entry
# holding a 40 MiB body, as HAR and as NDJSON, beside an empty recording
# (what the process costs before it reads anything). Each run is one process
# under /usr/bin/time (peak RSS); its resident memory is also sampled every
# 0.2 s from /proc (the smallest and largest sample after the first second:
# flat means the stream is judged and dropped, exchange by exchange).
# BASELINE=PATH adds the same runs of another build where it can read them
# (an older build reads HAR files only: `-` and NDJSON are skipped).
#
# Usage: benches/audit-stream.sh   (writes benches/results/audit-stream.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

EXCHANGES="${EXCHANGES:-1000000}"
HAR_EXCHANGES="${HAR_EXCHANGES:-100000}"
BASELINE="${BASELINE:-}"
[ -x /usr/bin/time ] || need_apt /usr/bin/time time

log "building conformance (release)"
nice cargo build --release -q -p conformance
OURS="$CARGO_TARGET_DIR/release/conformance"
WORKDIR="$WORK/audit-stream"
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
PROFILE="conformance/profiles/reference.yaml"

log "writing $EXCHANGES NDJSON exchanges, $HAR_EXCHANGES as HAR, and the 40 MiB entries"
python3 - "$WORKDIR" "$EXCHANGES" "$HAR_EXCHANGES" <<'PY'
import json, sys
out, n, har_n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
base = "http://127.0.0.1:8080/v2/api/component"
creds = [{"name": "X-Client-Id", "value": "conformance-client"},
         {"name": "X-Client-Secret", "value": "demo-secret-7Qx9"}]
answer = {"status": 200, "headers": [
    {"name": "Content-Type", "value": "application/json"},
    {"name": "X-Project-Uuid", "value": "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d"}],
    "content": {"mimeType": "application/json", "text": "{\"claims\":[{\"modelUuid\":\"8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3\"}]}"}}
claims = {"request": {"method": "GET", "url": f"{base}/catalog/auth", "headers": creds}, "response": answer}
authorize = {"request": {"method": "POST",
                         "url": f"{base}/catalog/auth?modelUuid=8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3",
                         "headers": creds + [{"name": "Content-Type", "value": "application/json"}],
                         "postData": {"mimeType": "application/json", "text": "{\"account\":\"acme\",\"pin\":1234}"}},
             "response": answer}
fault = {"request": {"method": "GET", "url": f"{base}/catalog/auth", "headers": creds[:1]},
         "response": {"status": 401, "headers": answer["headers"],
                      "content": {"text": "{\"error\":{\"code\":401,\"message\":\"no secret\"}}"}}}
lines = [json.dumps(e) for e in (claims, authorize, fault)]
def line(i):
    return lines[2] if i % 20 == 19 else lines[i % 2]
with open(f"{out}/exchanges.ndjson", "w") as f:
    for i in range(n):
        f.write(line(i) + "\n")
with open(f"{out}/exchanges.har", "w") as f:
    f.write('{"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": [\n')
    for i in range(har_n):
        f.write((",\n" if i else "") + line(i))
    f.write("\n]}}\n")
pad = ",".join(str(i) for i in range(5_300_000))
big = json.loads(lines[1])
big["request"]["postData"]["text"] = "{\"account\":\"acme\",\"pin\":1234,\"pad\":[" + pad + "]}"
with open(f"{out}/big.ndjson", "w") as f:
    f.write(json.dumps(big) + "\n")
with open(f"{out}/big.har", "w") as f:
    f.write(json.dumps({"log": {"entries": [big]}}))
with open(f"{out}/empty.har", "w") as f:
    f.write('{"log": {"entries": []}}')
PY
warn_if_busy

# one LABEL BINARY SOURCE [STDIN-FILE]: one audit; prints a table row.
one() {
    local label="$1" bin="$2" source="$3" stdin="${4:-/dev/null}"
    local times="$WORKDIR/$label.time" samples="$WORKDIR/$label.rss" rc=0
    /usr/bin/time -v "$bin" audit --profile "$PROFILE" "$source" \
        --json "$WORKDIR/$label.json" <"$stdin" >"$WORKDIR/$label.out" 2>"$times" &
    local pid=$! child=""
    : >"$samples"
    while kill -0 "$pid" 2>/dev/null; do
        [ -n "$child" ] || child="$(pgrep -P "$pid" | head -1 || true)"
        if [ -n "$child" ]; then
            awk '/^VmRSS/ {print $2}' "/proc/$child/status" 2>/dev/null >>"$samples" || true
        fi
        sleep 0.2
    done
    wait "$pid" || rc=$?
    local secs kib exchanges rate flat
    secs="$(grep 'Elapsed (wall clock)' "$times" | awk '{print $NF}' | python3 -c '
import sys
parts = [float(p) for p in sys.stdin.read().strip().split(":")]
s = 0.0
for p in parts: s = s * 60 + p
print("%.2f" % s)')"
    kib="$(grep 'Maximum resident' "$times" | awk '{print $NF}')"
    exchanges="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("exchanges", 0))' "$WORKDIR/$label.json" 2>/dev/null || echo '-')"
    rate="$(python3 -c 'import sys; e, s = sys.argv[1:]; print("%d" % (float(e) / float(s)) if e != "-" and float(s) > 0 else "-")' "$exchanges" "$secs")"
    flat="$(python3 -c '
import sys
xs = [int(l) for l in open(sys.argv[1]) if l.strip()][5:]
print("%.1f–%.1f MiB" % (min(xs) / 1024, max(xs) / 1024) if xs else "-")' "$samples")"
    printf '| %s | %s | %s | %s | %.1f MiB | %s | %s |\n' \
        "$label" "$exchanges" "$secs s" "$rate" "$(python3 -c "print($kib / 1024)")" "$flat" "$rc"
}

RESULT="$RESULTS/audit-stream.md"
{
    echo "# conformance audit: streams and the cap"
    echo
    echo "Machine: $(machine)."
    echo "Build: release, \`$OURS\`. $EXCHANGES NDJSON exchanges ($(du -h "$WORKDIR/exchanges.ndjson" | cut -f1)); $HAR_EXCHANGES as HAR; a 40 MiB body ($(du -h "$WORKDIR/big.har" | cut -f1) entry)."
    echo
    echo "| run | exchanges | wall | exchanges/s | peak RSS | RSS sampled after 1 s | exit |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    one "empty HAR (the process alone)" "$OURS" "$WORKDIR/empty.har"
    one "NDJSON file" "$OURS" "$WORKDIR/exchanges.ndjson"
    one "NDJSON on stdin (audit -)" "$OURS" "-" "$WORKDIR/exchanges.ndjson"
    one "HAR file" "$OURS" "$WORKDIR/exchanges.har"
    one "HAR on stdin (audit -)" "$OURS" "-" "$WORKDIR/exchanges.har"
    one "40 MiB entry, HAR" "$OURS" "$WORKDIR/big.har"
    one "40 MiB entry, NDJSON on stdin" "$OURS" "-" "$WORKDIR/big.ndjson"
    if [ -n "$BASELINE" ]; then
        one "baseline: empty HAR" "$BASELINE" "$WORKDIR/empty.har"
        one "baseline: HAR file" "$BASELINE" "$WORKDIR/exchanges.har"
        one "baseline: 40 MiB entry, HAR" "$BASELINE" "$WORKDIR/big.har"
    fi
} | tee "$RESULT"
log "wrote $RESULT"
