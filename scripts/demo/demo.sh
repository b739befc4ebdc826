#!/usr/bin/env bash
# Runs the reconciliation demo against the stack that `./settle up` started (starting it
# first when it is not running).
source "$(dirname "$0")/../local/lib.sh"
ensure_node
"$SETTLE_ROOT/scripts/local/stack.sh" status >/dev/null 2>&1 || "$SETTLE_ROOT/scripts/local/stack.sh" up
while IFS='=' read -r name value; do export "$name=$value"; done < <("$SETTLE_ROOT/scripts/local/stack.sh" env)
export INGESTION_URL="http://127.0.0.1:$SETTLE_INGESTION_PORT"
export SANDBOX_URL="http://127.0.0.1:$SETTLE_SANDBOX_PORT"
export CUSTOMER_URL="http://127.0.0.1:$SETTLE_CUSTOMER_PORT"
export CONSOLE_URL="http://127.0.0.1:$SETTLE_CONSOLE_PORT"
exec node "$SETTLE_ROOT/dist/scripts/demo/demo.js" "$@"
