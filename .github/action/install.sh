#!/usr/bin/env bash
# Installs a released binary of this repository (conformance by default),
# after checking its SHA-256 against the release's published sums.
#
# Used by the composite action (action.yml) and testable anywhere: .ci/run
# serves a binary and its sums from 127.0.0.1 and runs this script against
# them, with a good sum and a bad one.
#
# Settings (environment):
#   CONFORMANCE_VERSION   the release tag, e.g. v0.1.0 (required)
#   CONFORMANCE_BASE_URL  where the release's files are (default: the GitHub
#                         release of CONFORMANCE_REPOSITORY at that tag)
#   CONFORMANCE_REPOSITORY owner/name on GitHub (for the default base URL)
#   CONFORMANCE_BINARY    which binary: conformance (default) or reference-server
#   CONFORMANCE_TARGET    Rust target triple of the asset (default: this machine's)
#   CONFORMANCE_SHA256    optional: the SHA-256 you pinned; must match too
#   CONFORMANCE_INSTALL_TIMEOUT  seconds for the whole install (default 300)
#   CONFORMANCE_INSTALL_DIR  where to put the binary (default: $RUNNER_TEMP/conformance-bin,
#                         else ~/.local/bin)
#
# Files expected at the base URL: "<binary>-<target>" (the raw binary) and
# "SHA256SUMS" (lines "<sha256>  <file name>", as sha256sum writes them).
# On success the binary's path is printed on stdout's last line, its folder
# is added to $GITHUB_PATH when that is set, and the exit code is 0. Any
# failure (download, missing sum, mismatch, a binary of another version, a
# folder where the binary goes) exits 1 with one line on stderr and installs
# nothing.
#
# Bounds: the whole install takes at most CONFORMANCE_INSTALL_TIMEOUT
# seconds (default 300: each download gets what is left, 10 s to connect,
# 3 tries), SHA256SUMS at most 64 KiB and the binary at most 200 MiB; past
# either, it stops and says so.
set -euo pipefail

fail() {
    echo "install.sh: $*" >&2
    exit 1
}

version="${CONFORMANCE_VERSION:-}"
[ -n "$version" ] || fail "CONFORMANCE_VERSION is not set (the release tag to install, e.g. v0.1.0)"
case "$version" in
    *[!A-Za-z0-9._+-]*) fail "CONFORMANCE_VERSION '$version' is not a tag name" ;;
esac

binary="${CONFORMANCE_BINARY:-conformance}"
case "$binary" in
    conformance | reference-server) ;;
    *) fail "CONFORMANCE_BINARY '$binary' is not one of: conformance, reference-server" ;;
esac

if [ -n "${CONFORMANCE_TARGET:-}" ]; then
    target="$CONFORMANCE_TARGET"
else
    os="$(uname -s)"
    arch="$(uname -m)"
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) fail "no release binary for the processor '$arch' (x86_64 and aarch64 only); build from source: cargo install --locked --path conformance" ;;
    esac
    case "$os" in
        Linux) target="$arch-unknown-linux-musl" ;;
        Darwin) target="$arch-apple-darwin" ;;
        *) fail "no release binary for the system '$os' (Linux and macOS only); build from source: cargo install --locked --path conformance" ;;
    esac
fi

base_url="${CONFORMANCE_BASE_URL:-}"
if [ -z "$base_url" ]; then
    repository="${CONFORMANCE_REPOSITORY:-}"
    [ -n "$repository" ] || fail "set CONFORMANCE_BASE_URL, or CONFORMANCE_REPOSITORY (owner/name) for its GitHub releases"
    base_url="https://github.com/$repository/releases/download/$version"
fi
base_url="${base_url%/}"

asset="$binary-$target"
install_dir="${CONFORMANCE_INSTALL_DIR:-}"
if [ -z "$install_dir" ]; then
    if [ -n "${RUNNER_TEMP:-}" ]; then
        install_dir="$RUNNER_TEMP/conformance-bin"
    else
        install_dir="$HOME/.local/bin"
    fi
fi

if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
    sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
    fail "neither sha256sum nor shasum is installed: cannot check the download"
fi
command -v curl >/dev/null 2>&1 || fail "curl is not installed"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Every network wait is bounded: the whole install within $budget seconds,
# each file under a size cap, 10 s to connect, 3 tries of a transient failure.
budget="${CONFORMANCE_INSTALL_TIMEOUT:-300}"
case "$budget" in
    "" | *[!0-9]*) fail "CONFORMANCE_INSTALL_TIMEOUT '$budget' is not a number of seconds" ;;
