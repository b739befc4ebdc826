#!/usr/bin/env bash
# Local infrastructure without Docker: a single-node KRaft Kafka 3.9.1 broker and the
# Apicurio schema registry (Confluent-compatible API), both from Maven Central, and the stack's
# own PostgreSQL cluster (the machine's server binaries, production-like settings: autovacuum
# on, durable commits; docs/postgres.md), with data and logs under .settle/. The machine's
# PostgreSQL (127.0.0.1:5432, which the tests use) and Redis are started when they are stopped.
# With DATABASE_URL set, that server is checked instead of both PostgreSQL servers.
#
#   scripts/local/infra.sh start|stop|status|provision
#
# Idempotent: a second start while running is harmless; a broker, registry or PostgreSQL server
# already answering on the configured ports is used as it is (and `stop` leaves it alone). Ports:
# SETTLE_KAFKA_PORT (19092), SETTLE_KAFKA_CONTROLLER_PORT (19093), SETTLE_REGISTRY_PORT (18081; its
# management interface on the next port), SETTLE_PG_PORT (15432). The registry keeps its schemas in the machine's PostgreSQL (database
# SETTLE_REGISTRY_DATABASE, default settle_schema_registry; SETTLE_REGISTRY_STORAGE=memory: in
# memory). SETTLE_PG_BIN picks the PostgreSQL server binaries (default the newest
# /usr/lib/postgresql/<major>/bin). SETTLE_OWN_POSTGRES=0 leaves the own cluster out of start, stop
# and status (the tests, which use the machine's server, set it). SETTLE_KAFKA_REQUEST_LOG=1 has a
# broker this script starts log every request it completes (.settle/logs/kafka-request.log).
source "$(dirname "$0")/lib.sh"

KAFKA_DIR="$SETTLE_HOME/kafka"
REGISTRY_DIR="$SETTLE_HOME/apicurio"
RUN_DIR="$SETTLE_HOME/run"
LOG_DIR="$SETTLE_HOME/logs"
mkdir -p "$RUN_DIR" "$LOG_DIR"

# java_major <java binary>: prints the feature version (17, 21, 25).
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1
}

# Finds a Java runtime of at least the given major version: $SETTLE_JAVA_HOME, the default
# java, then every JDK under /usr/lib/jvm (this machine kind ships OpenJDK 17 and Temurin).
find_java() {
  local min="$1" candidate
  for candidate in ${SETTLE_JAVA_HOME:+"$SETTLE_JAVA_HOME/bin/java"} "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    [ -x "$candidate" ] || continue
    if [ "$(java_major "$candidate")" -ge "$min" ] 2>/dev/null; then echo "$candidate"; return 0; fi
  done
  return 1
}

provision() {
  if [ -f "$KAFKA_DIR/libs/kafka_2.13-3.9.1.jar" ] && [ -f "$REGISTRY_DIR/quarkus-run.jar" ]; then return 0; fi
  command -v mvn >/dev/null || die "mvn is required to fetch Kafka and the schema registry from Maven Central"
  log "fetching Kafka 3.9.1 and Apicurio Registry from Maven Central (first run only)"
  mvn -q -B -f "$SETTLE_ROOT/infra/pom.xml" generate-resources -Dsettle.home="$SETTLE_HOME" >&2
}

# The machine's PostgreSQL (the tests' server), or the one DATABASE_URL names.
postgres_ready() {
  if [ -n "${DATABASE_URL:-}" ]; then pg_isready -q -d "$DATABASE_URL"; else pg_isready -q -h 127.0.0.1 -p 5432; fi
}

start_postgres() {
  if postgres_ready; then return 0; fi
  if [ -n "${DATABASE_URL:-}" ]; then die "PostgreSQL at DATABASE_URL is not reachable"; fi
  log "starting the machine's PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start >&2 || true
  wait_for 30 "PostgreSQL" postgres_ready
}

# The stack's own PostgreSQL cluster (./settle up, the benchmarks): data in .settle/postgres/data,
# listening on 127.0.0.1:$SETTLE_PG_PORT and on a Unix socket in .settle/postgres, log in
# .settle/logs/postgres.log. PostgreSQL refuses to run as root: when we are root the cluster
# belongs to, and runs as, the `postgres` OS user (runuser), as libs/testing/src/postgres.ts does.
PG_DIR="$SETTLE_HOME/postgres"
PG_DATA="$PG_DIR/data"
PG_LOG="$LOG_DIR/postgres.log"

