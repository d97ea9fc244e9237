#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the tests: what PostgresTestServer
# (Tests/Harnesses/PostgresTestSupport) starts in each test process, started once here for a whole run.
#
#   scripts/postgres-test-server.sh start [ENV_FILE]
#   scripts/postgres-test-server.sh stop [FOLDER]
#
# start: makes a cluster in a new temporary folder (superuser managedrecord, trusted, UTF-8,
# C locale so text sorts by code point as SQLite sorts it), picks a free port on 127.0.0.1 and
# starts the server, as the postgres user when run as root (PostgreSQL refuses root). Prints
#   export MANAGEDRECORD_POSTGRES_URL=postgres://managedrecord@127.0.0.1:PORT/postgres
#   export MANAGEDRECORD_POSTGRES_FOLDER=/tmp/managedrecord-postgres-XXXXXXXX
# on standard output (`eval "$(scripts/postgres-test-server.sh start)"`), and writes them to
# ENV_FILE if given; what it started goes to standard error.
# stop: stops the server of FOLDER (default: $MANAGEDRECORD_POSTGRES_FOLDER) and removes FOLDER.
set -euo pipefail

marker=.managedrecord-postgres-test-server

say() { echo "==> $*" >&2; }
die() { echo "==> ERROR: postgres-test-server: $*" >&2; exit 1; }

# The newest of Debian's /usr/lib/postgresql/VERSION/bin with initdb and pg_ctl, else PATH's.
find_bindir() {
    local dir initdb
    for dir in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return 0
        fi
    done
    initdb=$(command -v initdb || true)
    if [ -n "$initdb" ] && [ -x "$(dirname "$initdb")/pg_ctl" ]; then
        dirname "$initdb"
        return 0
    fi
    return 1
}

find_programs() {
    bindir=$(find_bindir) || die "PostgreSQL is not installed: no initdb and pg_ctl in /usr/lib/postgresql/*/bin or PATH. Install Debian's package: sudo apt-get install -y postgresql"
    if [ -x "$bindir/psql" ]; then
        psql=$bindir/psql
    else
        psql=$(command -v psql) || die "psql not found next to $bindir/initdb or on PATH. Install: sudo apt-get install -y postgresql"
    fi
    # As root, the server's programs run as the postgres user.
    owner=()
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || die "running as root, and there is no postgres user to run the server as (PostgreSQL refuses root). Install Debian's postgresql package, which creates it."
        command -v runuser >/dev/null || die "running as root, and runuser (util-linux) is missing to run the server as the postgres user."
        owner=(runuser -u postgres --)
    fi
}

# A TCP port on 127.0.0.1 that nothing listens on now: bind port 0, read it, close.
free_port() {
    if command -v perl >/dev/null; then
        perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0) or die "$!\n"; print $s->sockport, "\n"'
    else
        echo $((20000 + RANDOM % 40000))  # start retries when it is taken
    fi
}

start() {
    local env_file=${1:-} base folder port version url attempt started=false
    find_programs
    # As root the folder must be reachable by the postgres user: /tmp is, a private TMPDIR may not be.
    if [ ${#owner[@]} -gt 0 ]; then base=/tmp; else base=${TMPDIR:-/tmp}; fi
    folder=$(mktemp -d "$base/managedrecord-postgres-XXXXXXXX")
    touch "$folder/$marker"
    mkdir "$folder/sockets"
    if [ ${#owner[@]} -gt 0 ]; then chown -R postgres: "$folder"; fi
    # initdb and pg_ctl need a working folder their user can read.
    cd "$folder"

    fail() {
        echo "$1" >&2
        local log
        for log in initdb.log pg_ctl.log; do
            if [ -s "$folder/$log" ]; then echo "--- $log:" >&2; cat "$folder/$log" >&2; fi
        done
        if [ -s "$folder/server.log" ]; then echo "--- the end of server.log:" >&2; tail -n 30 "$folder/server.log" >&2; fi
        timeout 60 "${owner[@]}" "$bindir/pg_ctl" stop -D "$folder/data" -m immediate >/dev/null 2>&1 || true
        cd /
        rm -rf "$folder"
        die "the PostgreSQL test server did not start"
    }

    # --no-sync: a throwaway cluster need not be flushed to disk.
    timeout 180 "${owner[@]}" "$bindir/initdb" -D "$folder/data" -A trust -U managedrecord -E UTF8 \
        --locale=C --no-sync >"$folder/initdb.log" 2>&1 || fail "initdb failed"

    for attempt in 1 2 3; do
        port=$(free_port) || fail "could not pick a free port"
        rm -f "$folder/server.log"
        # fsync=off only makes the tests faster: a crash of this machine may lose this
        # throwaway cluster, which nobody needs back. Never use it for data you keep.
        if timeout 120 "${owner[@]}" "$bindir/pg_ctl" start -w -t 90 -D "$folder/data" -l "$folder/server.log" \
            -o "-c listen_addresses=127.0.0.1 -p $port -k '$folder/sockets' -c max_connections=300 -c fsync=off" \
            >"$folder/pg_ctl.log" 2>&1; then
            started=true
            break
        fi
        # Another process may have taken the port between the probe and the server's bind.
        grep -q -e "could not bind" -e "Address already in use" "$folder/server.log" 2>/dev/null || break
        say "port $port was taken (attempt $attempt); trying another"
    done
    $started || fail "pg_ctl start failed"

    url="postgres://managedrecord@127.0.0.1:$port/postgres"
    version=$(PGCONNECT_TIMEOUT=10 timeout 30 "$psql" --no-psqlrc --quiet --no-align --tuples-only \
        --dbname "$url" --command "SHOW server_version" 2>>"$folder/pg_ctl.log") ||
        fail "the server started but psql could not reach it at $url"

    lines=$(printf 'export MANAGEDRECORD_POSTGRES_URL=%q\nexport MANAGEDRECORD_POSTGRES_FOLDER=%q\n' "$url" "$folder")
    if [ -n "$env_file" ]; then echo "$lines" >"$env_file"; fi
    echo "$lines"
    say "PostgreSQL $version started on 127.0.0.1:$port (user managedrecord${owner:+, server running as postgres}; data in $folder)"
}

stop() {
    local folder=${1:-${MANAGEDRECORD_POSTGRES_FOLDER:-}} status=0
    [ -n "$folder" ] || die "stop: which server? Give the folder start printed, or set MANAGEDRECORD_POSTGRES_FOLDER."
    [ -f "$folder/$marker" ] || die "stop: $folder is not a folder this script started a server in (no $marker in it); nothing done."
    find_programs
    cd "$folder"
    if [ -f "$folder/data/postmaster.pid" ]; then
        if ! timeout 90 "${owner[@]}" "$bindir/pg_ctl" stop -D "$folder/data" -m fast -w -t 60 >/dev/null; then
            say "pg_ctl stop -m fast failed; stopping immediately"
            timeout 60 "${owner[@]}" "$bindir/pg_ctl" stop -D "$folder/data" -m immediate -w -t 30 >/dev/null || status=1
        fi
    fi
    cd /
    if [ "$status" -eq 0 ]; then
        rm -rf "$folder"
        say "PostgreSQL test server stopped; $folder removed"
    else
        die "could not stop the PostgreSQL test server in $folder (its postmaster.pid names the process); the folder is kept"
    fi
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) echo "usage: $0 start [ENV_FILE] | stop [FOLDER]" >&2; exit 2 ;;
esac
