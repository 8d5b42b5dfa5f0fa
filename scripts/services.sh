#!/usr/bin/env bash
# Makes sure the local PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) the tests use are answering,
# starting them with the machine's standard commands when they are not.
set -euo pipefail

wait_for() { # name, check command
  for _ in $(seq 1 30); do
    if eval "$2" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "$1 is not answering" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "Starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
fi
wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432"

if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  echo "Starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG"