# The newest server binaries under /usr/lib/postgresql/<major>/bin, or $SETTLE_PG_BIN.
find_pg_bin() {
  if [ -n "${SETTLE_PG_BIN:-}" ]; then echo "$SETTLE_PG_BIN"; return 0; fi
  local major
  for major in $(ls /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -rn); do
    if [ -x "/usr/lib/postgresql/$major/bin/initdb" ]; then echo "/usr/lib/postgresql/$major/bin"; return 0; fi
  done
  return 1
}

as_root() { [ "$(id -u)" = 0 ]; }

# pg_tool <tool> <args...>: a server tool (initdb, pg_ctl) run as the cluster's owner, from its folder.
pg_tool() {
  local tool="$PG_BIN/$1"; shift
  if as_root; then (cd "$PG_DIR" && runuser -u postgres -- "$tool" "$@"); else (cd "$PG_DIR" && "$tool" "$@"); fi
}

# Gives a path we created to the cluster's owner.
pg_own() { if as_root; then chown postgres:postgres "$@"; fi; }

# True while this checkout's cluster runs (its postmaster is alive), whatever answers on the port.
own_pg_running() {
  [ -f "$PG_DATA/postmaster.pid" ] && kill -0 "$(head -n1 "$PG_DATA/postmaster.pid")" 2>/dev/null
}

# As the superuser that exists: a probe as a role that does not is logged as FATAL.
own_pg_ready() { pg_isready -q -h 127.0.0.1 -p "$SETTLE_PG_PORT" -U postgres -d postgres; }

# initdb, once: superuser `postgres`, UTF-8, C locale, trust authentication from this machine only.
# Made in a side folder and renamed, so an interrupted initdb never leaves a half-made cluster.
init_own_postgres() {
  [ -f "$PG_DATA/PG_VERSION" ] && return 0
  mkdir -p "$PG_DIR"
  if as_root; then
    id -u postgres >/dev/null 2>&1 || die "run as root, the stack's PostgreSQL needs the \"postgres\" OS user (initdb refuses root)"
    pg_own "$PG_DIR"
    runuser -u postgres -- test -x "$PG_DIR" ||
      die "the postgres OS user cannot reach $PG_DIR: make its parent folders traversable (chmod o+x), or set SETTLE_HOME"
  fi
  chmod 700 "$PG_DIR"
  log "creating the stack's PostgreSQL cluster in $PG_DATA ($PG_BIN)"
  rm -rf "$PG_DIR/data.initdb"
  pg_tool initdb -D "$PG_DIR/data.initdb" -U postgres --auth=trust --encoding=UTF8 --locale=C \
    >"$LOG_DIR/postgres-initdb.log" 2>&1 || die "initdb failed: see $LOG_DIR/postgres-initdb.log"
  # Only loopback TCP (the server listens on 127.0.0.1 alone) and the socket in .settle/postgres (mode 700).
  cat >"$PG_DIR/data.initdb/pg_hba.conf" <<'HBA'
# Written by scripts/local/infra.sh: trust, from this machine only (docs/postgres.md).
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 trust
host    all          all   127.0.0.1/32  trust
local   replication  all                 trust
host    replication  all   127.0.0.1/32  trust
HBA
  # Our settings live in settle.conf, rewritten at every start; postgresql.conf stays initdb's.
  printf "\n# Settle's settings (scripts/local/infra.sh writes this file at every start; docs/postgres.md)\ninclude = 'settle.conf'\n" \
    >>"$PG_DIR/data.initdb/postgresql.conf"
  pg_own "$PG_DIR/data.initdb/pg_hba.conf"
  mv "$PG_DIR/data.initdb" "$PG_DATA"
}

