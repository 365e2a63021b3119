#!/usr/bin/env bash
# Runs the gate with the action's inputs (action.yml passes them as
# environment variables, never spliced into the script's text). Testable
# anywhere with `conformance` on PATH.
#
#   CONFORMANCE_PROFILE        the profile (required)
#   CONFORMANCE_SNAPSHOTS      snapshot folder (default: snapshots/ beside the profile)
#   CONFORMANCE_BASELINE       known failures (YAML), if any
#   CONFORMANCE_JUNIT, _JSON, _SARIF, _HTML   report files to write, if any
#   CONFORMANCE_STRICT         "true": SHOULD failures fail the run too
#   CONFORMANCE_CHECK_PROFILE  "true" (default): run check-profile first
#   CONFORMANCE_ARGS           more flags, split on white space
#
# The exit code is the runner's: 0 passed, 1 a check failed, 2 a bad
# profile or flag or an unreachable server, 3 nothing failed but some check
# was not judged (the server's limits or slowness, within the deadline).
set -euo pipefail

fail() {
    echo "run.sh: $*" >&2
    exit 2
}

profile="${CONFORMANCE_PROFILE:-}"
[ -n "$profile" ] || fail "the profile input is empty: name your profile file (e.g. conformance/profile.yaml)"
[ -f "$profile" ] || fail "the profile '$profile' is not a file (from $(pwd))"
command -v conformance >/dev/null 2>&1 || fail "conformance is not on PATH (the install step did not run?)"

is_true() {
    case "$1" in
        true | TRUE | True | 1 | yes) return 0 ;;
        false | FALSE | False | 0 | no | "") return 1 ;;
        *) fail "'$1' is not true or false" ;;
    esac
}

args=(--profile "$profile")
[ -z "${CONFORMANCE_SNAPSHOTS:-}" ] || args+=(--snapshots "$CONFORMANCE_SNAPSHOTS")
if [ -n "${CONFORMANCE_BASELINE:-}" ]; then
    [ -f "$CONFORMANCE_BASELINE" ] || fail "the baseline '$CONFORMANCE_BASELINE' is not a file (from $(pwd))"
    args+=(--baseline "$CONFORMANCE_BASELINE")
fi
[ -z "${CONFORMANCE_JUNIT:-}" ] || args+=(--junit "$CONFORMANCE_JUNIT")
[ -z "${CONFORMANCE_JSON:-}" ] || args+=(--json "$CONFORMANCE_JSON")
[ -z "${CONFORMANCE_SARIF:-}" ] || args+=(--sarif "$CONFORMANCE_SARIF")
[ -z "${CONFORMANCE_HTML:-}" ] || args+=(--html "$CONFORMANCE_HTML")
if is_true "${CONFORMANCE_STRICT:-false}"; then
    args+=(--strict)
fi
if [ -n "${CONFORMANCE_ARGS:-}" ]; then
    read -r -a extra <<<"$CONFORMANCE_ARGS"
    args+=("${extra[@]}")
fi

# What is printed of a command: a header's value as `***`, and every value
# of a variable the profile reads (`${VAR}`) as that `${VAR}`, wherever it
# stands in an argument. GitHub masks only its secrets' exact values, and
# this script runs outside GitHub too.
profile_vars=()
while IFS= read -r name; do
    [ -n "$name" ] && profile_vars+=("$name")
done < <(grep -oE '[$][{][A-Za-z_][A-Za-z0-9_]*(:json)?[}]' "$profile" | sed -E 's/^[$][{]//; s/(:json)?[}]$//' | sort -u)

shown() {
    local out="" prev="" a v name
    for a in "$@"; do
        if [ "$prev" = "--header" ]; then
            case "$a" in *:*) a="${a%%:*}:***" ;; *) a="***" ;; esac
        elif [[ "$a" == --header=* ]]; then
            v="${a#--header=}"
            case "$v" in *:*) a="--header=${v%%:*}:***" ;; *) a="--header=***" ;; esac
        fi
        for name in ${profile_vars[@]+"${profile_vars[@]}"}; do
            v="${!name:-}"
            if [ "${#v}" -ge 3 ] && [[ "$a" == *"$v"* ]]; then
                a="${a//"$v"/"\${$name}"}"
            fi
        done
        prev="$1"
        shift
        out+=" $a"
    done
    printf '%s' "${out# }"
}

if is_true "${CONFORMANCE_CHECK_PROFILE:-true}"; then
    echo "run.sh: $(shown conformance check-profile --profile "$profile")" >&2
    conformance check-profile --profile "$profile"
fi

echo "run.sh: $(shown conformance "${args[@]}")" >&2
exec conformance "${args[@]}"
