#!/usr/bin/env bash
# Flaky verdicts: the share of CI runs against a correct server whose verdict
# differs from the first run's, at several concurrencies. The interface is
# stateful (a successful Authorize may change what Auth Claims returns), so a
# runner that races its own writes against its reads gives another verdict
# run to run; a gate that flakes gets switched off.
#
# Each correct server is started once and never restarted (a staging server
# keeps what earlier runs left): the reference server as shipped, its
# `records-claims` variant (Authorize makes its model the one Auth Claims
# returns), the independent Flask server, which records claims too, and the
# two production-like independent servers, Java (JDK only) and Fastify, which
# limit their rate (429 with Retry-After), keep claims per environment, put
# the claim an Authorize replaced in its answer and compress their answers.
# For each: `--accept` once, then `CI=true` RUNS times at each concurrency.
# A run differs when its exit code, its failed checks, or its `--json`
# report without timings differ from the first CI run's; for a server that
# limits its rate, how many answers were limited or re-sent (the report's
# `pace`, and any such count in its `summary`) depends on timing as latency
# does, and is left out too.
#
# Usage: benches/flaky.sh      (RUNS=10 CONCURRENCIES="1 16 64"; writes
#                                benches/results/flaky.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-10}"
read -r -a CONCURRENCIES <<<"${CONCURRENCIES:-1 16 64}"
OUT="$RESULTS/flaky.md"
W="$WORK/flaky"
rm -rf "$W"
mkdir -p "$W"

warn_if_busy
log "building conformance and reference-server (release)"
cargo build --release -p conformance -p reference-server
CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
SERVER="$CARGO_TARGET_DIR/release/reference-server"
export NO_COLOR=1
unset CI

# verdict JSON [limited]: the report without timings, as one line (what must
# not vary); with `limited`, without the pace and the counts of limited or
# re-sent answers either.
verdict() {
    python3 -c '
import json, sys
limited = len(sys.argv) > 2
def strip(v, top):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in ("duration_ms", "latency"):
                continue
            # The summary counts the results, compared one by one.
            if top and k == "summary":
                continue
            if top and k == "pace":
                # Load, not behaviour: what the limits of a server made of the run.
                x = {pk: pv for pk, pv in x.items()
                     if pk not in ("concurrency", "retried", "limited", "learnt_rate")}
            out[k] = strip(x, False)
        return out
    if isinstance(v, list):
        # Whether a server limits a run depends on its load: the check that
        # judges limit answers passes or has none to judge.
        return [dict(x, status="passed or not applicable (load)", note=None)
                if isinstance(x, dict) and x.get("id") == "answers/limit-answers-are-envelopes"
                and x.get("status") in ("passed", "not_applicable") else strip(x, False)
                for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1])), True), sort_keys=True))
' "$@"
}

# measure NAME PROFILE [limited]: record once, then the CI runs; appends a
# table row.
rows=()
total_runs=0
total_differed=0
measure() {
    local name="$1" profile="$2" limited="${3:-}" dir="$W/$1"
    mkdir -p "$dir"
    "$CONFORMANCE" --profile "$profile" --snapshots "$dir/snapshots" --accept >"$dir/accept.log" 2>&1 ||
        die "$name: --accept failed (see $dir/accept.log)"
    local first="" differed=0 runs=0 c i code
    for c in "${CONCURRENCIES[@]}"; do
        for ((i = 1; i <= RUNS; i++)); do
            set +e
            CI=true "$CONFORMANCE" --profile "$profile" --snapshots "$dir/snapshots" \
                --concurrency "$c" --json "$dir/run.json" >"$dir/run.log" 2>&1
            code=$?
            set -e
            local this
            # shellcheck disable=SC2086
            this="exit $code $(verdict "$dir/run.json" $limited)"
            runs=$((runs + 1))
            if [ -z "$first" ]; then
                first="$this"
            elif [ "$this" != "$first" ]; then
                differed=$((differed + 1))
                cp "$dir/run.log" "$dir/differed-$c-$i.log"
            fi
        done
    done
    log "$name: $differed of $runs runs differed"
    total_runs=$((total_runs + runs))
    total_differed=$((total_differed + differed))
    rows+=("| $name | $runs | $differed | $(python3 -c 'import sys; print("%.1f%%" % (100.0 * int(sys.argv[1]) / int(sys.argv[2])))' "$differed" "$runs") | $(echo "$first" | cut -c1-6) |")
}

