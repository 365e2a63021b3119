#!/usr/bin/env bash
# Corpus: our generator and progenitor side by side over real public specs.
# For each spec and each tool: accepted (exit 0), compiles (`cargo check` of
# the output), and generation time (whole process, release build, median of
# $RUNS runs with hyperfine).
#
# The specs are not committed: they are copied here, by `git show`, from
# mirrors of their repositories, at the commit named below, into
# target/bench-work/corpus/specs/. Origin and licence of each:
#
#   OAI/OpenAPI-Specification @ e77481c7^ (the commit before the examples
#     moved to learn.openapis.org), examples/v3.0/*.yaml and v3.1/*.yaml:
#     Apache-2.0, The Linux Foundation.
#   oxidecomputer/progenitor @ 73922cf, sample_openapi/*.json: MPL-2.0
#     (progenitor); taken by progenitor from github/rest-api-description (MIT,
#     api.github.com.json), oxidecomputer/omicron (nexus.json, MPL-2.0),
#     oxidecomputer/propolis, oxidecomputer/buildomat, jclulow/keeper.
#   Adyen/adyen-openapi @ aa014f0, json/*.json (16 services, payments to
#     legal entities; 3.1): MIT, Adyen bv.
#   twilio/twilio-oai @ d50069b, spec/json/twilio_*.json (8 products, form
#     bodies, `/{Sid}.json` paths; 3.0): MIT, Twilio Inc.
#   discord/discord-api-spec @ 74fda0f, specs/openapi.json (3.1): MIT, Discord.
#   openai/openai-openapi @ f85dbe2, openapi.yaml (3.0, 2.9 MB, multipart
#     uploads): MIT, OpenAI.
#   box/box-openapi @ c9a878a, openapi.json (3.0): Apache-2.0, Box Inc.
#   Redocly/museum-openapi-example @ 2770b2b, openapi.yaml (3.1): MIT,
#     Redocly Inc.
#   Swagger 2.0: OAI/OpenAPI-Specification @ e77481c7^, examples/v2.0/yaml/
#     (7 specs, named *-2.0; Apache-2.0); moby/moby @ b985e23, api/swagger.yaml
#     (the Docker Engine API, 2.0): Apache-2.0, Docker Inc.;
#     slackapi/slack-api-specs @ bc08db4, web-api/slack_web_openapi_v2.json
#     (the Slack Web API, 2.0, 1.2 MB): MIT, SlackAPI.
#   Split over several files (the whole folder is copied, by `git archive`,
#     into target/bench-work/corpus/specs/<name>/): Redocly/openapi-starter
#     @ 9cf62a5, openapi/openapi.yaml (3.1, 40 files): MIT;
#     digitalocean/openapi @ 7c1300c4, specification/DigitalOcean-public.v2.yaml
#     (3.0, about 2,900 files): Apache-2.0, DigitalOcean;
#     OAI/OpenAPI-Specification @ e77481c7^, the 2.0 petstore-separate
#     (spec/swagger.yaml, which refers to ../common/Error.yaml): Apache-2.0.
#   Issue 38's holdout (what the generator degraded, bent or refused):
#     OAI/learn.openapis.org @ cff6533 (examples/v3.2/3.2-tags-example.yaml)
#     and @ 0847bae (examples/v3.2/3.2-query-example.yaml, the `query`
#     method), OpenAPI 3.2.0: CC-BY-4.0, the OpenAPI Initiative;
#     openapi-generators/openapi-python-client @ ee9a8c4,
#     end_to_end_tests/ (its baseline 3.0 and 3.1 documents, the 3.1
#     specific one, 3.1 enums): MIT, Triax Technologies;
#     ogen-go/ogen @ 2569478, _testdata/positive/ (a response header given
#     by `content`, a tuple `items: [...]` in 3.1, a document without
#     `info`, a 3.2 document with `additionalOperations`, security
#     schemes, servers, parameters of every style,
#     webhooks, a `$ref` to another file):
#     Apache-2.0, the ogen authors.
#
# A document that cannot be had (no mirror, no network, a commit missing
# from a snapshot) is listed as unavailable under the table; the rest run.
#
# A mirror is looked for under $MIRRORS/<owner>+<name>/repo (default
# /work/.mirror, where the session's fetch tool puts them) and otherwise
# cloned bare from GitHub into target/bench-work/mirrors/.
#
# Usage: benches/corpus.sh   (writes benches/results/corpus.md)
# Knobs: RUNS (3), COMPILE (1: cargo check each output; 0: skip), PEER (1:
# progenitor beside ours; 0: ours only, progenitor's columns "not run").
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS="${RUNS:-3}"
COMPILE="${COMPILE:-1}"
PEER="${PEER:-1}"
MIRRORS="${MIRRORS:-/work/.mirror}"
OUT="$RESULTS/corpus.md"
W="$WORK/corpus"
rm -rf "$W/specs" "$W/ours" "$W/progenitor"
mkdir -p "$W/specs" "$W/ours/src" "$W/progenitor"

