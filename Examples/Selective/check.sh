#!/bin/sh
# Builds Examples/Selective, a consumer of only Courier and CourierCodable with
# every trait off, and fails unless it resolved no package at all: its
# Package.resolved must be absent or name no pin, and SwiftPM must have fetched
# nothing. Run from anywhere: Examples/Selective/check.sh
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
resolved="$here/Package.resolved"

rm -f "$resolved"
swift build --package-path "$here"

if [ -f "$resolved" ]; then
    pins="$(grep -c '"identity"' "$resolved" || true)"
    if [ "$pins" != "0" ]; then
        echo "check.sh: Examples/Selective resolved packages it must not need:" >&2
        grep '"identity"' "$resolved" >&2
        exit 1
    fi
fi
if [ -n "$(ls -A "$here/.build/checkouts" 2>/dev/null)" ]; then
    echo "check.sh: SwiftPM fetched packages for Examples/Selective:" >&2
    ls "$here/.build/checkouts" >&2
    exit 1
fi
echo "check.sh: Examples/Selective builds with Courier and CourierCodable alone; no package resolved (root: $root)."
