#!/usr/bin/env bash
# The whole Settle stack on this machine: infrastructure (Kafka, schema registry,
# PostgreSQL) and the five apps, each logging to .settle/logs/<app>.log.
#
#   scripts/stack.sh up|down|status
#
# `up` provisions what is missing (Node 24, npm packages, Kafka, the registry), builds,
# starts everything in the background and returns once every app is ready. Idempotent.
source "$(dirname "$0")/lib.sh"

APPS=(provider-sandbox ingestion verifier ledger-projector sweeper)
RUN_DIR="$SETTLE_HOME/run"
LOG_DIR="$SETTLE_HOME/logs"
SECRETS="$SETTLE_HOME/secrets.env"
mkdir -p "$RUN_DIR" "$LOG_DIR"

# Local secrets, generated once per machine into the git-ignored state folder.
ensure_secrets() {
  if [ ! -f "$SECRETS" ]; then
    umask 077
    {
      echo "SETTLE_API_KEY=sk_settle_$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
      echo "PAYSTACK_SECRET_KEY=sk_test_$(od -An -tx1 -N20 /dev/urandom | tr -d ' \n')"
    } >"$SECRETS"
  fi
  set -a; source "$SECRETS"; set +a
  export SETTLE_API_KEY_SHA256
  SETTLE_API_KEY_SHA256="$(printf '%s' "$SETTLE_API_KEY" | sha256sum | cut -d' ' -f1)"
}

ensure_database() {
  if [ -n "${DATABASE_URL:-}" ]; then return 0; fi
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/settle"
  if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'settle'" | grep -q 1; then
    psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE settle' >&2
  fi
}

stack_env() {
  export SETTLE_ENV="${SETTLE_ENV:-development}"
  export KAFKA_BROKERS="127.0.0.1:$SETTLE_KAFKA_PORT"
  export SCHEMA_REGISTRY_URL="http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7"
  export INGESTION_PORT="$SETTLE_INGESTION_PORT"
  export SANDBOX_PORT="$SETTLE_SANDBOX_PORT"
  export PAYSTACK_BASE_URL="http://127.0.0.1:$SETTLE_SANDBOX_PORT"
  export SANDBOX_WEBHOOK_URL="http://127.0.0.1:$SETTLE_INGESTION_PORT/v1/webhooks/paystack"
  export SWEEPER_INACTIVITY_MS="${SWEEPER_INACTIVITY_MS:-45000}"
  export KAFKAJS_NO_PARTITIONER_WARNING=1
}

start_app() {
  local app="$1" pidfile="$RUN_DIR/$1.pid" ready="$RUN_DIR/$1.ready"
  if pid_alive "$pidfile"; then return 0; fi
  rm -f "$ready"
  SETTLE_READY_FILE="$ready" LAUNCH_LOG="$LOG_DIR/$app.log" launch "$app" "$SETTLE_ROOT" node "$SETTLE_ROOT/dist/apps/$app/src/main.js"
}


up() {
  ensure_node
  ensure_deps
  ensure_build
  "$SETTLE_ROOT/scripts/infra.sh" start
  ensure_secrets
  ensure_database
  stack_env
  for app in "${APPS[@]}"; do start_app "$app"; done
  for app in "${APPS[@]}"; do
    if ! wait_for 120 "$app" test -f "$RUN_DIR/$app.ready"; then die "$app did not become ready"; fi
  done
  cat >&2 <<MSG
[settle] stack is up
  ingestion        http://127.0.0.1:$SETTLE_INGESTION_PORT   (API key in $SECRETS)
  provider sandbox http://127.0.0.1:$SETTLE_SANDBOX_PORT
  kafka            127.0.0.1:$SETTLE_KAFKA_PORT
  schema registry  $SCHEMA_REGISTRY_URL
  database         $DATABASE_URL
  logs             $LOG_DIR
MSG
}

down() {
  for app in "${APPS[@]}"; do
    local pidfile="$RUN_DIR/$app.pid"
    if pid_alive "$pidfile"; then
      kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
    fi
  done
  for app in "${APPS[@]}"; do
    local pidfile="$RUN_DIR/$app.pid"
    for _ in $(seq 1 40); do pid_alive "$pidfile" || break; sleep 0.25; done
    pid_alive "$pidfile" && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile" "$RUN_DIR/$app.ready"
  done
  "$SETTLE_ROOT/scripts/infra.sh" stop
}

status() {
  local ok=0
  "$SETTLE_ROOT/scripts/infra.sh" status || ok=1
  for app in "${APPS[@]}"; do
    if pid_alive "$RUN_DIR/$app.pid" && [ -f "$RUN_DIR/$app.ready" ]; then printf '%-17s up\n' "$app"; else printf '%-17s down\n' "$app"; ok=1; fi
  done
  return $ok
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) ensure_secrets; ensure_database; stack_env; env | grep -E '^(SETTLE_|KAFKA_|SCHEMA_|DATABASE_URL|PAYSTACK_|SANDBOX_|INGESTION_)' ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