# owner/name commit path...
SOURCES=(
    "OAI/OpenAPI-Specification e77481c73e1c703c7de2e4249047b42b8e9b56f4^ examples/v3.0/petstore.yaml examples/v3.0/petstore-expanded.yaml examples/v3.0/api-with-examples.yaml examples/v3.0/callback-example.yaml examples/v3.0/link-example.yaml examples/v3.0/uspto.yaml examples/v3.1/webhook-example.yaml examples/v3.1/non-oauth-scopes.yaml"
    "oxidecomputer/progenitor 73922cf sample_openapi/keeper.json sample_openapi/buildomat.json sample_openapi/propolis-server.json sample_openapi/nexus.json sample_openapi/param-collision.json sample_openapi/param-overrides.json sample_openapi/cli-gen.json sample_openapi/api.github.com.json"
    "Adyen/adyen-openapi aa014f0cbdb58ff5c44a2ff9d5fe734642210aff json/A2APaymentsService-v1.json json/BalanceControlService-v2.json json/BalancePlatformService-v2.json json/BinLookupService-v54.json json/CapitalService-v1.json json/CheckoutService-v72.json json/DataProtectionService-v1.json json/DisputeService-v30.json json/LegalEntityService-v4.json json/ManagementService-v3.json json/PaymentService-v68.json json/PayoutService-v68.json json/RecurringService-v68.json json/StoredValueService-v46.json json/TransferService-v4.json json/SessionAuthenticationService-v1.json"
    "twilio/twilio-oai d50069b44ea8cd23141385bdb6db48f16ff75bb5 spec/json/twilio_api_v2010.json spec/json/twilio_chat_v2.json spec/json/twilio_messaging_v1.json spec/json/twilio_verify_v2.json spec/json/twilio_video_v1.json spec/json/twilio_studio_v2.json spec/json/twilio_conversations_v1.json spec/json/twilio_serverless_v1.json"
    "discord/discord-api-spec 74fda0fad044407ea280043a03ffc9bc64c4e49e specs/openapi.json"
    "openai/openai-openapi f85dbe223d40e1a31cba812ab2d755c7e98a92a3 openapi.yaml"
    "box/box-openapi c9a878a9824344129881392e2b08f7117201e82e openapi.json"
    "Redocly/museum-openapi-example 2770b2b2e59832d245c7b0eb0badf6568d7efb53 openapi.yaml"
    "OAI/OpenAPI-Specification e77481c73e1c703c7de2e4249047b42b8e9b56f4^ examples/v2.0/yaml/petstore.yaml examples/v2.0/yaml/petstore-expanded.yaml examples/v2.0/yaml/petstore-minimal.yaml examples/v2.0/yaml/petstore-simple.yaml examples/v2.0/yaml/petstore-with-external-docs.yaml examples/v2.0/yaml/uber.yaml examples/v2.0/yaml/api-with-examples.yaml"
    "moby/moby b985e2313a8676e18072b442911fc8f64f17d440 api/swagger.yaml"
    "slackapi/slack-api-specs bc08db49625630e3585bf2f1322128ea04f2a7f3 web-api/slack_web_openapi_v2.json"
    "OAI/learn.openapis.org cff6533ce5444b144946ef6ae2722c34ef6769e0 examples/v3.2/3.2-tags-example.yaml"
    "OAI/learn.openapis.org 0847baee64cbc83b3531437503c35449c52a309b examples/v3.2/3.2-query-example.yaml"
    "openapi-generators/openapi-python-client ee9a8c435b92e7425a0b68be2d42bae977bf7526 end_to_end_tests/baseline_openapi_3.0.json end_to_end_tests/baseline_openapi_3.1.yaml end_to_end_tests/3.1_specific.openapi.yaml end_to_end_tests/openapi_3.1_enums.yaml"
    "ogen-go/ogen 2569478736aed33cf1fe9d2a5b6e2d659bea0e69 _testdata/positive/content_header_response.json _testdata/positive/sample.json _testdata/positive/client_options.json _testdata/positive/security.json _testdata/positive/servers.json _testdata/positive/parameters.json _testdata/positive/webhooks.json _testdata/positive/additional_operations.yml"
)

