#!/usr/bin/env bash
# The whole Settle stack on this machine: infrastructure (Kafka, schema registry, and its own
# PostgreSQL cluster in .settle/postgres, docs/postgres.md), the seven apps, and an example
# customer backend (examples/customer-backend, the receiver kit from its packed tarball) with an
# endpoint registered for it, each logging to .settle/logs/<app>.log.
#
#   scripts/local/stack.sh up|down|status
#   scripts/local/stack.sh checkout-producer   (installs examples/checkout-producer's dependencies only)
#
# Each app runs under scripts/local/supervise.sh, which starts it again (1 s, doubling to 30 s)
# whenever it exits on its own, as an orchestrator would; the pid files name the supervisors.
# `up` provisions what is missing (Node 24, npm packages, Kafka, the registry, the PostgreSQL
# cluster), builds, starts everything in the background and returns once every app is ready.
# Idempotent. `down` stops the apps, Kafka, the registry and the PostgreSQL cluster.
source "$(dirname "$0")/lib.sh"

APPS=(provider-sandbox ingestion verifier ledger-projector sweeper dispatcher console)
# The customer's side: not a Settle app, started after them (it needs an endpoint registered).
CUSTOMER=customer-backend
RUN_DIR="$SETTLE_HOME/run"
LOG_DIR="$SETTLE_HOME/logs"
SECRETS="$SETTLE_HOME/secrets.env"
mkdir -p "$RUN_DIR" "$LOG_DIR"

# Local secrets, generated once per machine into the git-ignored state folder; a variable
# missing from an older file is added. Sourced, not exported: each app gets only its own.
random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
random_base64() { head -c "$1" /dev/urandom | base64 | tr -d '\n'; }
ensure_secrets() {
  umask 077
  touch "$SECRETS"
  add_secret() { grep -q "^$1=" "$SECRETS" || echo "$1=$2" >>"$SECRETS"; }
  add_secret SETTLE_API_KEY "sk_settle_$(random_hex 24)"
  add_secret SETTLE_ADMIN_API_KEY "sk_admin_$(random_hex 24)"
  # Each provider's secrets, as its definition says they are made (stackVariables.generated).
  # BEGIN generated: provider secrets (npm run config:examples)
  add_secret PAYSTACK_SECRET_KEY "sk_test_$(random_hex 20)"
  add_secret STRIPE_SECRET_KEY "sk_test_$(random_hex 24)"
  add_secret STRIPE_WEBHOOK_SECRET "whsec_$(random_base64 32)"
  add_secret FLUTTERWAVE_SECRET_KEY "FLWSECK_TEST-$(random_hex 16)-X"
  add_secret FLUTTERWAVE_SECRET_HASH "$(random_hex 16)"
  add_secret MPESA_CONSUMER_KEY "$(random_hex 16)"
  add_secret MPESA_CONSUMER_SECRET "$(random_hex 16)"
  add_secret MPESA_PASSKEY "$(random_hex 32)"
  add_secret MPESA_CALLBACK_TOKEN "$(random_hex 24)"
  # END generated: provider secrets
  source "$SECRETS"
  SETTLE_API_KEY_SHA256="$(printf '%s' "$SETTLE_API_KEY" | sha256sum | cut -d' ' -f1)"
  SETTLE_ADMIN_API_KEY_SHA256="$(printf '%s' "$SETTLE_ADMIN_API_KEY" | sha256sum | cut -d' ' -f1)"
}

