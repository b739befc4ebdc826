#!/usr/bin/env bash
# Local infrastructure without Docker: a single-node KRaft Kafka 3.9.1 broker and the
# Apicurio schema registry (Confluent-compatible API), both from Maven Central, with data
# and logs under .settle/. PostgreSQL is the machine's unless DATABASE_URL says otherwise.
#
#   scripts/infra.sh start|stop|status|provision
#
# Idempotent: a second start while running is harmless; a broker or registry already
# answering on the configured ports is used as it is (and `stop` leaves it alone). Ports: SETTLE_KAFKA_PORT (19092),
# SETTLE_KAFKA_CONTROLLER_PORT (19093), SETTLE_REGISTRY_PORT (18081).
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

start_registry() {
  if registry_ready; then
    pid_alive "$RUN_DIR/registry.pid" || log "a schema registry already answers on 127.0.0.1:$SETTLE_REGISTRY_PORT; using it"
    return 0
  fi
  port_open "$SETTLE_REGISTRY_PORT" && die "port $SETTLE_REGISTRY_PORT is taken by something that is not a schema registry (set SETTLE_REGISTRY_PORT)"
  log "starting the schema registry on 127.0.0.1:$SETTLE_REGISTRY_PORT"
  launch registry "$REGISTRY_DIR" "$REGISTRY_JAVA" -Xms128m -Xmx384m \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$SETTLE_REGISTRY_PORT" \
    -Dquarkus.log.level=WARN -Dquarkus.banner.enabled=false \
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
  if postgres_ready; then echo "postgres  up"; else echo "postgres  down"; ok=1; fi
  if redis_ready; then echo "redis     up   127.0.0.1:6379"; else echo "redis     down"; ok=1; fi
  if port_open "$SETTLE_KAFKA_PORT"; then echo "kafka     up   127.0.0.1:$SETTLE_KAFKA_PORT"; else echo "kafka     down"; ok=1; fi
  if registry_ready; then echo "registry  up   http://127.0.0.1:$SETTLE_REGISTRY_PORT/apis/ccompat/v7"; else echo "registry  down"; ok=1; fi
  return $ok
}

# Kafka 3.9 runs on Java 17; Apicurio Registry 3.x is compiled for Java 21.
KAFKA_JAVA="$(find_java 17 || true)"
REGISTRY_JAVA="$(find_java 21 || true)"

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
    start_registry
    wait "$kpid"
    ;;
  stop)
    stop_one registry
    stop_one kafka
    ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status|provision" >&2; exit 2 ;;
esac
