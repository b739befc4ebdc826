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
"$SETTLE_ROOT/scripts/receiver-kit.sh"
# The jars are needed even when another checkout's broker is already answering: some tests
# start a broker of their own from them.
"$SETTLE_ROOT/scripts/infra.sh" provision
started_infra=0
if ! "$SETTLE_ROOT/scripts/infra.sh" status >/dev/null 2>&1; then
  "$SETTLE_ROOT/scripts/infra.sh" start
  started_infra=1
fi
cleanup() { if [ "$started_infra" = 1 ]; then "$SETTLE_ROOT/scripts/infra.sh" stop || true; fi; }
trap cleanup EXIT
# Where the benchmarks create their databases (infra.benchAdminDatabaseUrl, scripts/harness/infra.ts).
if [ -n "${DATABASE_URL:-}" ]; then
  export SETTLE_BENCH_ADMIN_DATABASE_URL="${SETTLE_BENCH_ADMIN_DATABASE_URL:-$DATABASE_URL}"
else
  export SETTLE_BENCH_ADMIN_DATABASE_URL="${SETTLE_BENCH_ADMIN_DATABASE_URL:-$(settle_pg_url postgres)}"
fi
export KAFKAJS_NO_PARTITIONER_WARNING=1
node "$SETTLE_ROOT/dist/bench/run.js" "$@"