# The credentials vault: a master key file made on first start, and the sandbox's provider
# credentials stored encrypted (docs/vault.md). Only the verifier is given the key file.
# Two vaults, each with its own master key file: `vault` (provider API credentials, read by the
# verifier only) and `webhook_vault` (webhook signing secrets, read by ingestion only).
VAULT_KEY_FILE="$SETTLE_HOME/vault/master-keys.json"
WEBHOOK_VAULT_KEY_FILE="$SETTLE_HOME/vault/webhook-master-keys.json"
# The dispatcher's vault (customer endpoint secrets it generates), under keys only it holds.
ENDPOINT_VAULT_KEY_FILE="$SETTLE_HOME/vault/endpoint-master-keys.json"
# The ledger projector's vault (the ledger's checkpoint signing key, made on first use), under keys only it holds.
LEDGER_VAULT_KEY_FILE="$SETTLE_HOME/vault/ledger-master-keys.json"
# The privacy vault (the data subjects' keys, docs/privacy.md, "Crypto-shredding"), under keys of
# its own: the verifier seals unmatched payments' payer email and phone with it; the console opens
# and erases with it.
PRIVACY_VAULT_KEY_FILE="$SETTLE_HOME/vault/privacy-master-keys.json"
# Where the signed checkpoints and their public keys are written, once each: a local folder here,
# write-once storage in production (docs/ledger.md, "Where checkpoints go").
LEDGER_CHECKPOINT_DIR="$SETTLE_HOME/ledger-checkpoints"
vault_cli() { # vault_cli <schema> <key file> <command...>
  local schema="$1" keys="$2"; shift 2
  SETTLE_VAULT_SCHEMA="$schema" SETTLE_VAULT_MASTER_KEY_FILE="$keys" node "$SETTLE_ROOT/dist/scripts/ops/vault.js" "$@"
}
seed_vault() { # seed_vault <schema> <key file> then "provider name value" lines on stdin
  local schema="$1" keys="$2" existing provider name value
  [ -f "$keys" ] || vault_cli "$schema" "$keys" rotate --key-file "$keys" >&2
  existing="$(vault_cli "$schema" "$keys" list)"
  while read -r provider name value; do
    # Only when the vault has no such credential yet.
    grep -qE "^$provider[[:space:]]+default[[:space:]]+$name[[:space:]]" <<<"$existing" ||
      printf '%s' "$value" | vault_cli "$schema" "$keys" put "$provider" default "$name" >&2
  done
}
provider_secrets() { # provider_secrets <vault schema>: "provider name value" lines, from the provider registry
  local provider name variable
  node "$SETTLE_ROOT/dist/scripts/local/provider-secrets.js" "$1" | while read -r provider name variable; do
    printf '%s %s %s\n' "$provider" "$name" "${!variable}"
  done
}
ensure_vault() {
  local credentials webhook_secrets
  # Which secrets each provider needs, and the variable holding each, come from its definition
  # (read first, so a failure stops here instead of seeding nothing).
  credentials="$(provider_secrets vault)"
  webhook_secrets="$(provider_secrets webhook_vault)"
  mkdir -p "$(dirname "$VAULT_KEY_FILE")"
  chmod 700 "$(dirname "$VAULT_KEY_FILE")"
  seed_vault vault "$VAULT_KEY_FILE" <<<"$credentials"
  [ -f "$ENDPOINT_VAULT_KEY_FILE" ] || vault_cli endpoint_vault "$ENDPOINT_VAULT_KEY_FILE" rotate --key-file "$ENDPOINT_VAULT_KEY_FILE" >&2
  [ -f "$LEDGER_VAULT_KEY_FILE" ] || vault_cli ledger_vault "$LEDGER_VAULT_KEY_FILE" rotate --key-file "$LEDGER_VAULT_KEY_FILE" >&2
  [ -f "$PRIVACY_VAULT_KEY_FILE" ] || vault_cli privacy_vault "$PRIVACY_VAULT_KEY_FILE" rotate --key-file "$PRIVACY_VAULT_KEY_FILE" >&2
  mkdir -p "$LEDGER_CHECKPOINT_DIR"
  seed_vault webhook_vault "$WEBHOOK_VAULT_KEY_FILE" <<<"$webhook_secrets"
}

create_database() { # create_database <admin connection string> <name>, when missing
  if ! psql -d "$1" -tAc "SELECT 1 FROM pg_database WHERE datname = '$2'" | grep -q 1; then
    psql -d "$1" -qc "CREATE DATABASE $2" >&2
  fi
}