# Split documents: owner/name commit folder root (the root file, in the folder).
SPLIT=(
    "Redocly/openapi-starter 9cf62a576cac37ac90c875337fdebb3f09a072c6 openapi openapi.yaml"
    "digitalocean/openapi 7c1300c479fed9c353cda9fc21cd968619552304 specification DigitalOcean-public.v2.yaml"
    "OAI/OpenAPI-Specification e77481c73e1c703c7de2e4249047b42b8e9b56f4^ examples/v2.0/yaml/petstore-separate spec/swagger.yaml"
    "ogen-go/ogen 2569478736aed33cf1fe9d2a5b6e2d659bea0e69 _testdata/positive file_reference.yml"
)

mirror() {
    local repo="$1" dir="$MIRRORS/${1/\//+}/repo"
    if [ -d "$dir" ]; then echo "$dir"; return; fi
    dir="$WORK/mirrors/${repo/\//+}.git"
    [ -d "$dir" ] || git clone -q --bare "https://github.com/$repo" "$dir" 2>/dev/null || return 1
    echo "$dir"
}

specs=()
unavailable=()
for source in "${SOURCES[@]}"; do
    read -r repo commit paths <<<"$source"
    if ! dir="$(mirror "$repo")"; then
        for path in $paths; do unavailable+=("$repo@${commit:0:7}:$path (no mirror)"); done
        continue
    fi
    for path in $paths; do
        name="$(basename "$path")"
        name="${name%.*}"
        [[ "$path" == *v3.1* ]] && name="$name-3.1"
        [[ "$path" == *v2.0* ]] && name="$name-2.0"
        # A name every vendor uses: told apart by the repository's.
        [ "$name" = openapi ] && name="${repo#*/}"
        file="$W/specs/$name.${path##*.}"
        if ! git -C "$dir" show "$commit:$path" >"$file" 2>/dev/null; then
            rm -f "$file"
            unavailable+=("$repo@${commit:0:7}:$path (not in the mirror)")
            continue
        fi
        specs+=("$file")
    done
done
for source in "${SPLIT[@]}"; do
    read -r repo commit folder root <<<"$source"
    if ! dir="$(mirror "$repo")"; then
        unavailable+=("$repo@${commit:0:7}:$folder/$root (no mirror)")
        continue
    fi
    name="${repo#*/}"
    [ -d "$W/specs/$name" ] && name="$name-$(basename "$folder")"
    mkdir -p "$W/specs/$name"
    # `git archive` needs every blob of the folder; a snapshot may lack
    # large ones: then each file is copied alone, and the root must be.
    if ! git -C "$dir" archive "$commit" "$folder" 2>/dev/null | tar -x -C "$W/specs/$name" 2>/dev/null; then
        while read -r file; do
            mkdir -p "$W/specs/$name/$(dirname "$file")"
            git -C "$dir" show "$commit:$file" >"$W/specs/$name/$file" 2>/dev/null || rm -f "$W/specs/$name/$file"
        done < <(git -C "$dir" ls-tree -r --name-only "$commit" "$folder" 2>/dev/null)
    fi
    if [ ! -f "$W/specs/$name/$folder/$root" ]; then
        unavailable+=("$repo@${commit:0:7}:$folder/$root (not in the mirror)")
        continue
    fi
    specs+=("$W/specs/$name/$folder/$root")
