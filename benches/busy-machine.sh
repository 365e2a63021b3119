#!/usr/bin/env bash
# The README's test command on a busy machine: eight CPU-bound processes run
# beside it for its whole length (on 2 cores, a load of about 10 before the
# tests add their own), as on a shared CI runner. It must pass as it does on
# an idle machine: no test may expect an answer within a few seconds, and the
# gate judges a late answer as no answer (re-sent, or not judged), never as
# the server's answer to a rule. Records the wall time, the exit code and the
# failing tests, beside the same command on the idle machine.
#
# Usage: benches/busy-machine.sh   (writes benches/results/busy-machine.md)
# Knobs: HOGS (8), RUNS (1), IDLE (1: also time the command without the hogs).
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOGS="${HOGS:-8}"
RUNS="${RUNS:-1}"
IDLE="${IDLE:-1}"
OUT="$RESULTS/busy-machine.md"
W="$WORK/busy-machine"
mkdir -p "$W"
# The tests' own target dir, as the README's command uses it.
export CARGO_TARGET_DIR="$ROOT/target"

now() { date +%s.%N; }
seconds() { python3 -c 'import sys; print("%.0f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$2"; }

hogs=()
start_hogs() {
    for _ in $(seq 1 "$HOGS"); do
        # A busy loop in the shell itself: CPU only, no memory, no I/O.
        bash -c 'while :; do :; done' &
        hogs+=("$!")
    done
}
stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
    hogs=()
}
trap stop_hogs EXIT

log "building the tests first (the build is not what is measured)"
cargo test --workspace --locked --no-run >"$W/build.log" 2>&1 || die "the build failed: $W/build.log"

# One run of the test command: "seconds exit failures".
one() {
    local name="$1"
    local t0 t1 rc=0
    t0="$(now)"
    cargo test --workspace --locked --no-fail-fast >"$W/$name.log" 2>&1 || rc=$?
    t1="$(now)"
    local failed
    failed="$(grep -E '^test .* FAILED$' "$W/$name.log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | sort -u | paste -sd, - || true)"
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    echo "| $name | $(seconds "$t0" "$t1") s | $rc | ${failed:-none} | $load |"
}

rows=()
if [ "$IDLE" = 1 ]; then
    log "the test command, idle"
    rows+=("$(one idle)")
fi
for run in $(seq 1 "$RUNS"); do
    log "the test command beside $HOGS busy loops (run $run)"
    start_hogs
    rows+=("$(one "busy-$run")")
    stop_hogs
done

{
    echo "# The README's test command on a busy machine"
    echo
    echo "\`cargo test --workspace --locked --no-fail-fast\`, built, beside $HOGS CPU-bound processes"
    echo "($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(date -u +%Y-%m-%d))."
    echo
    echo "| Run | Wall time | Exit | Failed tests | 1-minute load at the end |"
    echo "|---|---:|---:|---|---:|"
    printf '%s\n' "${rows[@]}"
} >"$OUT"
cat "$OUT"
