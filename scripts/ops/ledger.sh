#!/usr/bin/env bash
# Ops command line of the ledger (`./settle ledger ...`, see scripts/ops/ledger.ts). Reads the
# stack's database unless DATABASE_URL says otherwise. Only events reach standard output.
source "$(dirname "$0")/../local/lib.sh"
ensure_node
ensure_deps >&2
# Built by ./settle up and ./settle test; built here only when missing, so a replay starts at once.
[ -f "$SETTLE_ROOT/dist/scripts/ops/ledger.js" ] || ensure_build >&2
# The stack's database: `settle` on its own cluster (scripts/local/infra.sh, docs/postgres.md), as stack.sh makes it.
export DATABASE_URL="${DATABASE_URL:-$(settle_pg_url settle)}"
# `republish` publishes to the stack's Kafka and registry, as stack.sh gives them to the apps.
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:$SETTLE_KAFKA_PORT}"
export SCHEMA_REGISTRY_URL="${SCHEMA_REGISTRY_URL:-http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7}"
export SETTLE_TOPIC_PREFIX="${SETTLE_TOPIC_PREFIX:-settle}"
# The checkpoint sink and the ledger vault's master keys, as stack.sh gives them to the projector.
export LEDGER_CHECKPOINT_DIR="${LEDGER_CHECKPOINT_DIR:-$SETTLE_HOME/ledger-checkpoints}"
if [ -z "${SETTLE_VAULT_MASTER_KEYS:-}" ]; then
  export SETTLE_VAULT_MASTER_KEY_FILE="${SETTLE_VAULT_MASTER_KEY_FILE:-$SETTLE_HOME/vault/ledger-master-keys.json}"
fi
exec node "$SETTLE_ROOT/dist/scripts/ops/ledger.js" "$@"
