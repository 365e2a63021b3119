#!/usr/bin/env bash
# Server stubs: `generator --server` beside openapi-generator's `rust-axum`,
# for the same documents. For each document and each tool: accepted (the
# generator exits 0), compiles (`cargo check` of the output, as a user's crate
# would hold it), warnings in the generated code, and the output's lines.
#
# Ours: a crate with `client-runtime` (features `client` and `server`) and
# `serde`, its lib.rs `#![deny(warnings)]` with the document's client output
# (for its `types`) and its server output as `server` beside them; a warning
# is then an error, so "compiles" means "compiles without warnings".
# openapi-generator's: the crate `generate -g rust-axum` writes (its own
# Cargo.toml, axum 0.8 and its other dependencies from crates.io), checked
# as written; its warnings are counted from cargo's output.
# Each tool has one target dir, shared by the documents, so dependencies are
# built once per tool.
#
# openapi-generator is the JVM program; its npm wrapper downloads the jar
# from Maven Central, which may be unreachable here, so it is taken from
# PyPI's `openapi-generator-cli` package, which ships the jar (pinned below),
# run with the machine's Java (17 or later). Without Java or the package,
# its columns say "not run" and ours still run.
#
# The documents: the real spec, the fixtures named in DOCS (default below),
# and the `corpus_*` fixtures (real public documents; origins in
# generator/fixtures/corpus.md).
#
# Usage: benches/server-stubs.sh   (writes benches/results/server-stubs.md)
# Knobs: DOCS (fixture stems), PEER (1; 0: ours only), GENERATOR (a built
# generator binary; default: a release build).
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OPENAPI_GENERATOR_VERSION="${OPENAPI_GENERATOR_VERSION:-7.26.0}"
PEER="${PEER:-1}"
read -r -a NAMES <<<"${DOCS:-petstore_expanded minimal parameters path_styles query_arrays request_bodies multipart shapes composition status_ranges security tagged openapi31 swagger2}"
OUT="$RESULTS/server-stubs.md"
W="$WORK/server-stubs"
rm -rf "$W/ours" "$W/peer"
mkdir -p "$W/ours/src" "$W/peer"

docs=("spec/openapi.yaml")
for name in "${NAMES[@]}"; do
    for ext in yaml yml json; do
        [ -f "generator/fixtures/$name.$ext" ] && docs+=("generator/fixtures/$name.$ext")
    done
done
for f in generator/fixtures/corpus_*.yaml generator/fixtures/corpus_*.json; do
    [ -f "$f" ] && docs+=("$f")
done

# No timing is measured here: any build of the generator will do
# (GENERATOR=target/debug/generator skips the release build).
if [ -z "${GENERATOR:-}" ]; then
    log "building the generator (release)"
    cargo build -q --release -p generator
    GENERATOR="$CARGO_TARGET_DIR/release/generator"
fi

peer=""
if [ "$PEER" = 1 ] && command -v java >/dev/null 2>&1; then
    need_venv "openapi-generator-cli==$OPENAPI_GENERATOR_VERSION"
    if "$VENV/bin/openapi-generator-cli" version >/dev/null 2>&1; then
        peer="$VENV/bin/openapi-generator-cli"
    fi
fi

# Our crate: dependencies by path, a workspace of its own.
cat >"$W/ours/Cargo.toml" <<EOF
[package]
name = "ours"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
client-runtime = { path = "$ROOT/runtime", features = ["client", "server"] }
serde = { version = "1", features = ["derive"] }

[workspace]
EOF
export OURS_TARGET="$W/ours-target" PEER_TARGET="$W/peer-target"

