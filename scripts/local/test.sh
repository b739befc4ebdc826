#!/usr/bin/env bash
# The README's test command (`./settle test`, also `npm test`): provisions what is missing,
# builds, checks architecture boundaries, packs the receiver kit, starts the local
# infrastructure if it is not running, runs unit, integration and end-to-end tests against the
# real Kafka, schema registry, PostgreSQL and Redis, and stops what it started.
#
#   scripts/local/test.sh [vitest arguments]      e.g. scripts/local/test.sh --project unit
source "$(dirname "$0")/lib.sh"
ensure_node
ensure_deps
ensure_build
ensure_chromium
ensure_promtool

log "checking architecture boundaries"
(cd "$SETTLE_ROOT" && npx --no-install depcruise apps libs scripts test bench --config .dependency-cruiser.cjs --output-type err >&2)
log "linting (ESLint with typescript-eslint) and checking the formatting (Prettier)"
(cd "$SETTLE_ROOT" && npx --no-install eslint . >&2 && npx --no-install prettier --check . >&2)

# The receiver kit, packed as customers get it, and the example customer backend installed from
# that tarball (its tests, and the end-to-end ones, run it).
"$SETTLE_ROOT/scripts/local/receiver-kit.sh"

# The tests use the machine's PostgreSQL (docs/postgres.md): the stack's own cluster is left alone.
export SETTLE_OWN_POSTGRES=0
use_local_infra

export KAFKAJS_NO_PARTITIONER_WARNING=1
cd "$SETTLE_ROOT"
npx --no-install vitest run "$@"