# The cluster's settings, each explained in docs/postgres.md. Production-like on purpose: the
# machine's server runs the tests with autovacuum off, which hides what dead rows in the hot,
# queue-like tables (outboxes, inboxes, the sweeper's watch state) cost in production.
write_pg_config() {
  cat >"$PG_DATA/settle.conf" <<CONF
# Written by scripts/local/infra.sh at every start of the cluster: change settings there, not here
# (docs/postgres.md explains each). ALTER SYSTEM (postgresql.auto.conf) still overrides them.
listen_addresses = '127.0.0.1'
port = $SETTLE_PG_PORT
unix_socket_directories = '$PG_DIR'
max_connections = 200
shared_buffers = 256MB
# Process titles read "postgres: settle: ..." (ps, bench/support/proc.ts).
cluster_name = 'settle'

# Autovacuum on, and eager for small, hot tables: a table is vacuumed once 5 % of its rows
# (plus 50) are dead or newly inserted, looked at every 10 s.
autovacuum = on
autovacuum_naptime = 10s
autovacuum_vacuum_scale_factor = 0.05
autovacuum_vacuum_insert_scale_factor = 0.05
autovacuum_analyze_scale_factor = 0.05

# Durability: nothing is acknowledged before its WAL is on disk.
fsync = on
synchronous_commit = on
full_page_writes = on

# WAL and checkpoints as on a production primary: replica WAL, compressed full-page images, fewer
# checkpoints.
wal_level = replica
wal_compression = on
checkpoint_timeout = 15min
max_wal_size = 2GB

# Observability: statement statistics (CREATE EXTENSION pg_stat_statements in a database to read
# them), I/O timing.
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = top
track_io_timing = on
log_min_duration_statement = -1
CONF
  pg_own "$PG_DATA/settle.conf"
}

