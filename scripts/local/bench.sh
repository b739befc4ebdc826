#!/usr/bin/env bash
# Benchmarks (`npm run bench -- <name>`, `./settle bench <name>`): provisions and builds like
# the tests, starts the local infrastructure if needed (and stops what it started), then runs
# dist/bench/run.js. Each benchmark starts its own apps with a fresh database, made on the
# stack's own PostgreSQL cluster (.settle/postgres, autovacuum on: docs/postgres.md) rather than
# on the machine's that the tests use, or on the server DATABASE_URL names.
source "$(dirname "$0")/lib.sh"
ensure_node
ensure_deps
ensure_build
"$SETTLE_ROOT/scripts/local/receiver-kit.sh"
use_local_infra
# Where the benchmarks create their databases (infra.benchAdminDatabaseUrl, libs/testing/src/infra.ts).
if [ -n "${DATABASE_URL:-}" ]; then
  export SETTLE_BENCH_ADMIN_DATABASE_URL="${SETTLE_BENCH_ADMIN_DATABASE_URL:-$DATABASE_URL}"
else
  export SETTLE_BENCH_ADMIN_DATABASE_URL="${SETTLE_BENCH_ADMIN_DATABASE_URL:-$(settle_pg_url postgres)}"
fi
export KAFKAJS_NO_PARTITIONER_WARNING=1
node "$SETTLE_ROOT/dist/bench/run.js" "$@"
