#!/usr/bin/env bash
# Ops command line of personal data (`./settle privacy ...`, see scripts/ops/privacy/privacy.ts).
# Reads the stack's database unless DATABASE_URL says otherwise. Only the JSON (the export, the erasure's report) reaches standard output.
source "$(dirname "$0")/../local/lib.sh"
ensure_node
ensure_deps >&2
[ -f "$SETTLE_ROOT/dist/scripts/ops/privacy/privacy.js" ] || ensure_build >&2
export DATABASE_URL="${DATABASE_URL:-$(settle_pg_url settle)}"
# The privacy vault's master keys (the subjects' keys), as stack.sh makes them and gives them to the verifier and the console.
if [ -z "${SETTLE_PRIVACY_VAULT_MASTER_KEYS:-}" ]; then
  export SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE="${SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE:-$SETTLE_HOME/vault/privacy-master-keys.json}"
fi
exec node "$SETTLE_ROOT/dist/scripts/ops/privacy/privacy.js" "$@"
