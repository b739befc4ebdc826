#!/usr/bin/env bash
# Creates a user of the operations console (`./settle console-user --email <email> --role
# viewer|operator|admin`; see apps/console/src/cli/create-user.ts): asks for the password (or
# reads it from standard input), never takes it as an argument. Uses the stack's database
# unless DATABASE_URL says otherwise.
source "$(dirname "$0")/../local/lib.sh"
ensure_node
ensure_deps >&2
[ -f "$SETTLE_ROOT/dist/apps/console/src/cli/create-user.js" ] || ensure_build >&2
export DATABASE_URL="${DATABASE_URL:-$(settle_pg_url settle)}"
exec node "$SETTLE_ROOT/dist/apps/console/src/cli/create-user.js" "$@"