row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" >>"$OUT.tmp"; }
: >"$OUT.tmp"
: >"$OUT.errors"
ours_ok=0 peer_ok=0 peer_ran=0 peer_clean=0 total=0
for spec in "${docs[@]}"; do
    name="$(basename "${spec%.*}")"
    total=$((total + 1))
    log "$name"
    # Ours.
    o_acc=no o_ok=no o_warn=- o_lines=-
    if "$GENERATOR" "$spec" --out "$W/ours/src/client.rs" 2>/dev/null &&
        "$GENERATOR" "$spec" --server --out "$W/ours/src/server.rs" 2>/dev/null; then
        o_acc=yes
        o_lines="$(wc -l <"$W/ours/src/server.rs")"
        printf '#![deny(warnings)]\n#[path = "client.rs"]\nmod client;\npub use client::*;\npub mod server;\n' >"$W/ours/src/lib.rs"
        if CARGO_TARGET_DIR="$OURS_TARGET" cargo check -q --manifest-path "$W/ours/Cargo.toml" >"$W/ours.log" 2>&1; then
            o_ok=yes o_warn="0 warnings" ours_ok=$((ours_ok + 1))
        else
            o_warn="$(grep -c '^error' "$W/ours.log" || true) errors"
        fi
    fi
    # openapi-generator's rust-axum.
    p_acc="not run" p_ok="not run" p_warn=- p_lines=-
    if [ -n "$peer" ]; then
        peer_ran=$((peer_ran + 1))
        dir="$W/peer/$name"
        if "$peer" generate -q -g rust-axum -i "$spec" -o "$dir" \
            --additional-properties=packageName=peer_"$name" >"$W/peer-gen.log" 2>&1; then
            p_acc=yes
            p_lines="$(find "$dir/src" -name '*.rs' -exec cat {} + | wc -l)"
            grep -q '^\[workspace\]' "$dir/Cargo.toml" || printf '\n[workspace]\n' >>"$dir/Cargo.toml"
            if CARGO_TARGET_DIR="$PEER_TARGET" cargo check --manifest-path "$dir/Cargo.toml" >"$W/peer.log" 2>&1; then
                p_ok=yes peer_ok=$((peer_ok + 1))
            else
                p_ok=no
            fi
            # Warnings in the generated crate itself (not its dependencies).
            # (cargo caps the lints of registry crates: the only count it
            # prints is the generated crate's).
            p_warn="$(grep -oE 'generated [0-9]+ warning' "$W/peer.log" | grep -oE '[0-9]+' | head -1 || true)"
            p_warn="${p_warn:-0}"
            [ "$p_ok" = yes ] && [ "$p_warn" = 0 ] && peer_clean=$((peer_clean + 1))
        else
            p_acc=no p_ok=-
        fi
    fi
    row "$name" "$o_acc" "$o_ok" "$o_warn" "$o_lines" "$p_acc" "$p_ok" "$p_warn" "$p_lines"
done

{
    echo "# Server stubs: generator --server beside openapi-generator rust-axum"
    echo
    echo "Written by \`benches/server-stubs.sh\` on $(date -u +%Y-%m-%d) ($(nproc) cores)."
    if [ -n "$peer" ]; then
        echo "openapi-generator $("$peer" version 2>/dev/null) (PyPI \`openapi-generator-cli\`), $(java -version 2>&1 | head -1)."
    else
        echo "openapi-generator: not run (no Java, or the PyPI package could not be installed)."
    fi
    echo
    echo "Ours compile with \`#![deny(warnings)]\`: a warning is an error. \"generated: no\": the generator refused the document."
    echo
    echo "| document | ours: generated | ours: compiles | ours: diagnostics | ours: server lines | rust-axum: generated | rust-axum: compiles | rust-axum: diagnostics | rust-axum: lines |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    cat "$OUT.tmp"
    echo
    echo "Ours: $ours_ok of $total compile without a warning. rust-axum: $peer_ok of $peer_ran compile ($peer_clean without a warning)."
    if [ -s "$OUT.errors" ]; then
        echo
        echo "rust-axum's first error, where it does not compile:"
        echo
        cat "$OUT.errors"
    fi
} >"$OUT"
rm -f "$OUT.tmp" "$OUT.errors"
log "wrote $OUT"
cat "$OUT"