# The stack's databases are on its own PostgreSQL cluster (scripts/local/infra.sh, .settle/postgres on
# 127.0.0.1:$SETTLE_PG_PORT; docs/postgres.md), made when missing, unless DATABASE_URL names
# another server. ledger.sh and demo.sh (through `stack.sh env`) read the same.
ensure_database() {
  local own_customer machine_customer="postgres://postgres@127.0.0.1:5432/settle_customer"
  own_customer="$(settle_pg_url settle_customer)"
  # The customer backend keeps its own database, as a customer's would: on the own cluster too,
  # or, when DATABASE_URL names the server, on the machine's as before.
  if [ -n "${DATABASE_URL:-}" ]; then
    export CUSTOMER_DATABASE_URL="${CUSTOMER_DATABASE_URL:-$machine_customer}"
  else
    export CUSTOMER_DATABASE_URL="${CUSTOMER_DATABASE_URL:-$own_customer}"
  fi
  case "$CUSTOMER_DATABASE_URL" in
    "$own_customer") create_database "$(settle_pg_url postgres)" settle_customer ;;
    "$machine_customer") create_database postgres://postgres@127.0.0.1:5432/postgres settle_customer ;;
  esac
  if [ -n "${DATABASE_URL:-}" ]; then return 0; fi
  export DATABASE_URL="$(settle_pg_url settle)"
  create_database "$(settle_pg_url postgres)" settle
}

stack_env() {
  export SETTLE_ENV="${SETTLE_ENV:-development}"
  export KAFKA_BROKERS="127.0.0.1:$SETTLE_KAFKA_PORT"
  export SCHEMA_REGISTRY_URL="http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7"
  export SWEEPER_INACTIVITY_MS="${SWEEPER_INACTIVITY_MS:-45000}"
  export KAFKAJS_NO_PARTITIONER_WARNING=1
}

# BEGIN generated: provider variables (npm run config:examples)
# Each provider's variables of the sandbox (its secrets, and where its webhooks go) and of the
# verifier (its base URL), from the providers' declarations; app_env prints them.
provider_sandbox_env() { # provider_sandbox_env <ingestion base URL>
  echo "PAYSTACK_SECRET_KEY=$PAYSTACK_SECRET_KEY" \
    "SANDBOX_WEBHOOK_URL=$1/v1/webhooks/paystack" "STRIPE_SECRET_KEY=$STRIPE_SECRET_KEY" \
    "STRIPE_WEBHOOK_SECRET=$STRIPE_WEBHOOK_SECRET" \
    "SANDBOX_STRIPE_WEBHOOK_URL=$1/v1/webhooks/stripe" \
    "FLUTTERWAVE_SECRET_KEY=$FLUTTERWAVE_SECRET_KEY" \
    "FLUTTERWAVE_SECRET_HASH=$FLUTTERWAVE_SECRET_HASH" \
    "SANDBOX_FLUTTERWAVE_WEBHOOK_URL=$1/v1/webhooks/flutterwave" \
    "MPESA_CONSUMER_KEY=$MPESA_CONSUMER_KEY" "MPESA_CONSUMER_SECRET=$MPESA_CONSUMER_SECRET" \
    "MPESA_PASSKEY=$MPESA_PASSKEY" \
    "SANDBOX_MPESA_CALLBACK_URL=$1/v1/webhooks/mpesa/$MPESA_CALLBACK_TOKEN"
}
provider_verifier_env() { # provider_verifier_env <sandbox base URL>
  echo "PAYSTACK_BASE_URL=$1" "STRIPE_BASE_URL=$1" "FLUTTERWAVE_BASE_URL=$1" \
    "MPESA_BASE_URL=$1"
}
# END generated: provider variables

