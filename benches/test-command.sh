#!/usr/bin/env bash
# The README's two commands on a fresh clone, in the order a newcomer runs
# them (the crates already downloaded, as on any machine that has built once;
# an empty target dir): `cargo run -p conformance` (the suite against the
# embedded server), then `cargo test --workspace`; each split into its build
# and its run. Then the tests again once built, and with the dependencies
# built and our crates cold (what a CI cache of the dependencies, such as
# rust-cache, leaves: our crates cleaned, the rest kept). Also where the cold
# builds spend their time: every crate's compile time from `--timings`,
# summed over both commands, ours apart.
#
# Usage: benches/test-command.sh   (writes benches/results/test-command.md)
# Knobs: RUNS (1; a cold build is minutes on 2 cores). FIRST_ONLY=1 times
# the first command alone (build and suite), for each revision of REVS
# (default: the working tree; e.g. REVS="8d9e399 HEAD"), interleaved run by
# run, with where its build spends its time; it writes
# benches/results/first-command.md.
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-1}"
OUT="$RESULTS/test-command.md"
W="$WORK/test-command"

OURS="client-runtime generator component-auth-bindings generator-expected reference-server conformance-model conformance-wire conformance-suite conformance-report conformance-requirements traffic-rules conformance file-writer stub-server yaml-location"

seconds() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$2"; }
now() { date +%s.%N; }

# The split of --timings pages: units, their compile time summed, ours
# apart, the largest five.
where_time() {
    python3 - "$@" "$OURS" <<'EOF'
import json, re, sys
units = []
for path in sys.argv[1:-1]:
    text = open(path).read()
    units += json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S).group(1))
ours = set(sys.argv[-1].split())
total = sum(u["duration"] for u in units)
mine = sum(u["duration"] for u in units if u["name"] in ours)
top = sorted(units, key=lambda u: -u["duration"])[:5]
print("%d units, %.0f s of compiling: ours %.0f s, dependencies %.0f s; largest: %s" % (
    len(units), total, mine, total - mine,
    ", ".join("%s %.1f s" % (u["name"], u["duration"]) for u in top)))
EOF
}

LOAD_BEFORE="$(cut -d' ' -f1 /proc/loadavg)"

if [ -n "${FIRST_ONLY:-}" ]; then
    OUT="$RESULTS/first-command.md"
    rows=()
    for run in $(seq 1 "$RUNS"); do
        for rev in ${REVS:-WORKTREE}; do
            rm -rf "$W"
            git clone -q "$ROOT" "$W/clone"
            if [ "$rev" = WORKTREE ]; then
                git -C "$ROOT" diff HEAD | git -C "$W/clone" apply --allow-empty
                label="this tree ($(git -C "$ROOT" rev-parse --short HEAD))"
            else
                git -C "$W/clone" checkout -q "$rev"
                label="$rev"
            fi
            cd "$W/clone"
            export CARGO_TARGET_DIR="$W/clone/target"
            log "run $run, $label: cargo run -p conformance, cold"
            t0="$(now)"
            cargo build -p conformance --locked --timings >"$W/run-build.log" 2>&1 || die "the build failed: $W/run-build.log"
            t1="$(now)"
            cargo run -q -p conformance --locked -- --embedded >"$W/run.log" 2>&1 || die "the suite failed: $W/run.log"
            t2="$(now)"
            rows+=("| $run | $label | $(seconds "$t0" "$t1") s + $(seconds "$t1" "$t2") s = **$(seconds "$t0" "$t2") s** | $(where_time target/cargo-timings/cargo-timing.html) |")
            cd "$ROOT"
        done
    done
    {
        echo "# The README's first command, cold"
        echo
        echo "\`cargo run -p conformance\` on a fresh clone with an empty target dir, the crates downloaded"
        echo "($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(date -u +%Y-%m-%d), 1-minute load before: $LOAD_BEFORE)."
        echo
        echo "| Run | Revision | build + suite | Where the build spends its time (--timings, summed over units) |"
        echo "|---|---|---:|---|"
        printf '%s\n' "${rows[@]}"
    } >"$OUT"
    cat "$OUT"
    exit 0
fi

rows=()
for run in $(seq 1 "$RUNS"); do
    rm -rf "$W"
    git clone -q "$ROOT" "$W/clone"
    # The working tree's uncommitted changes too: the numbers are for what is here.
    git -C "$ROOT" diff HEAD | git -C "$W/clone" apply --allow-empty
    cd "$W/clone"
    export CARGO_TARGET_DIR="$W/clone/target"
    log "run $run: cargo run -p conformance, cold"
    t0="$(now)"
    cargo build -p conformance --locked --timings >"$W/run-build.log" 2>&1 || die "the build failed: $W/run-build.log"
    cp target/cargo-timings/cargo-timing.html "$W/timing-run.html"
    t1="$(now)"
    cargo run -q -p conformance --locked -- --embedded >"$W/run.log" 2>&1 || die "the suite failed: $W/run.log"
    t2="$(now)"
    log "run $run: cargo test --workspace, after it"
    cargo test --workspace --locked --no-run --timings >"$W/build.log" 2>&1 || die "the build failed: $W/build.log"
    cp target/cargo-timings/cargo-timing.html "$W/timing-test.html"
    t3="$(now)"
    cargo test --workspace --locked >"$W/test.log" 2>&1 || die "the tests failed: $W/test.log"
    t4="$(now)"
    log "run $run: the tests again, built"
    cargo test --workspace --locked >"$W/test2.log" 2>&1 || die "the tests failed: $W/test2.log"
    t5="$(now)"
    log "run $run: the tests with the dependencies built, our crates cleaned"
    # shellcheck disable=SC2086
    cargo clean --quiet $(printf -- '-p %s ' $OURS) 2>/dev/null
    cargo test --workspace --locked >"$W/test3.log" 2>&1 || die "the tests failed: $W/test3.log"
    t6="$(now)"
    split="$(where_time "$W/timing-run.html" "$W/timing-test.html")"
    rows+=("| $run | $(seconds "$t0" "$t1") s + $(seconds "$t1" "$t2") s = **$(seconds "$t0" "$t2") s** | $(seconds "$t2" "$t3") s + $(seconds "$t3" "$t4") s = **$(seconds "$t2" "$t4") s** | $(seconds "$t4" "$t5") s | $(seconds "$t5" "$t6") s | $split |")
    cd "$ROOT"
done

{
    echo "# The README's two commands, cold"
    echo
    echo "\`cargo run -p conformance\`, then \`cargo test --workspace\`, on a fresh clone with an empty target dir"
    echo "($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(date -u +%Y-%m-%d), 1-minute load before: $LOAD_BEFORE)."
    echo
    echo "| Run | \`cargo run -p conformance\`: build + suite | then \`cargo test --workspace\`: build + tests | Tests again, built | Dependencies built, our crates cold: build and tests | Where both cold builds spend their time (--timings, summed over units) |"
    echo "|---|---:|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
} >"$OUT"
cat "$OUT"
