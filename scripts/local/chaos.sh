#!/usr/bin/env bash
# The chaos suite from the command line (`npm run chaos [-- --long] [-- --scenarios=a,b] ...`,
# docs/reliability.md, "Chaos suite"): provisions and builds like the tests (Node, the
# dependencies, the build, the receiver kit the example customer backend installs, the Kafka and
# registry jars), then runs dist/scripts/chaos/cli.js. The suite starts its own broker,
# PostgreSQL cluster and registry, so nothing else needs to run.
source "$(dirname "$0")/lib.sh"
ensure_node
ensure_deps
ensure_build
"$SETTLE_ROOT/scripts/local/receiver-kit.sh"
"$SETTLE_ROOT/scripts/local/infra.sh" provision
export KAFKAJS_NO_PARTITIONER_WARNING=1
exec node "$SETTLE_ROOT/dist/scripts/chaos/cli.js" "$@"