# The variables each app gets on top of the shared ones: secrets only where they are used.
app_env() {
  case "$1" in
    provider-sandbox)
      # shellcheck disable=SC2046 # provider_sandbox_env prints VAR=value words without spaces
      echo "SANDBOX_PORT=$SETTLE_SANDBOX_PORT" $(provider_sandbox_env "http://127.0.0.1:$SETTLE_INGESTION_PORT") ;;
    ingestion)
      echo "INGESTION_PORT=$SETTLE_INGESTION_PORT" "SETTLE_API_KEY_SHA256=$SETTLE_API_KEY_SHA256" \
        "SETTLE_ADMIN_API_KEY_SHA256=$SETTLE_ADMIN_API_KEY_SHA256" \
        "SETTLE_VAULT_MASTER_KEY_FILE=$WEBHOOK_VAULT_KEY_FILE" ;;
    verifier)
      # shellcheck disable=SC2046 # provider_verifier_env prints VAR=value words without spaces
      echo "SETTLE_VAULT_MASTER_KEY_FILE=$VAULT_KEY_FILE" $(provider_verifier_env "http://127.0.0.1:$SETTLE_SANDBOX_PORT") \
        "SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE=$PRIVACY_VAULT_KEY_FILE" "METRICS_PORT=$SETTLE_VERIFIER_METRICS_PORT" ;;
    ledger-projector)
      echo "METRICS_PORT=$SETTLE_PROJECTOR_METRICS_PORT" "SETTLE_VAULT_MASTER_KEY_FILE=$LEDGER_VAULT_KEY_FILE" \
        "LEDGER_CHECKPOINT_DIR=$LEDGER_CHECKPOINT_DIR" ;;
    sweeper) echo "METRICS_PORT=$SETTLE_SWEEPER_METRICS_PORT" ;;
    dispatcher)
      # The merchant's API key fetches receipts' proofs (docs/ledger.md, "Receipts").
      echo "DISPATCHER_PORT=$SETTLE_DISPATCHER_PORT" "SETTLE_ADMIN_API_KEY_SHA256=$SETTLE_ADMIN_API_KEY_SHA256" \
        "SETTLE_API_KEY_SHA256=$SETTLE_API_KEY_SHA256" \
        "SETTLE_VAULT_MASTER_KEY_FILE=$ENDPOINT_VAULT_KEY_FILE" ;;
    console)
      # The console reconciles through ingestion's admin API and shows and acts on deliveries
      # through the dispatcher's, with the admin key (both hold only its digest); its overview
      # reads the dead-letter topics' and the workers' offsets under the stack's topic prefix; its
      # ledger verification reads the projector's checkpoint sink; its privacy actions open and erase
      # with the privacy vault's keys.
      echo "CONSOLE_PORT=$SETTLE_CONSOLE_PORT" "CONSOLE_INGESTION_URL=http://127.0.0.1:$SETTLE_INGESTION_PORT" \
        "CONSOLE_INGESTION_ADMIN_API_KEY=$SETTLE_ADMIN_API_KEY" \
        "CONSOLE_DISPATCHER_URL=http://127.0.0.1:$SETTLE_DISPATCHER_PORT" "CONSOLE_DISPATCHER_ADMIN_API_KEY=$SETTLE_ADMIN_API_KEY" \
        "KAFKA_BROKERS=$KAFKA_BROKERS" "SETTLE_TOPIC_PREFIX=${SETTLE_TOPIC_PREFIX:-settle}" \
        "LEDGER_CHECKPOINT_DIR=$LEDGER_CHECKPOINT_DIR" "SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE=$PRIVACY_VAULT_KEY_FILE" ;;
  esac
}

