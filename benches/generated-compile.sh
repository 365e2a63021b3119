#!/usr/bin/env bash
# Compile cost of generated code: ours beside progenitor's, for the largest
# specs both accept (benches/results/corpus.md says which). For each spec and
# each tool: the generated module's lines and bytes, a cold debug `cargo build`
# of the generated crate with its dependencies already built (`cargo clean -p`
# of that crate alone before each run), and an incremental rebuild after the
# generated file is touched; hyperfine medians of RUNS runs.
#
# Our crate is what a user writes around our output: `client-runtime` (this
# repository's, default features) and `serde`, with the module as src/lib.rs.
# progenitor's is the crate `cargo-progenitor` writes (its own Cargo.toml,
# reqwest without default features). Each has a target dir of its own, shared
# by the specs, so dependencies are built once per tool.
#
# The specs are copied by `git show` from progenitor's repository (MPL-2.0;
# origin of each in benches/corpus.sh), looked for under $MIRRORS (default
# /work/.mirror) and otherwise cloned bare from GitHub.
#
# Usage: benches/generated-compile.sh   (writes benches/results/generated-compile.md)
# Knobs: RUNS (3), SPECS (default: nexus buildomat propolis-server keeper).
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-3}"
MIRRORS="${MIRRORS:-/work/.mirror}"
read -r -a NAMES <<<"${SPECS:-nexus buildomat propolis-server keeper}"
OUT="$RESULTS/generated-compile.md"
W="$WORK/generated-compile"
rm -rf "$W/specs" "$W/ours" "$W/progenitor"
mkdir -p "$W/specs" "$W/ours" "$W/progenitor"

REPO=oxidecomputer/progenitor
COMMIT=73922cf
dir="$MIRRORS/${REPO/\//+}/repo"
if [ ! -d "$dir" ]; then
    dir="$WORK/mirrors/${REPO/\//+}.git"
    [ -d "$dir" ] || git clone -q --bare "https://github.com/$REPO" "$dir"
fi
for name in "${NAMES[@]}"; do
    git -C "$dir" show "$COMMIT:sample_openapi/$name.json" >"$W/specs/$name.json"
done

need_apt hyperfine hyperfine
need_progenitor
log "building the generator (release)"
cargo build -q --release -p generator
GENERATOR="$CARGO_TARGET_DIR/release/generator"

# cpu_means FILE: user + system CPU time of each command in hyperfine's
# --export-json FILE (mean, seconds): less moved by other load than wall time.
cpu_means() {
    python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%.6f" % (r["user"] + r["system"]))
' "$1"
}

# ratio2 A B: A / B with two decimals (ratio's one hides 1.04).
ratio2() { python3 -c 'import sys; a, b = map(float, sys.argv[1:]); print("%.2f" % (a / b) if b else "n/a")' "$1" "$2"; }
q() { printf '%q ' "$@"; }
# crate_of TOOL NAME: the generated crate's directory and package name.
ours_crate() { echo "ours-${1//[^a-zA-Z0-9]/-}"; }
peer_crate() { echo "peer-${1//[^a-zA-Z0-9]/-}"; }

declare -A lines bytes
for name in "${NAMES[@]}"; do
    spec="$W/specs/$name.json"
    crate="$(ours_crate "$name")"
    mkdir -p "$W/ours/$crate/src"
    cat >"$W/ours/$crate/Cargo.toml" <<TOML
[package]
name = "$crate"
version = "0.1.0"
edition = "2024"
[dependencies]
# The transport progenitor's crate has: reqwest without TLS (a TLS stack
# in the dependencies costs every build of the crate some 30 ms of metadata
# to load, whatever the generated code).
client-runtime = { path = "$ROOT/runtime", default-features = false, features = ["client"] }
serde = { version = "1", features = ["derive"] }
TOML
    "$GENERATOR" "$spec" --out "$W/ours/$crate/src/lib.rs" 2>"$W/ours-$name.err" ||
        die "our generator refused $name: see $W/ours-$name.err"
    crate="$(peer_crate "$name")"
    "$PROGENITOR" progenitor -i "$spec" -o "$W/progenitor/$crate" -n "$crate" -v 0.1.0 >"$W/progenitor-$name.log" 2>&1 ||
        die "cargo-progenitor refused $name: see $W/progenitor-$name.log"
    lines[ours-$name]="$(wc -l <"$W/ours/$(ours_crate "$name")/src/lib.rs")"
    bytes[ours-$name]="$(wc -c <"$W/ours/$(ours_crate "$name")/src/lib.rs")"
    lines[peer-$name]="$(cat "$W/progenitor/$crate"/src/*.rs | wc -l)"
    bytes[peer-$name]="$(cat "$W/progenitor/$crate"/src/*.rs | wc -c)"
done
# One workspace per tool, so that dependencies are resolved and built once.
{
    echo "[workspace]"
    echo "resolver = \"3\""
    printf 'members = ['
    for name in "${NAMES[@]}"; do printf '"%s", ' "$(ours_crate "$name")"; done
    echo "]"
} >"$W/ours/Cargo.toml"
{
    echo "[workspace]"
    echo "resolver = \"3\""
    printf 'members = ['
    for name in "${NAMES[@]}"; do printf '"%s", ' "$(peer_crate "$name")"; done
    echo "]"
} >"$W/progenitor/Cargo.toml"
# Our crates use this repository's lock file, so they build the versions it was tested with.
cp "$ROOT/Cargo.lock" "$W/ours/Cargo.lock"

