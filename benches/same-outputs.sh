#!/usr/bin/env bash
# Same outputs: two builds of `conformance` run side by side on the same
# scenarios, every stdout, stderr, exit code and written file compared
# (reports in every format, snapshots recorded with --accept, baselines,
# overlays), ports and timings normalised (benches/same_outputs_norm.py),
# and the count of limit answers a rate-limited server gives (timing: one
# build against itself differs). For a refactor that must change no output.
#
# Usage: benches/same-outputs.sh [REV]   (default REV: main)
#   builds REV's `conformance` in a temporary worktree (target/same-outputs/),
#   and this tree's; OLD=binary / NEW=binary use given builds instead;
#   ONLY=regex runs the scenarios whose name matches. Prints one line per
#   scenario (same / DIFF and the files that differ); exit 1 on a DIFF.
#   Outputs kept in target/same-outputs/run/{old,new}/SCENARIO/.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
REV="${1:-main}"
WORK="$REPO/target/same-outputs"
OUT="$WORK/run"
NORM="$REPO/benches/same_outputs_norm.py"
SNAPS="$REPO/conformance/profiles/snapshots"
ONLY="${ONLY:-.}"
mkdir -p "$WORK"
cargo build -q -p conformance -p reference-server || exit 2
SERVER="$REPO/target/debug/reference-server"
# Both binaries are named `conformance` (the name shows in --help).
if [ -z "${NEW:-}" ]; then
    mkdir -p "$WORK/new" && cp "$REPO/target/debug/conformance" "$WORK/new/conformance"
    NEW="$WORK/new/conformance"
fi
if [ -z "${OLD:-}" ]; then
    rm -rf "$WORK/old-tree"; git worktree prune
    git worktree add -q --detach "$WORK/old-tree" "$REV" || exit 2
    # Its own target dir (kept between runs: only what changed is rebuilt).
    (cd "$WORK/old-tree" && cargo build -q -p conformance --target-dir "$WORK/old-target") || exit 2
    git worktree remove --force "$WORK/old-tree"
    mkdir -p "$WORK/old" && cp "$WORK/old-target/debug/conformance" "$WORK/old/conformance"
    OLD="$WORK/old/conformance"
fi
export NO_COLOR=1
unset CI
rm -rf "$OUT"; mkdir -p "$OUT"

# serve ARGS...: a fresh reference server; sets PORT and SERVER_PID.
serve() {
    local log; log="$(mktemp)"
    "$SERVER" --port 0 --quiet "$@" >"$log" 2>/dev/null &
    SERVER_PID=$!
    for _ in $(seq 1 600); do
        if grep -qE '^listening on http://127\.0\.0\.1:[0-9]+' "$log"; then break; fi
        sleep 0.1
    done
    PORT="$(grep -oE '127\.0\.0\.1:[0-9]+' "$log" | head -1 | cut -d: -f2)"
    rm -f "$log"
}

# profile DIR: the shipped profile pointed at $PORT, in DIR.
profile() {
    sed "s#^base_url: .*#base_url: http://127.0.0.1:$PORT#" "$REPO/conformance/profiles/reference.yaml" >"$1/profile.yaml"
}

