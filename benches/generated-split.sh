#!/usr/bin/env bash
# The compile cost of a large API's bindings, whole and split by tag (issue
# 47): a document in the shape of GitHub's REST description (TAGS tags of
# OPS operations, 1,200 by default like GitHub's 1,223; written by
# benches/large_spec.py, since public documents are not read here), its
# bindings generated with `--tag-features`, and the crate around them
# checked cold (`cargo check`, its dependencies already checked) with every
# tag's feature on, with one tag's, and with none: CPU time (user + system)
# and peak memory (the largest RSS of cargo and the rustc it runs, GNU
# time's %M), median of RUNS runs. Also the generator's own CPU and peak
# memory on the document, and on one near the 64 MiB cap (BIG_PAD bytes of
# text per operation) to state the multiple of the input it holds.
#
# Target (stated in benches/README.md): a crate that turns on one tag of
# 40 checks in at most a tenth of the CPU time of the whole and at most half
# its peak memory.
#
# Usage: benches/generated-split.sh   (writes benches/results/generated-split.md)
# Knobs: RUNS (3), TAGS (40), OPS (30), PAD (3000), BIG_PAD (52000; 0 skips),
#        GENERATOR (a generator binary; default: a release build).
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-3}"
TAGS="${TAGS:-40}"
OPS="${OPS:-30}"
PAD="${PAD:-3000}"
BIG_PAD="${BIG_PAD:-52000}"
OUT="$RESULTS/generated-split.md"
W="$WORK/generated-split"
rm -rf "$W/crate"
mkdir -p "$W/crate/src"

if [ -z "${GENERATOR:-}" ]; then
    log "building the generator (release)"
    cargo build -q --release -p generator
    GENERATOR="$CARGO_TARGET_DIR/release/generator"
fi

# measure CMD...: "CPU_SECONDS PEAK_KIB" of one run of CMD.
measure() {
    local stats
    stats="$(mktemp)"
    /usr/bin/time -f "%U %S %M" -o "$stats" "$@" >/dev/null 2>"$W/last.err" || {
        cat "$W/last.err" >&2
        die "failed: $*"
    }
    awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$stats"
    rm -f "$stats"
}

# median_of N CMD...: the median CPU and the median peak of N runs.
median_of() {
    local n="$1"
    shift
    local cpus=() peaks=() i cpu peak
    for ((i = 0; i < n; i++)); do
        read -r cpu peak < <("${PRE_RUN[@]}"; measure "$@")
        cpus+=("$cpu")
        peaks+=("$peak")
    done
    python3 -c '
import statistics, sys
n = int(sys.argv[1]); vals = sys.argv[2:]
cpus = [float(v) for v in vals[:n]]; peaks = [int(v) for v in vals[n:]]
print("%.2f %d" % (statistics.median(cpus), statistics.median(peaks)))
' "$n" "${cpus[@]}" "${peaks[@]}"
}

log "writing the document ($TAGS tags x $OPS operations)"
python3 benches/large_spec.py "$TAGS" "$OPS" "$PAD" >"$W/spec.json"
SPEC_BYTES=$(stat -c %s "$W/spec.json")

# One run: the generator's time is not what this measures.
read -r GEN_CPU GEN_PEAK < <(measure "$GENERATOR" "$W/spec.json" --tag-features --out "$W/crate/src/lib.rs")
LINES=$(wc -l <"$W/crate/src/lib.rs")

BIG_ROW=""
if [ "$BIG_PAD" != 0 ]; then
    log "writing a document near the 64 MiB cap"
    python3 benches/large_spec.py "$TAGS" "$OPS" "$BIG_PAD" >"$W/big.json"
    BIG_BYTES=$(stat -c %s "$W/big.json")
    read -r BIG_CPU BIG_PEAK < <(measure "$GENERATOR" "$W/big.json" --out "$W/big.rs")
    BIG_ROW="| generator on a $((BIG_BYTES / 1048576)) MiB document | $BIG_CPU s | $((BIG_PEAK / 1024)) MiB | $(python3 -c "print('%.1f' % ($BIG_PEAK * 1024 / $BIG_BYTES))") × the input |"
    rm -f "$W/big.json" "$W/big.rs"
fi

# The crate a user writes around the output: the features its header lists.
FEATURES=$(awk '/^\/\/ (tag-[a-z0-9-]+|untagged) = \[\]$/ { print $2 }' "$W/crate/src/lib.rs")
[ -n "$FEATURES" ] || die "no features listed in the output's header"
ONE=$(printf '%s\n' "$FEATURES" | head -n 1)
{
    printf '[package]\nname = "split-bench"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
    printf '[workspace]\n\n'
    printf '[dependencies]\nclient-runtime = { path = "%s/runtime" }\nserde = { version = "1", features = ["derive"] }\n\n' "$ROOT"
    printf '[features]\n'
    printf '%s = []\n' $FEATURES
    printf 'all = [%s]\n' "$(printf '"%s", ' $FEATURES | sed 's/, $//')"
} >"$W/crate/Cargo.toml"

export CARGO_TARGET_DIR="$W/target"
cd "$W/crate"
log "checking the dependencies once"
cargo check -q
PRE_RUN=(cargo clean -q -p split-bench)
log "checking the crate: every tag, one tag ($ONE), none"
read -r ALL_CPU ALL_PEAK < <(median_of "$RUNS" cargo check -q --features all)
read -r ONE_CPU ONE_PEAK < <(median_of "$RUNS" cargo check -q --features "$ONE")
read -r NONE_CPU NONE_PEAK < <(median_of "$RUNS" cargo check -q)
cd "$ROOT"

pct() { python3 -c 'import sys; a, b = map(float, sys.argv[1:]); print("%.0f %%" % (100 * a / b))' "$1" "$2"; }
{
    echo "# Compile cost of a large API's bindings, split by tag"
    echo
    echo "$(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); medians of $RUNS run(s); generator: $GENERATOR."
    echo "Document: benches/large_spec.py $TAGS $OPS $PAD ($((TAGS * OPS)) operations, $((SPEC_BYTES / 1024)) KiB); output: $LINES lines."
    echo
    echo "| what | CPU | peak memory | share of the whole |"
    echo "| --- | --- | --- | --- |"
    echo "| generator (--tag-features), one run | $GEN_CPU s | $((GEN_PEAK / 1024)) MiB | |"
    [ -n "$BIG_ROW" ] && echo "$BIG_ROW"
    echo "| cargo check, every tag | $ALL_CPU s | $((ALL_PEAK / 1024)) MiB | 100 % |"
    echo "| cargo check, one tag ($ONE) | $ONE_CPU s | $((ONE_PEAK / 1024)) MiB | $(pct "$ONE_CPU" "$ALL_CPU") CPU, $(pct "$ONE_PEAK" "$ALL_PEAK") memory |"
    echo "| cargo check, no tag | $NONE_CPU s | $((NONE_PEAK / 1024)) MiB | $(pct "$NONE_CPU" "$ALL_CPU") CPU, $(pct "$NONE_PEAK" "$ALL_PEAK") memory |"
} | tee "$OUT"