# The example customer backend's endpoint: registered through the dispatcher's admin API once,
# its id and secret (shown once) kept in the secrets file; registered again when the dispatcher
# no longer knows it (a new database).
ensure_customer_endpoint() {
  local admin="http://127.0.0.1:$SETTLE_DISPATCHER_PORT/v1/admin/endpoints" auth="authorization: Bearer $SETTLE_ADMIN_API_KEY"
  if [ -n "${CUSTOMER_ENDPOINT_ID:-}" ] && [ -n "${CUSTOMER_WEBHOOK_SECRET:-}" ] &&
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "$auth" "$admin/$CUSTOMER_ENDPOINT_ID")" = 200 ]; then
    return 0
  fi
  local created
  created="$(curl -fsS -X POST "$admin" -H "$auth" -H 'content-type: application/json' \
    -d "{\"url\":\"http://127.0.0.1:$SETTLE_CUSTOMER_PORT/webhook/settle\",\"description\":\"example customer backend (./settle up)\"}")" ||
    die "could not register the example customer backend's endpoint"
  CUSTOMER_ENDPOINT_ID="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).id)' "$created")"
  CUSTOMER_WEBHOOK_SECRET="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).secret)' "$created")"
  umask 077
  sed -i '/^CUSTOMER_ENDPOINT_ID=/d; /^CUSTOMER_WEBHOOK_SECRET=/d' "$SECRETS"
  printf 'CUSTOMER_ENDPOINT_ID=%s\nCUSTOMER_WEBHOOK_SECRET=%s\n' "$CUSTOMER_ENDPOINT_ID" "$CUSTOMER_WEBHOOK_SECRET" >>"$SECRETS"
  log "registered the example customer backend's endpoint $CUSTOMER_ENDPOINT_ID"
}

