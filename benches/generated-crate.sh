#!/usr/bin/env bash
# The generated crate for this interface, beside progenitor's: the normal
# dependency count (`cargo tree -e normal`, distinct crates) and a cold
# release build (`cargo build --release` in an empty target dir, whole
# process, median of RUNS runs), for our `component-auth-bindings` (with its
# default features, rustls on ring; with native-tls, the system's OpenSSL;
# and plain HTTP without TLS (`client` alone), as progenitor's crate is: it turns reqwest's
# default features off) and for
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
need_progenitor

MERGED="$WORK/generator/openapi-417-merged-into-400.yaml"
[ -f "$MERGED" ] || bash "$ROOT/benches/generator.sh" >&2
[ -f "$MERGED" ] || die "benches/generator.sh did not write $MERGED"

"$PROGENITOR" progenitor -i "$MERGED" -o "$W/progenitor-crate" -n component-auth-progenitor -v 0.1.0 >"$W/progenitor.log" 2>&1 ||
    die "cargo-progenitor failed: see $W/progenitor.log"
# A workspace of its own, so that ours is not built into it.
printf '\n[workspace]\n' >>"$W/progenitor-crate/Cargo.toml"
(cd "$W/progenitor-crate" && cargo generate-lockfile -q)

count() { # MANIFEST PACKAGE [CARGO FLAGS...]
    local manifest="$1" package="$2"
    shift 2
    cargo tree --manifest-path "$manifest" -p "$package" "$@" -e normal --prefix none 2>/dev/null |
        sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | grep -vc "^$package v"
}
NATIVE=(--no-default-features --features native-tls)
PLAIN=(--no-default-features --features client)
ours_deps="$(count "$ROOT/Cargo.toml" component-auth-bindings)"
native_deps="$(count "$ROOT/Cargo.toml" component-auth-bindings "${NATIVE[@]}")"
plain_deps="$(count "$ROOT/Cargo.toml" component-auth-bindings "${PLAIN[@]}")"
peer_deps="$(count "$W/progenitor-crate/Cargo.toml" component-auth-progenitor)"

q() { printf '%q ' "$@"; }
ours() { # TARGET-NAME [CARGO FLAGS...]
    local target="$W/target-$1" flags=""
    shift
    [ $# -eq 0 ] || flags="$(q "$@")"
    echo "cd $(q "$ROOT") && CARGO_TARGET_DIR=$(q "$target") cargo build -q --release --locked -p component-auth-bindings $flags"
}
warn_if_busy
log "cold release builds, median of $RUNS each"
hyperfine --runs "$RUNS" --export-json "$W/hf.json" \
    --prepare "rm -rf $(q "$W/target-rustls" "$W/target-native" "$W/target-plain" "$W/target-peer")" \
    "$(ours rustls)" \
    "$(ours native "${NATIVE[@]}")" \
    "$(ours plain "${PLAIN[@]}")" \
    "cd $(q "$W/progenitor-crate") && CARGO_TARGET_DIR=$(q "$W/target-peer") cargo build -q --release" >&2
mapfile -t med < <(hyperfine_medians "$W/hf.json")

{
    echo "### The generated crate for this interface: dependencies and cold build"
    echo
    echo "| Crate | normal dependencies | cold \`cargo build --release\` (median of $RUNS) |"
    echo "| --- | ---: | ---: |"
    echo "| ours: \`component-auth-bindings\`, default features (rustls on ring, no system library) | $ours_deps | $(ms "${med[0]}") |"
    echo "| ours: \`--no-default-features --features native-tls\` (the system's OpenSSL) | $native_deps | $(ms "${med[1]}") |"
    echo "| ours: \`--no-default-features --features client\` (plain HTTP) | $plain_deps | $(ms "${med[2]}") |"
    echo "| progenitor $PROGENITOR_VERSION, from the merged copy of the spec (reqwest without default features: plain HTTP, no TLS) | $peer_deps | $(ms "${med[3]}") |"
    echo
    echo "Each built alone in an empty target dir. Machine: $(machine)."
} >"$OUT"
cat "$OUT"