log "building every generated crate once (dependencies included)"
(cd "$W/ours" && CARGO_TARGET_DIR="$W/target-ours" cargo build -q --workspace) ||
    die "our generated crates do not build"
(cd "$W/progenitor" && CARGO_TARGET_DIR="$W/target-peer" cargo build -q --workspace) ||
    die "progenitor's generated crates do not build"

warn_if_busy
declare -A cold incr cold_cpu incr_cpu
for name in "${NAMES[@]}"; do
    ours="$(ours_crate "$name")" peer="$(peer_crate "$name")"
    build_ours="cd $(q "$W/ours") && CARGO_TARGET_DIR=$(q "$W/target-ours") cargo build -q -p $ours"
    build_peer="cd $(q "$W/progenitor") && CARGO_TARGET_DIR=$(q "$W/target-peer") cargo build -q -p $peer"
    log "$name: cold builds of the generated crate, median of $RUNS"
    # One --prepare per command: each cleans only its own crate (cleaning
    # both would leave ours unbuilt for the incremental runs after).
    hyperfine --runs "$RUNS" --export-json "$W/hf-cold-$name.json" \
        --prepare "cd $(q "$W/ours") && CARGO_TARGET_DIR=$(q "$W/target-ours") cargo clean -q -p $ours" \
        --prepare "cd $(q "$W/progenitor") && CARGO_TARGET_DIR=$(q "$W/target-peer") cargo clean -q -p $peer" \
        "$build_ours" "$build_peer" >&2
    mapfile -t med < <(hyperfine_medians "$W/hf-cold-$name.json")
    cold[ours-$name]="${med[0]}" cold[peer-$name]="${med[1]}"
    mapfile -t cpu < <(cpu_means "$W/hf-cold-$name.json")
    cold_cpu[ours-$name]="${cpu[0]}" cold_cpu[peer-$name]="${cpu[1]}"
    log "$name: incremental rebuilds after touching the generated file, median of $RUNS"
    # A warm-up run first: the incremental cache of the cold runs' last build.
    hyperfine --runs "$RUNS" --warmup 1 --export-json "$W/hf-incr-$name.json" \
        --prepare "touch $(q "$W/ours/$ours/src/lib.rs")" \
        --prepare "touch $(q "$W/progenitor/$peer/src/lib.rs")" \
        "$build_ours" "$build_peer" >&2
    mapfile -t med < <(hyperfine_medians "$W/hf-incr-$name.json")
    incr[ours-$name]="${med[0]}" incr[peer-$name]="${med[1]}"
    mapfile -t cpu < <(cpu_means "$W/hf-incr-$name.json")
    incr_cpu[ours-$name]="${cpu[0]}" incr_cpu[peer-$name]="${cpu[1]}"
done

{
    echo "### Compile cost of the generated crate: ours beside progenitor $PROGENITOR_VERSION (debug, median of $RUNS)"
    echo
    echo "| Spec | lines, ours / progenitor | bytes, ours / progenitor | cold build, ours / progenitor | its CPU time | incremental rebuild, ours / progenitor | its CPU time |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for name in "${NAMES[@]}"; do
        echo "| \`$name.json\` | ${lines[ours-$name]} / ${lines[peer-$name]} ($(ratio2 "${lines[ours-$name]}" "${lines[peer-$name]}")×) | $(( bytes[ours-$name] / 1024 )) KiB / $(( bytes[peer-$name] / 1024 )) KiB | $(ms "${cold[ours-$name]}") / $(ms "${cold[peer-$name]}") ($(ratio2 "${cold[ours-$name]}" "${cold[peer-$name]}")×) | $(ms "${cold_cpu[ours-$name]}") / $(ms "${cold_cpu[peer-$name]}") ($(ratio2 "${cold_cpu[ours-$name]}" "${cold_cpu[peer-$name]}")×) | $(ms "${incr[ours-$name]}") / $(ms "${incr[peer-$name]}") ($(ratio2 "${incr[ours-$name]}" "${incr[peer-$name]}")×) | $(ms "${incr_cpu[ours-$name]}") / $(ms "${incr_cpu[peer-$name]}") ($(ratio2 "${incr_cpu[ours-$name]}" "${incr_cpu[peer-$name]}")×) |"
    done
    echo
    echo "Cold: \`cargo build\` (debug) of the generated crate after \`cargo clean -p\` of it alone, its dependencies built. Incremental: \`cargo build\` after touching the generated file. Whole \`cargo\` processes, wall time (median) and CPU time (user + system, mean: less moved by other load on the machine); ratios are ours / progenitor's (below 1.0: ours is smaller or faster). Ours: the generator of this commit, with \`client-runtime\` (feature \`client\` alone: reqwest without TLS, as progenitor's crate has it; with rustls, the default, each build of either would load a TLS stack's metadata too) and \`serde\`; progenitor's: the crate it writes (reqwest without TLS). Machine: $(machine)."
} >"$OUT"
cat "$OUT"