esac
started=$SECONDS
# A URL as printed: no user, password or query.
shown() {
    local u="${1%%\?*}"
    case "$u" in
        *://*@*) u="${u%%://*}://${u#*@}" ;;
    esac
    printf '%s' "$u"
}
fetch() {
    local url="$1" out="$2" cap="$3" try left
    for try in 1 2 3; do
        left=$((budget - (SECONDS - started)))
        [ "$left" -gt 0 ] || fail "could not download $(shown "$url") within $budget s (CONFORMANCE_INSTALL_TIMEOUT)"
        rm -f "$out"
        if curl --fail --silent --show-error --location --proto '=https,http' \
            --connect-timeout 10 --max-time "$left" --max-filesize "$cap" \
            --output "$out" "$url" 2>"$work/curl.err"; then
            local size
            size="$(wc -c <"$out" | tr -d ' ')"
            [ "$size" -le "$cap" ] || fail "$(shown "$url") is $size bytes, over the $cap this installer reads; refusing to install"
            return 0
        fi
        # 22: an HTTP error (404...), 63: over --max-filesize: no retry.
        case "$(grep -oE 'curl: \(([0-9]+)\)' "$work/curl.err" | grep -oE '[0-9]+' | head -n 1)" in
            63) fail "$(shown "$url") is over the $cap bytes this installer reads; refusing to install" ;;
            22) break ;;
        esac
        [ "$try" -eq 3 ] || sleep 2
    done
    fail "could not download $(shown "$url"): $(tr '\n' ' ' <"$work/curl.err" | sed 's/[?][^ ]*//g')"
}

if [ -d "$install_dir/$binary" ]; then
    fail "$install_dir/$binary is a folder, where the binary goes; remove it or set CONFORMANCE_INSTALL_DIR to another folder"
fi
if [ -e "$install_dir" ] && [ ! -d "$install_dir" ]; then
    fail "the install folder $install_dir is a file; set CONFORMANCE_INSTALL_DIR to a folder"
fi

# The address as printed: without a user, password or query (a mirror's
# token may stand there); the downloads use it whole.
shown_url="$(shown "$base_url")"
echo "install.sh: $asset $version from $shown_url" >&2
fetch "$base_url/SHA256SUMS" "$work/SHA256SUMS" 65536
fetch "$base_url/$asset" "$work/$asset" 209715200

# The sum listed for exactly this file name ("<hex>  name" or "<hex> *name").
expected="$(awk -v name="$asset" '$2 == name || $2 == "*" name { print tolower($1); exit }' "$work/SHA256SUMS")"
[ -n "$expected" ] || fail "SHA256SUMS at $shown_url lists no sum for $asset; refusing to install"
case "$expected" in
    *[!0-9a-f]* | "") fail "SHA256SUMS lists '$expected' for $asset, which is not a SHA-256; refusing to install" ;;
esac
[ "${#expected}" -eq 64 ] || fail "SHA256SUMS lists '$expected' for $asset, which is not a SHA-256; refusing to install"

actual="$(sha256 "$work/$asset")"
if [ "$actual" != "$expected" ]; then
    fail "SHA-256 mismatch for $asset: SHA256SUMS says $expected, the download is $actual; refusing to install"
fi
pinned="$(printf '%s' "${CONFORMANCE_SHA256:-}" | tr 'A-F' 'a-f')"
if [ -n "$pinned" ] && [ "$pinned" != "$actual" ]; then
    fail "SHA-256 mismatch for $asset: the pinned CONFORMANCE_SHA256 is $pinned, the download is $actual; refusing to install"
fi

# The binary must run here and be the version asked for, before it takes
# the place of anything.
chmod 0755 "$work/$asset"
if ! "$work/$asset" --version >"$work/version" 2>&1; then
    fail "the downloaded $binary does not run on this machine ($target): $(head -c 300 "$work/version" | tr -cd '[:print:]')"
fi
said="$(head -n 1 "$work/version" | tr -cd '[:print:]')"
if [ "$said" != "$binary ${version#v}" ]; then
    fail "the release $version holds a $binary that says '$(printf '%s' "$said" | head -c 100)', not '$binary ${version#v}'; refusing to install"
fi
mkdir -p "$install_dir"
mv -f "$work/$asset" "$install_dir/$binary"
echo "install.sh: installed $(cat "$work/version") at $install_dir/$binary (sha256 $actual)" >&2
if [ -n "${GITHUB_PATH:-}" ]; then
    echo "$install_dir" >>"$GITHUB_PATH"
fi
echo "$install_dir/$binary"
