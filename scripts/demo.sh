#!/bin/sh
# `make run` without ARGS: the demo fleet (examples/demo.json) in a temporary directory of its own,
# its supervisor in this process. Its config, runtime directory, snapshots and the fake server's
# log all live there, and the directory goes when the demo ends: nothing is left in /tmp beside it,
# and the user's `recover --list` never shows the demo's fleet.
# Usage: scripts/demo.sh [FLEETCOM…]   (default ./dist/fleetcom)
set -u
[ "$#" -gt 0 ] || set -- ./dist/fleetcom
recipe=$(cd "$(dirname "$0")/.." && pwd)/examples/demo.json
demo=$(mktemp -d "${TMPDIR:-/tmp}/fleetcom-demo.XXXXXX") || exit 1
trap 'rm -rf "$demo"' EXIT
trap 'exit 130' INT TERM HUP
TMPDIR=$demo FLEETCOM_CONFIG_DIR=$demo/config FLEETCOM_RUNTIME_DIR=$demo/run "$@" --foreground "$recipe"
