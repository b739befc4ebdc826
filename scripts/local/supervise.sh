#!/usr/bin/env bash
# Runs one app and starts it again whenever it exits on its own, the way an orchestrator
# restarts a crashed container (docs/reliability.md, "Supervision on this machine"):
#
#   scripts/local/supervise.sh <name> <command...>
#
# The wait before a restart starts at 1 s and doubles up to 30 s; it goes back to 1 s once a run
# has lasted 60 s. Each exit and restart is logged as a JSON line to standard output (the app's
# log, beside its own lines). SIGTERM or SIGINT stop the app (SIGTERM, its graceful shutdown)
# and then the supervisor, without a restart. The app's ready file (SETTLE_READY_FILE) is
# removed before each restart, so `./settle status` shows it down until it is ready again.
set -uo pipefail
name="$1"; shift
initial_delay="${SETTLE_RESTART_INITIAL_DELAY_S:-1}"
max_delay="${SETTLE_RESTART_MAX_DELAY_S:-30}"
stable_after="${SETTLE_RESTART_STABLE_AFTER_S:-60}"
delay="$initial_delay"
child=""
stopping=""

note() { # note <level> <message>: one JSON log line, like the apps' (pino: 30 info, 40 warn)
  printf '{"level":%s,"time":%s,"app":"supervisor","supervised":"%s","msg":"%s"}\n' "$1" "$(date +%s%3N)" "$name" "$2"
}

stop() {
  stopping=1
  if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  exit 0
}
trap stop TERM INT

restarts=0
while :; do
  started="$(date +%s)"
  "$@" &
  child=$!
  wait "$child"
  code=$?
  # A trap interrupts `wait`; `stop` exits, so getting here means the app ended on its own.
  [ -n "$stopping" ] && exit 0
  [ $(( $(date +%s) - started )) -ge "$stable_after" ] && delay="$initial_delay"
  restarts=$((restarts + 1))
  [ -n "${SETTLE_READY_FILE:-}" ] && rm -f "$SETTLE_READY_FILE"
  note 40 "$name exited with status $code; restart $restarts in ${delay} s"
  sleep "$delay" &
  wait $!
  note 30 "$name restarting"
  delay=$(( delay * 2 > max_delay ? max_delay : delay * 2 ))
done
