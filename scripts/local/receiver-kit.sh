#!/usr/bin/env bash
# The receiver kit customers install (libs/receiver, @settle/receiver): builds it, packs it into
# $SETTLE_HOME/packs/settle-receiver.tgz, and installs examples/customer-backend's dependencies,
# which take the kit from that tarball as a customer would. Quick when nothing changed (a hash
# of the kit's sources, its package files and the example's package.json).
#
#   scripts/local/receiver-kit.sh
source "$(dirname "$0")/lib.sh"
ensure_node

KIT="$SETTLE_ROOT/libs/receiver"
EXAMPLE="$SETTLE_ROOT/examples/customer-backend"
PACKS="$SETTLE_HOME/packs"
TARBALL="$PACKS/settle-receiver.tgz"
# The example's package.json names the tarball where a default checkout keeps it.
LINKED="$SETTLE_ROOT/.settle/packs/settle-receiver.tgz"
STAMP="$PACKS/settle-receiver.sha"

inputs_hash() {
  (
    cd "$SETTLE_ROOT"
    find libs/receiver/src libs/receiver/package.json libs/receiver/tsconfig.json libs/receiver/README.md \
      examples/customer-backend/package.json examples/customer-backend/.npmrc -type f -print0 | sort -z | xargs -0 sha256sum
    node -v
  ) | sha256sum | cut -d' ' -f1
}

want="$(inputs_hash)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -f "$TARBALL" ] && [ -f "$LINKED" ] \
  && [ -f "$EXAMPLE/node_modules/@settle/receiver/package.json" ]; then
  log "receiver kit up to date ($TARBALL)"
  exit 0
fi

log "building the receiver kit (libs/receiver)"
rm -rf "$KIT/dist"
(cd "$SETTLE_ROOT" && npx --no-install tsc -p libs/receiver/tsconfig.json)

mkdir -p "$PACKS"
packed="$(cd "$KIT" && npm pack --pack-destination "$PACKS" --loglevel=error | tail -n1)"
mv -f "$PACKS/$packed" "$TARBALL"
if [ "$TARBALL" != "$LINKED" ]; then
  mkdir -p "$(dirname "$LINKED")"
  cp -f "$TARBALL" "$LINKED"
fi
log "packed $TARBALL"

log "installing examples/customer-backend's dependencies"
# A tarball at an unchanged path is not re-read by npm: remove the installed kit first.
rm -rf "$EXAMPLE/node_modules/@settle/receiver"
(cd "$EXAMPLE" && npm install --no-audit --no-fund --loglevel=error >&2)
echo "$want" >"$STAMP"
