#!/usr/bin/env bash
# Large answers: what a run costs against a server whose every JSON answer is
# about 900 KiB (under the runner's 1 MiB body cap), in time, peak memory and
# snapshot size: `--accept`, then `CI=true` against the same content (green),
# then `CI=true` against changed content (must fail, with a report).
#
# The server is conformance/tests/integration/large_answers_server.py: the
# independent Python server with a `padding` field of small objects on every
# JSON answer, changed by PAD_SEED. The runner is the release build of this
# tree; BASELINE=PATH adds the same three runs of another build (e.g. one from
# before the answers were recorded by their digest). Each run is one process
# under /usr/bin/time (peak RSS: its maximum resident set), stopped after
# TIME_LIMIT seconds (default 300): a stopped run wrote no report.
#
# ONLY=ID|SECTION runs a subset (`ONLY=headers`: 32 requests), as the test
# `large_answers` does; default the whole suite (about 780 requests).
#
# Usage: benches/large-answers.sh   (writes benches/results/large-answers.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TIME_LIMIT="${TIME_LIMIT:-300}"
ONLY="${ONLY:-}"
BASELINE="${BASELINE:-}"
[ -x /usr/bin/time ] || need_apt /usr/bin/time time

log "building conformance (release)"
nice cargo build --release -q -p conformance
OURS="$CARGO_TARGET_DIR/release/conformance"
WORKDIR="$WORK/large-answers"
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# serve SEED: start the padding server; sets URL.
serve() {
    local out="$WORKDIR/server-$1.out"
    PAD_SEED="$1" python3 conformance/tests/integration/large_answers_server.py --port 0 >"$out" 2>/dev/null &
    PIDS+=("$!")
    URL="$(wait_for_line "$out" '^listening on ' 20 "$!" | sed 's/^listening on //')"
}

serve 1
SAME="$URL"
serve 2
CHANGED="$URL"
warn_if_busy

# one NAME BINARY LABEL URL CI ARGS...: one run; prints a table row.
one() {
    local name="$1" bin="$2" label="$3" url="$4" ci="$5"
    shift 5
    local dir="$WORKDIR/$name" times="$WORKDIR/$name-$label.time" rc=0
    local only=()
    [ -n "$ONLY" ] && only=(--only "$ONLY")
    env -u CI ${ci:+CI=true} PYTHON_SERVER_URL="$url" /usr/bin/time -v \
        timeout "$TIME_LIMIT" "$bin" --profile conformance/tests/independent/python.yaml \
        --snapshots "$dir/snapshots" "${only[@]}" --json "$dir/$label.json" "$@" \
        >"$dir/$label.out" 2>"$times" || rc=$?
    local secs kib report snaps
    secs="$(grep 'Elapsed (wall clock)' "$times" | awk '{print $NF}')"
    kib="$(grep 'Maximum resident set size' "$times" | awk '{print $NF}')"
    snaps="$(du -sk "$dir/snapshots" 2>/dev/null | cut -f1)"
    if [ "$rc" = 124 ]; then report="none (stopped after ${TIME_LIMIT} s)"; else report="$(tail -1 "$dir/$label.out")"; fi
    printf '| %s | %s | %s | %s | %.1f MiB | %s KiB | %s |\n' "$name" "$label" "$rc" "$secs" \
        "$(python3 -c "print($kib / 1024)")" "${snaps:-0}" "$report"
}

# three NAME BINARY: --accept, CI=true unchanged, CI=true changed.
three() {
    mkdir -p "$WORKDIR/$1"
    log "$1: --accept"
    one "$1" "$2" "--accept" "$SAME" "" --accept
    log "$1: CI=true, same content"
    one "$1" "$2" "CI=true, same content" "$SAME" 1
    log "$1: CI=true, changed content"
    one "$1" "$2" "CI=true, changed content" "$CHANGED" 1
}

{
    printf '### Large answers (`benches/large-answers.sh`): every JSON answer about 900 KiB, %s\n\n' \
        "${ONLY:+checks \`--only $ONLY\`}${ONLY:-the whole suite}"
    printf '| Runner | run | exit | wall clock | peak RSS | snapshots | last line |\n'
    printf '| --- | --- | ---: | ---: | ---: | ---: | --- |\n'
    three ours "$OURS"
    if [ -n "$BASELINE" ]; then
        three baseline "$BASELINE"
    fi
    printf '\nBaseline: %s. Machine: %s.\n' "${BASELINE:-none}" "$(machine)"
} | tee "$RESULTS/large-answers${ONLY:+-$(printf '%s' "$ONLY" | tr -c 'a-zA-Z0-9\n' '-')}.md"
