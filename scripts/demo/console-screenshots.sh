#!/usr/bin/env bash
# Screenshots of the console's main pages against the running stack, after `./settle demo`
# (scripts/demo/console-screenshots.ts): saved under docs/console/ unless a folder is given.
source "$(dirname "$0")/../local/lib.sh"
ensure_node
ensure_chromium
export DATABASE_URL="${DATABASE_URL:-$(settle_pg_url settle)}"
export CONSOLE_URL="${CONSOLE_URL:-http://127.0.0.1:$SETTLE_CONSOLE_PORT}"
exec node "$SETTLE_ROOT/dist/scripts/demo/console-screenshots.js" "$@"