# one BIN DIR NAME SERVERARGS -- ARGS...: one scenario with one binary; in
# ARGS, @D is the scenario's own output folder and @P its profile.
one() {
    local bin="$1" dest="$2" server="$3"; shift 4
    # Both builds run in the same folder, with the same profile path: a
    # path an output names is then the same.
    local dir="$OUT/run"
    rm -rf "$dir"; mkdir -p "$dir/files"
    if [ -n "$server" ]; then
        # shellcheck disable=SC2086
        serve $server
        profile "$dir"
    fi
    local args=()
    for a in "$@"; do a="${a//@D/$dir/files}"; a="${a//@P/$dir/profile.yaml}"; args+=("$a"); done
    (cd "$REPO" && timeout 900 "$bin" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr" </dev/null)
    echo $? >"$dir/exit"
    if [ -n "$server" ]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
    rm -f "$dir/profile.yaml"
    mkdir -p "$(dirname "$dest")"; rm -rf "$dest"; mv "$dir" "$dest"
}

# scenario NAME SERVERARGS ARGS...: runs it with both binaries, compares.
FAILED=0
scenario() {
    local name="$1" server="$2"; shift 2
    [[ "$name" =~ $ONLY ]] || return 0
    one "$OLD" "$OUT/old/$name" "$server" -- "$@"
    one "$NEW" "$OUT/new/$name" "$server" -- "$@"
    local diffs=""
    while IFS= read -r f; do
        local rel="${f#"$OUT/old/$name/"}"
        if [ ! -e "$OUT/new/$name/$rel" ]; then diffs+=" $rel(missing)"; continue; fi
        if ! cmp -s <(python3 "$NORM" <"$f") <(python3 "$NORM" <"$OUT/new/$name/$rel"); then diffs+=" $rel"; fi
    done < <(find "$OUT/old/$name" -type f | sort)
    while IFS= read -r f; do
        local rel="${f#"$OUT/new/$name/"}"
        [ -e "$OUT/old/$name/$rel" ] || diffs+=" $rel(extra)"
    done < <(find "$OUT/new/$name" -type f | sort)
    local files; files="$(find "$OUT/old/$name" -type f | wc -l)"
    if [ -n "$diffs" ]; then
        FAILED=1; printf 'DIFF  %-40s exit %s, %s files:%s\n' "$name" "$(cat "$OUT/old/$name/exit")" "$files" "$diffs"
    else
        printf 'same  %-40s exit %s, %s files\n' "$name" "$(cat "$OUT/old/$name/exit")" "$files"
    fi
}

REPORTS=(--json @D/r.json --junit @D/r.xml --sarif @D/r.sarif --html @D/r.html)

scenario help "" --help
scenario list "" list
scenario coverage "" coverage
scenario check-profile-reference "" check-profile --profile conformance/profiles/reference.yaml
scenario check-profile-stub "" check-profile --profile conformance/profiles/stub-server.yaml
scenario bad-profile-path "" --profile /nonexistent/profile.yaml
scenario bad-flag "" --concurrency nope
scenario embedded-reports "" --embedded "${REPORTS[@]}"
scenario embedded-accept "" --embedded --accept --snapshots @D/snapshots --json @D/r.json
scenario embedded-only-strict "" --embedded --only headers,§7 --strict --no-snapshots "${REPORTS[@]}"
scenario embedded-seed "" --embedded --seed 7 --cases 8 --skip state --json @D/r.json
scenario choices-embedded "" choices --embedded --overlay @D/overlay.yaml
scenario unreachable "" --profile conformance/profiles/stub-server.yaml --no-snapshots --timeout 500ms
for fault in client-id-optional wrong-secret-accepted auth-token-demanded error-body-not-json \
    no-project-uuid-on-errors validation-answered-400 tags-not-resolved malformed-json-accepted \
    token-crosses-components auth-cached-per-connection claims-omit-model success-body-not-json; do
    scenario "fault-$fault" "--fault $fault" --profile @P --snapshots "$SNAPS" "${REPORTS[@]}" \
        --write-baseline @D/baseline.yaml
done
scenario fault-accept "--fault error-code-as-string" --profile @P --snapshots @D/snapshots --accept --json @D/r.json
for variant in model-uuid-header wrapped-success gzip-answers service-codes records-claims get-body-ignored; do
    scenario "choices-$variant" "--variant $variant" choices --profile @P --overlay @D/overlay.yaml
    scenario "variant-$variant" "--variant $variant" --profile @P --no-snapshots "${REPORTS[@]}"
done
scenario slow-server "--latency 400" --profile @P --no-snapshots --only headers --timeout 100ms --deadline 20s --json @D/r.json
scenario rate-limited "--variant rate-limit" --profile @P --no-snapshots --only headers,responses --json @D/r.json
scenario choices-rate-limited "--variant rate-limit" choices --profile @P
scenario gateway-header "" --embedded --header x-gateway-key:gw-secret-1 --only headers --no-snapshots "${REPORTS[@]}"
scenario baseline-todo "" --embedded --baseline "$OUT/old/fault-client-id-optional/files/baseline.yaml"
[ -f "$OUT/old/fault-client-id-optional/files/baseline.yaml" ] &&
    sed 's/reason: TODO/reason: known/; s/expires: TODO/expires: "2099-01-01"/' "$OUT/old/fault-client-id-optional/files/baseline.yaml" >"$OUT/baseline-filled.yaml"
scenario baseline-applied "--fault client-id-optional" --profile @P --snapshots "$SNAPS" --baseline "$OUT/baseline-filled.yaml" "${REPORTS[@]}"
# The same two reports (the old build's) compared by both builds.
scenario diff "" diff "$OUT/old/embedded-reports/files/r.json" "$OUT/old/fault-client-id-optional/files/r.json"
scenario diff-same "" diff "$OUT/old/embedded-reports/files/r.json" "$OUT/old/embedded-reports/files/r.json"
exit $FAILED
