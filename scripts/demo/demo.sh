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
# Receipts: proofs from the dispatcher, public keys from the projector's checkpoint sink (docs/ledger.md, "Receipts").
export DISPATCHER_URL="http://127.0.0.1:$SETTLE_DISPATCHER_PORT"
export LEDGER_CHECKPOINT_DIR="${LEDGER_CHECKPOINT_DIR:-$SETTLE_HOME/ledger-checkpoints}"
# Part of the checkouts go over Kafka through the example checkout producer (examples/checkout-producer):
# its dependencies installed when missing (a stack started before it existed), and the stack's Kafka and registry.
"$SETTLE_ROOT/scripts/local/stack.sh" checkout-producer
export KAFKA_BROKERS="127.0.0.1:$SETTLE_KAFKA_PORT"
export SCHEMA_REGISTRY_URL="http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7"
export SETTLE_TOPIC_PREFIX="${SETTLE_TOPIC_PREFIX:-settle}"
exec node "$SETTLE_ROOT/dist/scripts/demo/demo.js" "$@"
