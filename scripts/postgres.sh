#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for the store's tests (and for trying `noisefloor serve --db
# postgresql://...` by hand): a cluster in a directory of its own, listening on a unix socket only
# (no TCP port), trust authentication for the one local user.
#
#   scripts/postgres.sh start DIR   initdb DIR (when empty) and start it; prints the URL to give
#                                   --db, e.g. postgresql://dbname=noisefloor host=DIR user=postgres
#   scripts/postgres.sh stop DIR    stop it (fast shutdown); DIR stays
#
# initdb refuses to run as root: as root the cluster belongs to the `postgres` user Debian's package
# creates, and DIR is made theirs. Needs Debian's postgresql-15 (scripts/bootstrap.sh test).
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
usage() { echo "usage: postgres.sh start|stop DIR" >&2; exit 2; }
(($# == 2)) || usage
action=$1
dir=$(realpath -m "$2")
cd /  # the postgres user may not enter the caller's directory
[[ -x $bin/initdb ]] || { echo "postgres.sh: $bin/initdb missing: apt-get install postgresql-15" >&2; exit 1; }

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
  start)
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    if [[ ! -f $dir/data/PG_VERSION ]]; then
      as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
    fi
    # No TCP at all; the socket in DIR; enough connections for 64 publishers and the page.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses='' -k $dir -c max_connections=200 -c fsync=on" start >/dev/null
    as_owner "$bin/psql" -h "$dir" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname='noisefloor'" | grep -q 1 ||
      as_owner "$bin/createdb" -h "$dir" -U postgres noisefloor
    echo "postgresql://dbname=noisefloor host=$dir user=postgres"
    ;;
  stop)
    [[ -f $dir/data/postmaster.pid ]] || exit 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  *) usage ;;
esac