# The example checkout producer (examples/checkout-producer: an upstream service sending checkout
# commands over Kafka, which `./settle demo` uses for part of its checkouts): its dependencies
# installed into its own git-ignored node_modules from its lockfile, as its README says; again only
# when its package files or Node changed.
ensure_checkout_producer() {
  local example="$SETTLE_ROOT/examples/checkout-producer" stamp want
  stamp="$example/node_modules/.settle-install-sha"
  want="$(cat "$example/package.json" "$example/package-lock.json" | sha256sum | cut -d' ' -f1)-$(node -v)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "installing examples/checkout-producer's dependencies"
  (cd "$example" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$want" >"$stamp"
}

start_customer() {
  local pidfile="$RUN_DIR/$CUSTOMER.pid" ready="$RUN_DIR/$CUSTOMER.ready"
  if pid_alive "$pidfile"; then return 0; fi
  rm -f "$ready"
  env PORT="$SETTLE_CUSTOMER_PORT" DATABASE_URL="$CUSTOMER_DATABASE_URL" SETTLE_WEBHOOK_SECRETS="$CUSTOMER_WEBHOOK_SECRET" \
    SETTLE_READY_FILE="$ready" LAUNCH_LOG="$LOG_DIR/$CUSTOMER.log" \
    bash -c 'source "$0/scripts/local/lib.sh"; RUN_DIR="$1"; LOG_DIR="$2"; launch "$3" "$0/examples/customer-backend" bash "$0/scripts/local/supervise.sh" "$3" node src/server.js' \
    "$SETTLE_ROOT" "$RUN_DIR" "$LOG_DIR" "$CUSTOMER"
}

start_app() {
  local app="$1" pidfile="$RUN_DIR/$1.pid" ready="$RUN_DIR/$1.ready"
  if pid_alive "$pidfile"; then return 0; fi
  rm -f "$ready"
  local node_options="$SETTLE_APP_NODE_OPTIONS"
  [ "$app" = provider-sandbox ] && node_options="$SETTLE_SANDBOX_NODE_OPTIONS"
  # shellcheck disable=SC2046 # app_env prints VAR=value words without spaces
  env $(app_env "$app") NODE_OPTIONS="$node_options" SETTLE_READY_FILE="$ready" LAUNCH_LOG="$LOG_DIR/$app.log" \
    bash -c 'source "$0/scripts/local/lib.sh"; RUN_DIR="$1"; LOG_DIR="$2"; launch "$3" "$0" bash "$0/scripts/local/supervise.sh" "$3" node "$0/dist/apps/$3/src/main.js"' \
    "$SETTLE_ROOT" "$RUN_DIR" "$LOG_DIR" "$app"
}

up() {
  ensure_node
  ensure_deps
  ensure_build
  "$SETTLE_ROOT/scripts/local/infra.sh" start
  ensure_secrets
  ensure_database
  stack_env
  ensure_vault
  for app in "${APPS[@]}"; do start_app "$app"; done
  "$SETTLE_ROOT/scripts/local/receiver-kit.sh"
  ensure_checkout_producer
  for app in "${APPS[@]}"; do
    if ! wait_for 120 "$app" test -f "$RUN_DIR/$app.ready"; then die "$app did not become ready"; fi
  done
  ensure_customer_endpoint
  start_customer
  wait_for 60 "$CUSTOMER" test -f "$RUN_DIR/$CUSTOMER.ready" || die "$CUSTOMER did not become ready"
  cat >&2 <<MSG
[settle] stack is up
  ingestion        http://127.0.0.1:$SETTLE_INGESTION_PORT   (API key in $SECRETS)
  dispatcher       http://127.0.0.1:$SETTLE_DISPATCHER_PORT   (admin API: SETTLE_ADMIN_API_KEY in $SECRETS)
  console          http://127.0.0.1:$SETTLE_CONSOLE_PORT   (first admin: ./settle console-user --email you@example.com --role admin)
  customer backend http://127.0.0.1:$SETTLE_CUSTOMER_PORT   (examples/customer-backend; endpoint $CUSTOMER_ENDPOINT_ID)
  provider sandbox http://127.0.0.1:$SETTLE_SANDBOX_PORT
  kafka            127.0.0.1:$SETTLE_KAFKA_PORT
  schema registry  $SCHEMA_REGISTRY_URL
  database         $DATABASE_URL
  logs             $LOG_DIR
MSG
}

down() {
  for app in "$CUSTOMER" "${APPS[@]}"; do
    local pidfile="$RUN_DIR/$app.pid"
    if pid_alive "$pidfile"; then
      kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
    fi
  done
  for app in "$CUSTOMER" "${APPS[@]}"; do
    local pidfile="$RUN_DIR/$app.pid"
    for _ in $(seq 1 40); do pid_alive "$pidfile" || break; sleep 0.25; done
    pid_alive "$pidfile" && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile" "$RUN_DIR/$app.ready"
  done
  "$SETTLE_ROOT/scripts/local/infra.sh" stop
}

status() {
  local ok=0
  "$SETTLE_ROOT/scripts/local/infra.sh" status || ok=1
  for app in "${APPS[@]}" "$CUSTOMER"; do
    if pid_alive "$RUN_DIR/$app.pid" && [ -f "$RUN_DIR/$app.ready" ]; then printf '%-17s up\n' "$app"; else printf '%-17s down\n' "$app"; ok=1; fi
  done
  return $ok
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  checkout-producer) ensure_node; ensure_checkout_producer ;;
  env) ensure_secrets; ensure_database; stack_env
       echo "DATABASE_URL=$DATABASE_URL"; echo "SETTLE_API_KEY=$SETTLE_API_KEY"; echo "SWEEPER_INACTIVITY_MS=$SWEEPER_INACTIVITY_MS"
       echo "SETTLE_INGESTION_PORT=$SETTLE_INGESTION_PORT"; echo "SETTLE_SANDBOX_PORT=$SETTLE_SANDBOX_PORT"
       echo "SETTLE_DISPATCHER_PORT=$SETTLE_DISPATCHER_PORT"; echo "SETTLE_CUSTOMER_PORT=$SETTLE_CUSTOMER_PORT"
       echo "SETTLE_ADMIN_API_KEY=$SETTLE_ADMIN_API_KEY"; echo "CUSTOMER_DATABASE_URL=$CUSTOMER_DATABASE_URL"
       echo "CUSTOMER_ENDPOINT_ID=${CUSTOMER_ENDPOINT_ID:-}"; echo "SETTLE_CONSOLE_PORT=$SETTLE_CONSOLE_PORT" ;;
  *) echo "usage: $0 up|down|status|checkout-producer" >&2; exit 2 ;;
esac