start_own_postgres() {
  if own_pg_running; then
    local running_port
    running_port="$(sed -n 4p "$PG_DATA/postmaster.pid")"
    [ "$running_port" = "$SETTLE_PG_PORT" ] ||
      die "the stack's PostgreSQL already runs on port $running_port, not SETTLE_PG_PORT=$SETTLE_PG_PORT: stop it first (scripts/local/infra.sh stop)"
    wait_for 60 "PostgreSQL (.settle/postgres) on 127.0.0.1:$SETTLE_PG_PORT" own_pg_ready
    return 0
  fi
  if own_pg_ready; then
    log "a PostgreSQL server already answers on 127.0.0.1:$SETTLE_PG_PORT; using it"
    return 0
  fi
  port_open "$SETTLE_PG_PORT" && die "port $SETTLE_PG_PORT is taken by something that is not an accepting PostgreSQL server (set SETTLE_PG_PORT)"
  [ -n "$PG_BIN" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql/<major>/bin: set SETTLE_PG_BIN (or DATABASE_URL)"
  init_own_postgres
  write_pg_config
  touch "$PG_LOG"
  pg_own "$PG_LOG"
  log "starting PostgreSQL (.settle/postgres) on 127.0.0.1:$SETTLE_PG_PORT"
  pg_tool pg_ctl -D "$PG_DATA" -l "$PG_LOG" -w -t 60 start >/dev/null || die "PostgreSQL did not start: see $PG_LOG"
  wait_for 30 "PostgreSQL on 127.0.0.1:$SETTLE_PG_PORT" own_pg_ready
}

# Stops this checkout's cluster (fast: open sessions are ended), never a server it did not start.
stop_own_postgres() {
  own_pg_running || return 0
  [ -n "$PG_BIN" ] || die "no PostgreSQL server binaries to stop $PG_DATA with (set SETTLE_PG_BIN)"
  log "stopping PostgreSQL (.settle/postgres)"
  pg_tool pg_ctl -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null
}

# Redis: the receiver kit's Redis store is tested against the machine's (127.0.0.1:6379), started
# here when it is not running (tests use their own key prefix and delete their keys).
redis_ready() { port_open 6379; }

start_redis() {
  if redis_ready; then return 0; fi
  command -v redis-server >/dev/null || die "Redis is not running on 127.0.0.1:6379 and redis-server is not installed"
  log "starting the machine's Redis"
  mkdir -p "$SETTLE_HOME/redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir "$SETTLE_HOME/redis" --logfile "$LOG_DIR/redis.log" >&2
  wait_for 30 "Redis" redis_ready
}

write_kafka_config() {
  mkdir -p "$KAFKA_DIR/config" "$KAFKA_DIR/data"
  cat >"$KAFKA_DIR/config/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$SETTLE_KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$SETTLE_KAFKA_PORT,CONTROLLER://127.0.0.1:$SETTLE_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$SETTLE_KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_DIR/data
num.partitions=6
offsets.topic.replication.factor=1
offsets.topic.num.partitions=12
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.retention.hours=168
PROPS
  cat >"$KAFKA_DIR/config/log4j.properties" <<'PROPS'
log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${kafka.logs.dir}/kafka-server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
PROPS
  # SETTLE_KAFKA_REQUEST_LOG=1 when this script starts the broker (not one already running): the
  # broker logs every request it completes (API, client id, times) to kafka-request.log beside its
  # own log, rolled at 256 MB with two kept: which client sends what, and how often. A diagnostic,
  # costly at load.
  if [ "${SETTLE_KAFKA_REQUEST_LOG:-0}" = 1 ]; then
    cat >>"$KAFKA_DIR/config/log4j.properties" <<'PROPS'
log4j.appender.requests=org.apache.log4j.RollingFileAppender
log4j.appender.requests.File=${kafka.logs.dir}/kafka-request.log
log4j.appender.requests.MaxFileSize=256MB
log4j.appender.requests.MaxBackupIndex=2
log4j.appender.requests.layout=org.apache.log4j.PatternLayout
log4j.appender.requests.layout.ConversionPattern=[%d] %m%n
log4j.logger.kafka.request.logger=DEBUG, requests
log4j.additivity.kafka.request.logger=false
PROPS
  fi
}

kafka_java() {
  "$KAFKA_JAVA" -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOG_DIR" -Dlog4j.configuration="file:$KAFKA_DIR/config/log4j.properties" \
    -cp "$KAFKA_DIR/libs/*" "$@"
}

start_kafka() {
  if port_open "$SETTLE_KAFKA_PORT"; then
    pid_alive "$RUN_DIR/kafka.pid" || log "a broker already listens on 127.0.0.1:$SETTLE_KAFKA_PORT; using it"
    return 0
  fi
  write_kafka_config
  if [ ! -f "$KAFKA_DIR/data/meta.properties" ]; then
    local cluster_id
    cluster_id="$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1)"
    kafka_java kafka.tools.StorageTool format -t "$cluster_id" -c "$KAFKA_DIR/config/server.properties" --ignore-formatted >>"$LOG_DIR/kafka-format.log" 2>&1
  fi
  log "starting Kafka on 127.0.0.1:$SETTLE_KAFKA_PORT"
  launch kafka "$KAFKA_DIR" "$KAFKA_JAVA" -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOG_DIR" -Dlog4j.configuration="file:$KAFKA_DIR/config/log4j.properties" \
    -cp "$KAFKA_DIR/libs/*" kafka.Kafka "$KAFKA_DIR/config/server.properties"
  wait_for 90 "Kafka" port_open "$SETTLE_KAFKA_PORT"
}

registry_ready() {
  curl -fsS -o /dev/null "http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7/subjects" 2>/dev/null
}

# Where the registry keeps its schemas. SETTLE_REGISTRY_STORAGE=postgres (the default) keeps them
# in the machine's PostgreSQL, database $SETTLE_REGISTRY_DATABASE (created when missing): a
# registry restart keeps every schema id the records on the topics carry (in memory it would lose
# them: docs/reliability.md, finding 4). SETTLE_REGISTRY_STORAGE=memory keeps them in memory, as
# does a run against an external server (DATABASE_URL set), which this script does not manage.
SETTLE_REGISTRY_STORAGE="${SETTLE_REGISTRY_STORAGE:-postgres}"
SETTLE_REGISTRY_DATABASE="${SETTLE_REGISTRY_DATABASE:-settle_schema_registry}"
# Sets REGISTRY_STORAGE_ARGS (the registry's storage flags; empty: in memory), creating the
# database when missing.
registry_storage() {
  REGISTRY_STORAGE_ARGS=()
  case "$SETTLE_REGISTRY_STORAGE" in
    memory) return 0 ;;
    postgres) [ -z "${DATABASE_URL:-}" ] || return 0 ;;
    *) die "SETTLE_REGISTRY_STORAGE must be postgres or memory, not $SETTLE_REGISTRY_STORAGE" ;;
  esac
  local psql=(psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
  if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$SETTLE_REGISTRY_DATABASE'")" != 1 ]; then
    "${psql[@]}" -c "CREATE DATABASE $SETTLE_REGISTRY_DATABASE" >&2 || die "could not create the registry's database $SETTLE_REGISTRY_DATABASE"
  fi
  # Trust authentication: the driver needs a password, the server ignores it.
  REGISTRY_STORAGE_ARGS=(-Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=postgresql
    "-Dapicurio.datasource.url=jdbc:postgresql://127.0.0.1:5432/$SETTLE_REGISTRY_DATABASE"
    -Dapicurio.datasource.username=postgres -Dapicurio.datasource.password=unused)
}

start_registry() {
  if registry_ready; then
    pid_alive "$RUN_DIR/registry.pid" || log "a schema registry already answers on 127.0.0.1:$SETTLE_REGISTRY_PORT; using it"
    return 0
  fi
  port_open "$SETTLE_REGISTRY_PORT" && die "port $SETTLE_REGISTRY_PORT is taken by something that is not a schema registry (set SETTLE_REGISTRY_PORT)"
  registry_storage
  if [ ${#REGISTRY_STORAGE_ARGS[@]} -gt 0 ]; then
    log "starting the schema registry on 127.0.0.1:$SETTLE_REGISTRY_PORT (schemas kept in PostgreSQL, database $SETTLE_REGISTRY_DATABASE)"
  else
    log "starting the schema registry on 127.0.0.1:$SETTLE_REGISTRY_PORT (schemas kept in memory)"
  fi
  launch registry "$REGISTRY_DIR" "$REGISTRY_JAVA" -Xms128m -Xmx384m \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$SETTLE_REGISTRY_PORT" \
    -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$((SETTLE_REGISTRY_PORT + 1))" \
    -Dquarkus.log.level=WARN -Dquarkus.banner.enabled=false \
    "${REGISTRY_STORAGE_ARGS[@]}" \
    -jar quarkus-run.jar
  wait_for 90 "the schema registry" registry_ready
}

stop_one() {
  local name="$1" pidfile="$RUN_DIR/$1.pid"
  if pid_alive "$pidfile"; then
    local pid; pid="$(cat "$pidfile")"
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  fi
  rm -f "$pidfile"
}

status() {
  local ok=0
  if [ -n "${DATABASE_URL:-}" ]; then
    if postgres_ready; then echo "postgres  up   DATABASE_URL"; else echo "postgres  down DATABASE_URL"; ok=1; fi
  else
    if postgres_ready; then echo "postgres  up   127.0.0.1:5432   the machine's (tests)"; else echo "postgres  down 127.0.0.1:5432   the machine's (tests)"; ok=1; fi
    if [ "${SETTLE_OWN_POSTGRES:-1}" = 0 ]; then :
    elif own_pg_ready; then
      if own_pg_running; then echo "postgres  up   127.0.0.1:$SETTLE_PG_PORT  .settle/postgres (stack, benchmarks)"
      else echo "postgres  up   127.0.0.1:$SETTLE_PG_PORT  another checkout's or someone's (stack, benchmarks)"; fi
    else echo "postgres  down 127.0.0.1:$SETTLE_PG_PORT  .settle/postgres (stack, benchmarks)"; ok=1; fi
  fi
  if redis_ready; then echo "redis     up   127.0.0.1:6379"; else echo "redis     down"; ok=1; fi
  if port_open "$SETTLE_KAFKA_PORT"; then echo "kafka     up   127.0.0.1:$SETTLE_KAFKA_PORT"; else echo "kafka     down"; ok=1; fi
  if registry_ready; then echo "registry  up   http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7"; else echo "registry  down"; ok=1; fi
  return $ok
}

# Kafka 3.9 runs on Java 17; Apicurio Registry 3.x is compiled for Java 21.
KAFKA_JAVA="$(find_java 17 || true)"
REGISTRY_JAVA="$(find_java 21 || true)"
PG_BIN="$(find_pg_bin || true)"

case "${1:-}" in
  provision) provision ;;
  start)
    [ -n "$KAFKA_JAVA" ] || die "Kafka needs Java 17 or later (set SETTLE_JAVA_HOME)"
    [ -n "$REGISTRY_JAVA" ] || die "the schema registry (Apicurio 3) needs Java 21 or later; set SETTLE_JAVA_HOME to such a JDK"
    provision
    start_postgres
    start_redis
    start_kafka &
    kpid=$!
    if [ -z "${DATABASE_URL:-}" ] && [ "${SETTLE_OWN_POSTGRES:-1}" != 0 ]; then start_own_postgres; fi
    start_registry
    wait "$kpid"
    ;;
  stop)
    stop_one registry
    stop_one kafka
    if [ "${SETTLE_OWN_POSTGRES:-1}" != 0 ]; then stop_own_postgres; fi
    ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status|provision" >&2; exit 2 ;;
esac