done

# A spec's name: its file's, or for a split document its folder's.
spec_name() {
    local rel="${1#"$W/specs/"}"
    if [[ "$rel" == */* ]]; then echo "${rel%%/*}"; else echo "${rel%.*}"; fi
}

# --- tools -------------------------------------------------------------------
need_apt hyperfine hyperfine
if [ "$PEER" = 1 ]; then
    need_progenitor
else
    PROGENITOR_VERSION="(not run)"
fi
log "building the generator (release)"
cargo build --release -p generator
GENERATOR="$CARGO_TARGET_DIR/release/generator"

# A crate for our outputs (one module per spec, errors told apart by file).
cat >"$W/ours/Cargo.toml" <<TOML
[package]
name = "corpus-ours"
version = "0.1.0"
edition = "2024"
[dependencies]
client-runtime = { path = "$ROOT/runtime" }
serde = { version = "1", features = ["derive"] }
[workspace]
TOML
: >"$W/ours/src/lib.rs"

declare -A ours_ok peer_ok ours_ms peer_ms ours_cpu peer_cpu ours_why peer_why ours_c peer_c
for spec in "${specs[@]}"; do
    name="$(spec_name "$spec")"
    mod="m_${name//[^a-zA-Z0-9]/_}"
    if "$GENERATOR" "$spec" --out "$W/ours/src/$mod.rs" 2>"$W/ours-$name.err"; then
        ours_ok[$name]=yes
        echo "#[allow(clippy::all)] pub mod $mod;" >>"$W/ours/src/lib.rs"
    else
        ours_ok[$name]=no
        ours_why[$name]="$(head -1 "$W/ours-$name.err" | sed -E 's/^error: [^:]*:([0-9]+:)?/line \1/' | cut -c1-110)"
    fi
    if [ "$PEER" != 1 ]; then
        peer_ok[$name]=skipped
    elif "$PROGENITOR" progenitor -i "$spec" -o "$W/progenitor/$name" -n "corpus-$name" -v 0.1.0 >"$W/progenitor-$name.log" 2>&1; then
        peer_ok[$name]=yes
    else
        peer_ok[$name]=no
        peer_why[$name]="$(grep -A1 'panicked at' "$W/progenitor-$name.log" | tail -1 | cut -c1-110 || true)"
        [ -n "${peer_why[$name]}" ] || peer_why[$name]="$(tail -1 "$W/progenitor-$name.log" | cut -c1-110)"
    fi
    timed=("$(printf '%q ' "$GENERATOR" "$spec" --out "$W/time-ours.rs")")
    [ "$PEER" = 1 ] && timed+=("$(printf '%q ' "$PROGENITOR" progenitor -i "$spec" -o "$W/time-progenitor" -n x -v 0.1.0)")
    hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$W/hf-$name.json" -i "${timed[@]}" >/dev/null 2>&1
    mapfile -t med < <(hyperfine_medians "$W/hf-$name.json")
    ours_ms[$name]="${med[0]}" peer_ms[$name]="${med[1]:-}"
    # CPU time (user + system, mean): ours formats on every core, so its
    # wall time alone would flatter it on a machine with many.
    mapfile -t cpu < <(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%.6f" % (r["user"] + r["system"]))
' "$W/hf-$name.json")
    ours_cpu[$name]="${cpu[0]}" peer_cpu[$name]="${cpu[1]:-}"
done

if [ "$COMPILE" = 1 ]; then
    log "cargo check: our outputs"
    (cd "$W/ours" && cargo check --message-format short 2>&1 || true) >"$W/ours-check.log"
    for spec in "${specs[@]}"; do
        name="$(spec_name "$spec")"
        mod="m_${name//[^a-zA-Z0-9]/_}"
        [ "${ours_ok[$name]}" = yes ] || continue
        if grep -q "src/$mod.rs:.*error" "$W/ours-check.log"; then ours_c[$name]=no; else ours_c[$name]=yes; fi
    done
    grep -q "^error: could not compile" "$W/ours-check.log" && ! grep -q "src/m_.*error" "$W/ours-check.log" &&
        for k in "${!ours_c[@]}"; do ours_c[$k]="?"; done
    log "cargo check: progenitor's outputs (one crate each, shared target dir)"
    for spec in "${specs[@]}"; do
        name="$(spec_name "$spec")"
        [ "${peer_ok[$name]}" = yes ] || continue
        # A workspace of its own: the crate sits under this repository's.
        grep -q '^\[workspace\]' "$W/progenitor/$name/Cargo.toml" ||
            printf '\n[workspace]\n' >>"$W/progenitor/$name/Cargo.toml"
        if (cd "$W/progenitor/$name" && CARGO_TARGET_DIR="$W/progenitor-target" nice cargo check -q >"$W/progenitor-$name-check.log" 2>&1); then
            peer_c[$name]=yes
        else
            peer_c[$name]=no
        fi
    done
fi

{
    echo "### Corpus: accepted / compiles / generation time (median of $RUNS, release builds)"
    echo
    echo "| Spec | size | ours | ours time | progenitor $PROGENITOR_VERSION | progenitor time | progenitor / ours | CPU time, ours / progenitor |"
    echo "| --- | ---: | --- | ---: | --- | ---: | ---: | ---: |"
    for spec in "${specs[@]}"; do
        name="$(spec_name "$spec")"
        size="$(( $(stat -c %s "$spec") / 1024 )) KiB"
        cell() { # accepted compiles why
            if [ "$1" = yes ]; then echo "accepted, compiles: ${2:-not checked}";
            elif [ "$1" = skipped ]; then echo "not run";
            else echo "refused: ${3//|/\\|}"; fi
        }
        # Progenitor not run: its cells are dashes.
        if [ "$PEER" = 1 ]; then
            peer_time="$(ms "${peer_ms[$name]}")"
            peer_ratio="$(ratio "${peer_ms[$name]}" "${ours_ms[$name]}")×"
            cpu_cell="$(ms "${ours_cpu[$name]}") / $(ms "${peer_cpu[$name]}") ($(ratio "${peer_cpu[$name]}" "${ours_cpu[$name]}")×)"
        else
            peer_time="–" peer_ratio="–" cpu_cell="$(ms "${ours_cpu[$name]}") / –"
        fi
        shown="\`$(basename "$spec")\`"
        if [[ "${spec#"$W/specs/"}" == */* ]]; then
            files="$(find "$W/specs/$name" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | wc -l)"
            shown="\`$name\`: $shown (split, $files files)"
        fi
        echo "| $shown | $size | $(cell "${ours_ok[$name]}" "${ours_c[$name]:-}" "${ours_why[$name]:-}") | $(ms "${ours_ms[$name]}") | $(cell "${peer_ok[$name]}" "${peer_c[$name]:-}" "${peer_why[$name]:-}") | $peer_time | $peer_ratio | $cpu_cell |"
    done
    echo
    if [ "${#unavailable[@]}" -gt 0 ]; then
        echo "Unavailable here (listed, not run): ${#unavailable[@]} documents."
        for missing in "${unavailable[@]}"; do echo "- \`$missing\`"; done
        echo
    fi
    echo "Times are whole processes, wall clock, and include refusals (a refused spec is timed up to its error). CPU time is user + system, mean of the runs: ours formats items on every core. Machine: $(machine)."
} >"$OUT"
cat "$OUT"
