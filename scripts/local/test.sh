#!/usr/bin/env bash
# The README's test command (`./settle test`, also `npm test`): provisions what is missing,
# builds, checks architecture boundaries, packs the receiver kit, starts the local
# infrastructure if it is not running, runs unit, integration and end-to-end tests against the
# real Kafka, schema registry, PostgreSQL and Redis, and stops what it started.
#
#   scripts/test.sh [vitest arguments]      e.g. scripts/test.sh --project unit
source "$(dirname "$0")/lib.sh"
ensure_node
ensure_deps
ensure_build

log "checking architecture boundaries"
(cd "$SETTLE_ROOT" && npx --no-install depcruise apps libs scripts test bench --config .dependency-cruiser.cjs --output-type err >&2)
log "linting (ESLint with typescript-eslint) and checking the formatting (Prettier)"
(cd "$SETTLE_ROOT" && npx --no-install eslint . >&2 && npx --no-install prettier --check . >&2)

# The receiver kit, packed as customers get it, and the example customer backend installed from
# that tarball (its tests, and the end-to-end ones, run it).
"$SETTLE_ROOT/scripts/receiver-kit.sh"

# The tests use the machine's PostgreSQL (docs/postgres.md): the stack's own cluster is left alone.
export SETTLE_OWN_POSTGRES=0
# The jars are needed even when another checkout's broker is already answering: some tests
# start a broker of their own from them.
"$SETTLE_ROOT/scripts/infra.sh" provision
started_infra=0
if ! "$SETTLE_ROOT/scripts/infra.sh" status >/dev/null 2>&1; then
  "$SETTLE_ROOT/scripts/infra.sh" start
  started_infra=1
fi
cleanup() {
  if [ "$started_infra" = 1 ]; then "$SETTLE_ROOT/scripts/infra.sh" stop || true; fi
}
trap cleanup EXIT

export KAFKAJS_NO_PARTITIONER_WARNING=1
cd "$SETTLE_ROOT"
npx --no-install vitest run "$@"
