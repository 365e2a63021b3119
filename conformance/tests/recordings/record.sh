#!/usr/bin/env bash
# Records chromium-correct.har and chromium-mistake.har (the fixtures of
# tests/integration/traffic_duties.rs) from a real Chromium: Debian's
# chromium (installed when missing), driven by puppeteer-core through the
# DevTools protocol and recorded by chrome-har (npm, installed under
# target/recordings), the page's calls answered by the reference server
# (built here, on a free port). The tests need no browser: they read the
# committed HARs. Run again after changing page.html.
#
# Usage: conformance/tests/recordings/record.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
TOOLS="$ROOT/target/recordings"
PUPPETEER_VERSION="${PUPPETEER_VERSION:-25.16.0}"
CHROME_HAR_VERSION="${CHROME_HAR_VERSION:-1.3.1}"

if ! command -v chromium >/dev/null; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
if [ ! -d "$TOOLS/node_modules/chrome-har" ] || [ ! -d "$TOOLS/node_modules/puppeteer-core" ]; then
    mkdir -p "$TOOLS"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS" \
        "puppeteer-core@$PUPPETEER_VERSION" "chrome-har@$CHROME_HAR_VERSION"
fi
cargo build -q -p reference-server --manifest-path "$ROOT/Cargo.toml"
SERVER="${CARGO_TARGET_DIR:-$ROOT/target}/debug/reference-server"
LOG="$(mktemp)"
"$SERVER" --port 0 --quiet >"$LOG" &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 100); do
    URL="$(sed -n 's/^listening on \([^ ]*\).*/\1/p' "$LOG" | head -1)"
    [ -n "$URL" ] && break
    sleep 0.1
done
[ -n "${URL:-}" ] || { cat "$LOG" >&2; echo "the reference server did not start" >&2; exit 1; }
REFERENCE_URL="$URL" NODE_PATH="$TOOLS/node_modules" OUT_DIR="${OUT_DIR:-$HERE}" \
    node "$HERE/record.cjs"