# reference SERVER-ARGS...: starts the reference server, writes its profile.
reference() {
    "$SERVER" --port 0 --quiet "$@" >"$W/server.stdout" 2>/dev/null &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local line
    line="$(wait_for_line "$W/server.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$SERVER_PID")"
    sed "s#^base_url: .*#base_url: http://127.0.0.1:${line##*:}#" conformance/profiles/reference.yaml >"$W/profile.yaml"
}

reference
measure "reference server" "$W/profile.yaml"
stop "$SERVER_PID"

reference --variant records-claims
measure "reference server \`--variant records-claims\`" "$W/profile.yaml"
stop "$SERVER_PID"

# A server as it runs in production: a rate limit, a success body that
# carries the claim it replaced, claims per environment, no X-Project-Env
# taken as `live`, gzip-encoded answers.
reference --variant records-claims --variant reports-replaced-claim \
    --variant env-default-live --variant rate-limit --variant gzip-answers
sed -i 's/absent_project_env: dev/absent_project_env: live/' "$W/profile.yaml"
measure "reference server, production-like (\`rate-limit\`, \`reports-replaced-claim\`, \`records-claims\`, \`env-default-live\`, \`gzip-answers\`)" "$W/profile.yaml"
stop "$SERVER_PID"

if python3 -c 'import flask' 2>/dev/null; then
    python3 conformance/tests/independent/flask_server.py --port 0 >"$W/flask.stdout" 2>/dev/null &
    FLASK_PID=$!
    PIDS+=("$FLASK_PID")
    line="$(wait_for_line "$W/flask.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$FLASK_PID")"
    export FLASK_SERVER_URL="http://127.0.0.1:${line##*:}"
    measure "independent Flask server (records claims)" conformance/tests/independent/flask.yaml
    stop "$FLASK_PID"
else
    log "Flask is not installed: its row is left out (bash .ci/setup installs it)"
fi

# independent NAME LABEL VAR COMMAND...: starts an independent server
# (COMMAND --port 0), sets its profile's URL variable VAR, measures it as
# limited (both limit their rate).
independent() {
    local name="$1" label="$2" var="$3"
    shift 3
    "$@" --port 0 >"$W/$name.stdout" 2>"$W/$name.stderr" &
    local pid=$!
    PIDS+=("$pid")
    local line
    line="$(wait_for_line "$W/$name.stdout" '^listening on http://127\.0\.0\.1:[0-9]+' 120 "$pid")"
    export "$var=http://127.0.0.1:${line##*:}"
    measure "$label" "conformance/tests/independent/$name.yaml" limited
    stop "$pid"
}

if command -v javac >/dev/null 2>&1; then
    independent java "independent Java server (JDK only; rate limit, claims per environment, gzip)" JAVA_SERVER_URL \
        java conformance/tests/independent/java_server/Server.java
else
    log "javac is missing: the Java server's row is left out (bash .ci/setup installs a JDK)"
fi

if (cd conformance/tests/independent/fastify_server && npm ls --omit=dev >/dev/null 2>&1); then
    independent fastify "independent Fastify server (rate-limit, compress, helmet, cors)" FASTIFY_SERVER_URL \
        node conformance/tests/independent/fastify_server/server.js
else
    log "the Fastify server's packages are missing: its row is left out (bash .ci/setup runs npm ci)"
fi

{
    echo "### Flaky verdicts: CI runs whose verdict differed from the first"
    echo
    echo "Each server started once and never restarted; \`--accept\` once, then \`CI=true\` $RUNS times at each of \`--concurrency\` ${CONCURRENCIES[*]}. A run differs when its exit code or its \`--json\` report (timings removed; for the Java and Fastify servers, which limit their rate, the pace and the counts of limited answers too) differs from the first CI run's."
    echo
    echo "| Correct server | CI runs | differed | share | first verdict |"
    echo "| --- | ---: | ---: | ---: | --- |"
    printf '%s\n' "${rows[@]}"
    echo "| **all** | $total_runs | $total_differed | $(python3 -c 'import sys; print("%.1f%%" % (100.0 * int(sys.argv[1]) / max(1, int(sys.argv[2]))))' "$total_differed" "$total_runs") | |"
    echo
    echo "Machine: $(machine)."
} >"$OUT"
cat "$OUT"
