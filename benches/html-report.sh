#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium (Debian's `chromium`)
# renders the page of a failing run (the reference server with the fault
# `wrong-secret-accepted`) and of a passing one, each as it opens and with the
# filter set to "failed" (as a click on it sets it), to PNG screenshots; the
# pixels are counted (benches/png_colours.py, standard library only) to see
# the FAIL badges in their red and the filter hide the passes. Also: the
# page's size and the time Chromium takes to render it to a screenshot
# (median of RUNS).
#
# Fails (exit 1) when the page does not render as it should: no red in the
# failing run's "failed" view, PASS green left in it beyond the counts, or any
# red in the passing run's page.
#
# Usage: benches/html-report.sh   (writes benches/results/html-report.md and
#        the screenshots under target/bench-work/html-report/)
# CONFORMANCE=PATH SERVER=PATH use those binaries instead of release builds.
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-3}"
OUT="$RESULTS/html-report.md"
W="$WORK/html-report"
rm -rf "$W"
mkdir -p "$W"

need_apt chromium chromium
CHROMIUM="$(command -v chromium)"
if [ -z "${CONFORMANCE:-}" ] || [ -z "${SERVER:-}" ]; then
    log "building conformance and reference-server (release)"
    cargo build --release -p conformance -p reference-server
    CONFORMANCE="$CARGO_TARGET_DIR/release/conformance"
    SERVER="$CARGO_TARGET_DIR/release/reference-server"
fi
export NO_COLOR=1
unset CI

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# report NAME [FAULT]: a run's HTML report at $W/NAME.html.
report() {
    local name="$1" args=(--port 0)
    [ -n "${2:-}" ] && args+=(--fault "$2")
    "$SERVER" "${args[@]}" >"$W/$name.server" 2>/dev/null &
    local pid=$!
    PIDS+=("$pid")
    local line
    line="$(wait_for_line "$W/$name.server" '^listening on http://127\.0\.0\.1:[0-9]+' 60 "$pid")"
    sed "s#^base_url: .*#base_url: http://127.0.0.1:${line##*:}#" conformance/profiles/reference.yaml >"$W/$name.yaml"
    "$CONFORMANCE" --profile "$W/$name.yaml" --no-snapshots --html "$W/$name.html" >"$W/$name.log" 2>&1 || true
    kill "$pid" 2>/dev/null || true
    sed 's/id="f-all" checked/id="f-all"/; s/id="f-failed" hidden/id="f-failed" checked hidden/' \
        "$W/$name.html" >"$W/$name-failed.html"
}

# shot PAGE: a 1280x2400 screenshot of $W/PAGE.html at $W/PAGE.png; prints
# the seconds it took.
shot() {
    local start end
    start="$(date +%s.%N)"
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1280,2400 --screenshot="$W/$1.png" "file://$W/$1.html" >/dev/null 2>&1
    end="$(date +%s.%N)"
    python3 -c "print('%.3f' % ($end - $start))"
}

RED=b3261e
GREEN=1e7a3c
count() { python3 benches/png_colours.py "$W/$1.png" "$RED" "$GREEN" | awk -v c="$2" '$1 == c {print $2}'; }

log "runs against the faulty and the correct server"
report failing wrong-secret-accepted
report passing

rows=()
status=0
for page in failing failing-failed passing passing-failed; do
    times=()
    for _ in $(seq "$RUNS"); do times+=("$(shot "$page")"); done
    median="$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    red="$(count "$page" "$RED")"
    green="$(count "$page" "$GREEN")"
    size="$(wc -c <"$W/${page%-failed}.html")"
    rows+=("| \`$page\` | $((size / 1024)) KiB | ${median} s | $red | $green |")
    eval "RED_${page//-/_}=$red GREEN_${page//-/_}=$green"
done

# What must be seen.
# shellcheck disable=SC2154
{
    [ "$RED_failing_failed" -gt 0 ] || { echo "no FAIL red in the failing run's failed view"; status=1; }
    [ "$GREEN_failing_failed" -lt "$GREEN_failing" ] || { echo "the filter left the passes shown"; status=1; }
    [ "$RED_passing" -eq 0 ] || { echo "red in the passing run's page"; status=1; }
    [ "$RED_failing" -gt 0 ] || { echo "no red in the failing run's page"; status=1; }
} >&2

{
    echo "# HTML report in headless Chromium"
    echo
    echo "Chromium $("$CHROMIUM" --version 2>/dev/null | awk '{print $2}'), window 1280x2400, median of $RUNS screenshots each."
    echo "Pages written by \`${CONFORMANCE#"$ROOT"/}\` against \`${SERVER#"$ROOT"/}\`."
    echo "Pixels counted: FAIL red #$RED, PASS green #$GREEN (badges; the 'failed' view keeps the per-section count badges)."
    echo
    echo "| Page | Size | Render to PNG | FAIL-red pixels | PASS-green pixels |"
    echo "| --- | --- | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    if [ "$status" -eq 0 ]; then echo "Rendered as it should."; else echo "**Not rendered as it should** (see the log)."; fi
} | tee "$OUT"
exit "$status"
