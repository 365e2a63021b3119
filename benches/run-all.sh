#!/usr/bin/env bash
# Runs the benchmarks (generator, server, conformance, latency, faults) one after another
# and collects their tables into benches/results/summary.md.
#
# A benchmark that fails is named in the summary and makes this script exit 1;
# the others still run.
#
# Usage: benches/run-all.sh [--wait-quiet]
#   --wait-quiet   before each benchmark, wait (checking every 60 s, at most
#                  WAIT_MAX seconds, default 1800) until the 1-minute load
#                  average is below QUIET_LOAD (default 0.5): medians taken
#                  while other work loads the CPU say little.
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

wait_quiet=false
for arg in "$@"; do
    case "$arg" in
        --wait-quiet) wait_quiet=true ;;
        -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
        *) die "unknown argument: $arg (see --help)" ;;
    esac
done

# Our release builds first, so that the wait below, and the load each script
# checks, are not our own compiler's.
log "building generator, reference-server and conformance (release)"
cargo build --release -p generator -p reference-server -p conformance

# wait_for_quiet: with --wait-quiet, wait until the 1-minute load average is
# below QUIET_LOAD, checking every 60 s for at most WAIT_MAX s. Called before
# each benchmark: the load average trails the one before by a minute or two.
QUIET_LOAD="${QUIET_LOAD:-0.5}"
WAIT_MAX="${WAIT_MAX:-1800}"
wait_for_quiet() {
    "$wait_quiet" || return 0
    local waited=0 load
    while :; do
        load="$(cut -d' ' -f1 /proc/loadavg)"
        python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$load" "$QUIET_LOAD" && return 0
        [ "$waited" -lt "$WAIT_MAX" ] || die "load average still $load after ${WAIT_MAX}s"
        log "load average $load (want < $QUIET_LOAD); waiting 60 s"
        sleep 60
        waited=$((waited + 60))
    done
}

failed=()
for bench in generator server conformance latency faults; do
    wait_for_quiet
    log "benches/$bench.sh"
    rm -f "$RESULTS/$bench.md"
    bash "$ROOT/benches/$bench.sh" || failed+=("$bench")
done

# The commit measured; benches/ itself is left out of "uncommitted" (this run
# rewrites its results).
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no -- . ':(exclude)benches' 2>/dev/null)" ]; then
    commit="$commit, with uncommitted changes outside benches/"
fi
{
    echo "# Benchmark results"
    echo
    echo "Machine: $(machine). Commit: $commit."
    echo "Produced by \`benches/run-all.sh\`; each table also stands alone in \`benches/results/\`."
    for bench in generator server conformance latency faults; do
        echo
        if [ -f "$RESULTS/$bench.md" ]; then
            cat "$RESULTS/$bench.md"
        else
            echo "### $bench: failed, no results (run \`benches/$bench.sh\` to see why)"
        fi
    done
} >"$RESULTS/summary.md"
cat "$RESULTS/summary.md"

# benches/README.md carries the same results between its markers.
python3 - "$ROOT/benches/README.md" "$RESULTS/summary.md" <<'PY'
import sys
readme_path, summary_path = sys.argv[1:]
readme = open(readme_path).read()
begin, end = "<!-- results:begin -->", "<!-- results:end -->"
if begin not in readme or end not in readme:
    sys.exit("benches/README.md lacks the results markers; left as it is")
summary = open(summary_path).read().split("\n", 2)[2]  # drop the title line and the blank after it
head, rest = readme.split(begin, 1)
tail = rest.split(end, 1)[1]
open(readme_path, "w").write(head + begin + "\n" + summary.strip() + "\n" + end + tail)
PY

if [ "${#failed[@]}" -gt 0 ]; then
    die "failed: ${failed[*]}"
fi
