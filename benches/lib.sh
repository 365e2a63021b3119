# shellcheck shell=bash
# Shared by the benchmark scripts: sourced, not run.
#
# Everything a benchmark needs is installed by these functions when missing, into
# target/bench-tools/ (peers) and target/bench/ (our release builds), so a fresh
# clone on a fresh machine runs the scripts with nothing set up by hand.
#
# The peers' versions are pinned to the ones the README's results were measured
# with; override them with the environment variables below to try another.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Our release builds go to their own target dir, so a benchmark never fights a
# developer's debug build over target/debug (or its lock).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/bench}"
TOOLS="$ROOT/target/bench-tools"
RESULTS="$ROOT/benches/results"
WORK="$ROOT/target/bench-work"
mkdir -p "$TOOLS" "$RESULTS" "$WORK"

# Pinned peer versions (the ones benches/README.md reports).
PROGENITOR_VERSION="${PROGENITOR_VERSION:-0.15.1}"
PRISM_VERSION="${PRISM_VERSION:-5.14.2}"
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# as_root CMD...: run CMD as root (directly when we are root, else with sudo).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# need_apt COMMAND PACKAGE: install the Debian PACKAGE when COMMAND is missing.
need_apt() {
    local cmd="$1" pkg="$2"
    if ! command -v "$cmd" >/dev/null 2>&1; then
        log "installing $pkg (Debian)"
        as_root apt-get update
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$pkg"
    fi
}

# need_venv PIP-REQUIREMENT...: a Python venv under target/bench-tools/venv
# holding the requirements; prints nothing, sets VENV.
VENV="$TOOLS/venv"
need_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating the venv $VENV"
        python3 -m venv "$VENV"
    fi
    local missing=()
    local req name
    for req in "$@"; do
        name="${req%%[=<>]*}"
        "$VENV/bin/python" -m pip show -q "$name" >/dev/null 2>&1 || missing+=("$req")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        log "installing ${missing[*]} (PyPI) into $VENV"
        "$VENV/bin/python" -m pip install -q "${missing[@]}"
    fi
}

# hyperfine_medians FILE: the median of each command in hyperfine's
# --export-json FILE, in seconds, one line per command.
hyperfine_medians() {
    python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%.6f" % r["median"])
' "$1"
}

# ms SECONDS: a duration for a table: milliseconds with one decimal below 1 s,
# else seconds with two.
ms() {
    python3 -c '
import sys
s = float(sys.argv[1])
print("%.1f ms" % (s * 1000) if s < 1 else "%.2f s" % s)' "$1"
}

# ratio A B: A / B with one decimal.
ratio() { python3 -c 'import sys; a, b = map(float, sys.argv[1:]); print("%.1f" % (a / b) if b else "n/a")' "$1" "$2"; }

# machine: one line naming the machine and the date, for every results file.
machine() {
    local cpu
    cpu="$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    printf '%s, %s cores (nproc), %s, %s' "$cpu" "$(nproc)" "$(uname -sr)" "$(date -u '+%Y-%m-%d %H:%M UTC')"
    if [ -n "$LOAD_AT_START" ]; then
        printf ', 1-minute load average %s when timing began' "$LOAD_AT_START"
    fi
}

# warn_if_busy: the medians mean little while other work loads the CPU. Keeps
# the 1-minute load average in LOAD_AT_START for the results' machine line.
LOAD_AT_START=""
warn_if_busy() {
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    LOAD_AT_START="$load"
    if python3 -c 'import sys, os; sys.exit(0 if float(sys.argv[1]) > 0.5 * os.cpu_count() else 1)' "$load"; then
        log "warning: load average is $load on $(nproc) cores; the numbers will be noisy"
    fi
}

# wait_for_line FILE PATTERN SECONDS PID: wait until FILE has a line matching
# PATTERN (printing that line), fail when PID dies or SECONDS pass.
wait_for_line() {
    local file="$1" pattern="$2" secs="$3" pid="$4" i line
    for ((i = 0; i < secs * 10; i++)); do
        line="$(grep -m1 -E "$pattern" "$file" 2>/dev/null || true)"
        if [ -n "$line" ]; then printf '%s\n' "$line"; return 0; fi
        kill -0 "$pid" 2>/dev/null || { cat "$file" >&2; die "process $pid exited before printing /$pattern/"; }
        sleep 0.1
    done
    cat "$file" >&2
    die "no line matching /$pattern/ in $file after ${secs}s"
}

# free_port: a free TCP port on 127.0.0.1 (for peers that cannot take port 0).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_for_http URL SECONDS PID: wait until URL answers at all (any status).
wait_for_http() {
    local url="$1" secs="$2" pid="$3" i
    for ((i = 0; i < secs * 10; i++)); do
        curl -s -o /dev/null --max-time 1 "$url" && return 0
        kill -0 "$pid" 2>/dev/null || die "process $pid exited before $url answered"
        sleep 0.1
    done
    die "$url did not answer within ${secs}s"
}

# Background processes the script started; the trap ends exactly these.
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# stop PID: end one background process, wait for it, and forget it (so the trap
# never signals a pid the system has since given to another process).
stop() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    local keep=() pid
    for pid in "${PIDS[@]}"; do
        [ "$pid" = "$1" ] || keep+=("$pid")
    done
    PIDS=("${keep[@]}")
}

# schemathesis_config FILE [REF]: writes the schemathesis.toml every script
# uses: 417 counts as a rejection too (the two checks that expect one get
# schemathesis 4.32's default statuses plus "417"); with REF, the path
# parameter `ref` is fixed to that component so requests reach the body rules.
schemathesis_config() {
    cat >"$1" <<'TOML'
# Written by benches/lib.sh: 417 counts as a rejection too.
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "415", "417", "422", "428", "429", "5xx"]

[checks.missing_required_header]
expected-statuses = ["400", "401", "403", "406", "415", "417", "422"]
TOML
    if [ -n "${2:-}" ]; then
        printf '\n[parameters]\n"path.ref" = "%s"\n' "$2" >>"$1"
    fi
}

# need_progenitor: cargo-progenitor $PROGENITOR_VERSION (crates.io) under
# target/bench-tools/cargo, installed when missing; sets PROGENITOR.
PROGENITOR="$TOOLS/cargo/bin/cargo-progenitor"
need_progenitor() {
    if [ ! -x "$PROGENITOR" ]; then
        # Compiles for several minutes on 2 cores; nice keeps the machine usable.
        log "installing cargo-progenitor $PROGENITOR_VERSION (crates.io) into $TOOLS/cargo"
        nice cargo install --locked --root "$TOOLS/cargo" --version "$PROGENITOR_VERSION" cargo-progenitor
    fi
}
