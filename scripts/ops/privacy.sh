#!/usr/bin/env bash
# Ops command line of personal data (`./settle privacy ...`, see scripts/ops/privacy/privacy.ts).
# Reads the stack's database unless DATABASE_URL says otherwise. Only the export reaches standard output.
source "$(dirname "$0")/../local/lib.sh"
ensure_node
ensure_deps >&2
[ -f "$SETTLE_ROOT/dist/scripts/ops/privacy/privacy.js" ] || ensure_build >&2
export DATABASE_URL="${DATABASE_URL:-$(settle_pg_url settle)}"
exec node "$SETTLE_ROOT/dist/scripts/ops/privacy/privacy.js" "$@"
