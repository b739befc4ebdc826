#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH (installed into .settle/node when needed).
source "$(dirname "$0")/lib.sh"
ensure_node
exec "$@"
