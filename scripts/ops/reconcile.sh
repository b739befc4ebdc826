#!/usr/bin/env bash
# Reconciliation from the command line (`./settle reconcile ...`, see scripts/ops/reconcile.ts):
# starts a run through ingestion's admin API and follows it with a progress bar, or lists and
# exports exceptions. Talks to the stack `./settle up` started unless INGESTION_URL and
# SETTLE_ADMIN_API_KEY say otherwise. Only data (tables, CSV) reaches standard output.
source "$(dirname "$0")/../local/lib.sh"
ensure_node
ensure_deps >&2
[ -f "$SETTLE_ROOT/dist/scripts/ops/reconcile.js" ] || ensure_build >&2
if [ -z "${INGESTION_URL:-}" ] || [ -z "${SETTLE_ADMIN_API_KEY:-}" ]; then
  while IFS='=' read -r name value; do
    case "$name" in SETTLE_INGESTION_PORT|SETTLE_ADMIN_API_KEY) export "$name=$value" ;; esac
  done < <("$SETTLE_ROOT/scripts/local/stack.sh" env)
  export INGESTION_URL="${INGESTION_URL:-http://127.0.0.1:$SETTLE_INGESTION_PORT}"
fi
exec node "$SETTLE_ROOT/dist/scripts/ops/reconcile.js" "$@"
