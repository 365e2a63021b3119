#!/usr/bin/env bash
# The generated crate for this interface, beside progenitor's: the normal
# dependency count (`cargo tree -e normal`, distinct crates) and a cold
# release build (`cargo build --release` in an empty target dir, whole
# process, median of RUNS runs), for our `component-auth-bindings` and for
# the crate cargo-progenitor generates from the copy of the spec with the 417
# body merged into the 400 one (progenitor refuses the spec itself; see
# benches/generator.sh, which writes that copy).
#
# Usage: benches/generated-crate.sh   (writes benches/results/generated-crate.md)
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-3}"
OUT="$RESULTS/generated-crate.md"
W="$WORK/generated-crate"
rm -rf "$W"
mkdir -p "$W"

need_apt hyperfine hyperfine
need_venv pyyaml
PROGENITOR="$TOOLS/cargo/bin/cargo-progenitor"
if [ ! -x "$PROGENITOR" ]; then
    log "installing cargo-progenitor $PROGENITOR_VERSION (crates.io) into $TOOLS/cargo"
    nice cargo install --locked --root "$TOOLS/cargo" --version "$PROGENITOR_VERSION" cargo-progenitor
fi

MERGED="$WORK/generator/openapi-417-merged-into-400.yaml"
[ -f "$MERGED" ] || bash "$ROOT/benches/generator.sh" >&2
[ -f "$MERGED" ] || die "benches/generator.sh did not write $MERGED"

"$PROGENITOR" progenitor -i "$MERGED" -o "$W/progenitor-crate" -n component-auth-progenitor -v 0.1.0 >"$W/progenitor.log" 2>&1 ||
    die "cargo-progenitor failed: see $W/progenitor.log"
# A workspace of its own, so that ours is not built into it.
printf '\n[workspace]\n' >>"$W/progenitor-crate/Cargo.toml"
(cd "$W/progenitor-crate" && cargo generate-lockfile -q)

count() { # MANIFEST PACKAGE
    cargo tree --manifest-path "$1" -p "$2" -e normal --prefix none 2>/dev/null |
        sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | grep -vc "^$2 v"
}
ours_deps="$(count "$ROOT/Cargo.toml" component-auth-bindings)"
peer_deps="$(count "$W/progenitor-crate/Cargo.toml" component-auth-progenitor)"

q() { printf '%q ' "$@"; }
warn_if_busy
log "cold release builds, median of $RUNS each"
hyperfine --runs "$RUNS" --export-json "$W/hf.json" \
    --prepare "rm -rf $(q "$W/target-ours") $(q "$W/target-peer")" \
    "cd $(q "$ROOT") && CARGO_TARGET_DIR=$(q "$W/target-ours") cargo build -q --release --locked -p component-auth-bindings" \
    "cd $(q "$W/progenitor-crate") && CARGO_TARGET_DIR=$(q "$W/target-peer") cargo build -q --release" >&2
mapfile -t med < <(hyperfine_medians "$W/hf.json")

{
    echo "### The generated crate for this interface: dependencies and cold build"
    echo
    echo "| Crate | normal dependencies | cold \`cargo build --release\` (median of $RUNS) |"
    echo "| --- | ---: | ---: |"
    echo "| ours: \`component-auth-bindings\` (rustls on ring, no redirects) | $ours_deps | $(ms "${med[0]}") |"
    echo "| progenitor $PROGENITOR_VERSION, from the merged copy of the spec | $peer_deps | $(ms "${med[1]}") |"
    echo
    echo "Each built alone in an empty target dir. Machine: $(machine)."
} >"$OUT"
cat "$OUT"
