#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the tests: what PostgresTestServer
# (Tests/Harnesses/PostgresTestSupport) starts in each test process, started once here for a whole run.
#
#   scripts/postgres-test-server.sh start [--no-tls | --expired-certificate] [ENV_FILE]
#   scripts/postgres-test-server.sh stop [FOLDER]
#
# start: makes a cluster in a new temporary folder (superuser managedrecord, trusted, UTF-8,
# C locale so text sorts by code point as SQLite sorts it), picks a free port on 127.0.0.1 and
# starts the server, as the postgres user when run as root (PostgreSQL refuses root). Prints
#   export MANAGEDRECORD_POSTGRES_URL=postgres://managedrecord@127.0.0.1:PORT/postgres
#   export MANAGEDRECORD_POSTGRES_FOLDER=/tmp/managedrecord-postgres-XXXXXXXX
#   export MANAGEDRECORD_POSTGRES_TLS_FOLDER=/tmp/managedrecord-postgres-XXXXXXXX/tls
# on standard output (`eval "$(scripts/postgres-test-server.sh start)"`), and writes them to
# ENV_FILE if given; what it started goes to standard error.
#
# The server accepts TLS (ssl=on) as well as plain connections. For each run, openssl makes in
# the TLS folder (the TLS tests read it, Tests/ObjectGraphPostgresTests/Security):
#   ca.crt             a self-signed certificate authority (ca.key signs the others)
#   server.crt/.key    the server's certificate, for localhost and 127.0.0.1 only (the server
#                      also listens on 127.0.0.2, a name the certificate does not hold)
#   expired-server.crt the same, valid only in 2020 (key server.key)
#   client.crt/.key    a client certificate for the role tlsclient, which logs in by certificate
#   expired-client.crt a client certificate for tlsclient that expired in 2020 (key client.key)
#   other-ca.crt       an authority that signed nothing here
#   expired-ca.crt     the authority of ca.crt (same name and key) valid only in 2020
#   password           the password of the role tlspassword (scram-sha-256 over TCP)
# With --no-tls the server has ssl=off (for the test of a client that requires TLS) and no
# MANAGEDRECORD_POSTGRES_TLS_FOLDER is printed; with --expired-certificate it presents
# expired-server.crt (for the test of a client that must refuse it).
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
# The run's certificates in FOLDER (see the header), made with openssl.
make_certificates() {
    local tls=$1 days=30
    command -v openssl >/dev/null || die "openssl is needed to make the test server's certificates. Install it: sudo apt-get install -y openssl"
    mkdir -p "$tls/ca-db"
    (
        cd "$tls"
        : >ca-db/index.txt
        echo 1000 >ca-db/serial
        # `openssl ca` sets any validity period, including one that has ended.
        cat >ca.cnf <<'CONFIG'
[ ca ]
default_ca = test_ca
[ test_ca ]
dir = .
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = copy
[ anything ]
commonName = supplied
organizationName = optional
[ authority ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ server ]
basicConstraints = CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
[ client ]
basicConstraints = CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
CONFIG
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; chmod 600 "$1"; }
        request() { openssl req -new -key "$1" -subj "$2" -out "$3"; }
        # sign CSR OUT EXTENSIONS [ -days N | -startdate D -enddate D ] [ -selfsign -keyfile K | -cert C -keyfile K ]
        sign() {
            local csr=$1 out=$2 extensions=$3
            shift 3
            openssl ca -batch -notext -config ca.cnf -extensions "$extensions" -in "$csr" -out "$out" "$@" 2>/dev/null
        }
        key ca.key
        request ca.key "/O=ManagedRecord tests/CN=ManagedRecord test authority $$" ca.csr
        sign ca.csr ca.crt authority -days "$days" -selfsign -keyfile ca.key
        sign ca.csr expired-ca.crt authority -startdate 20200101000000Z -enddate 20200102000000Z -selfsign -keyfile ca.key
        key other-ca.key
        request other-ca.key "/O=ManagedRecord tests/CN=Another authority $$" other-ca.csr
        sign other-ca.csr other-ca.crt authority -days "$days" -selfsign -keyfile other-ca.key
        key server.key
        request server.key "/O=ManagedRecord tests/CN=localhost" server.csr
        sign server.csr server.crt server -days "$days" -cert ca.crt -keyfile ca.key
        sign server.csr expired-server.crt server -startdate 20200101000000Z -enddate 20200102000000Z -cert ca.crt -keyfile ca.key
        key client.key
        request client.key "/O=ManagedRecord tests/CN=tlsclient" client.csr
        sign client.csr client.crt client -days "$days" -cert ca.crt -keyfile ca.key
        sign client.csr expired-client.crt client -startdate 20200101000000Z -enddate 20200102000000Z -cert ca.crt -keyfile ca.key
        openssl rand -hex 16 >password
        chmod 600 password
        rm -f ./*.csr
    ) || return 1
    # The subshell runs under `||`, where errexit is off: check that everything was made.
    local file
    for file in ca.crt expired-ca.crt other-ca.crt server.crt expired-server.crt server.key client.crt client.key expired-client.crt password; do
        [ -s "$tls/$file" ] || { echo "openssl did not make $tls/$file" >&2; return 1; }
    done
    # The server reads its key, certificate and the authority as the postgres user, and refuses
    # a key others may read.
    if [ ${#owner[@]} -gt 0 ]; then chown postgres: "$tls/server.key" "$tls/server.crt" "$tls/expired-server.crt" "$tls/ca.crt"; fi
}

free_port() {
    if command -v perl >/dev/null; then
        perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0) or die "$!\n"; print $s->sockport, "\n"'
    else
        echo $((20000 + RANDOM % 40000))  # start retries when it is taken
    fi
}

start() {
    local tls=true certificate=server.crt
    case "${1:-}" in
        --no-tls) tls=false; shift ;;
        --expired-certificate) certificate=expired-server.crt; shift ;;
    esac
    local env_file=${1:-} base folder port version url attempt started=false ssl_options=""
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

    make_certificates "$folder/tls" >"$folder/openssl.log" 2>&1 || { cat "$folder/openssl.log" >&2; fail "openssl could not make the certificates"; }
    # Who logs in how: tlsclient only by a certificate over TLS, tlspassword by its password,
    # everyone else trusted (TLS or not). The first line that fits a connection decides.
    cat >"$folder/pg_hba.conf" <<'HBA'
local all all trust
hostssl all tlsclient 127.0.0.0/8 cert
host all tlsclient 127.0.0.0/8 reject
host all tlspassword 127.0.0.0/8 scram-sha-256
host all all 127.0.0.0/8 trust
host all all ::1/128 trust
HBA
    if [ ${#owner[@]} -gt 0 ]; then chown postgres: "$folder/pg_hba.conf"; fi
    if $tls; then
        ssl_options="-c ssl=on -c ssl_cert_file='$folder/tls/$certificate' -c ssl_key_file='$folder/tls/server.key' -c ssl_ca_file='$folder/tls/ca.crt'"
    fi

    for attempt in 1 2 3; do
        port=$(free_port) || fail "could not pick a free port"
        rm -f "$folder/server.log"
        # fsync=off only makes the tests faster: a crash of this machine may lose this
        # throwaway cluster, which nobody needs back. Never use it for data you keep.
        if timeout 120 "${owner[@]}" "$bindir/pg_ctl" start -w -t 90 -D "$folder/data" -l "$folder/server.log" \
            -o "-c listen_addresses=127.0.0.1,127.0.0.2 -p $port -k '$folder/sockets' -c fsync=off -c hba_file='$folder/pg_hba.conf' $ssl_options" \
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

    PGCONNECT_TIMEOUT=10 timeout 30 "$psql" --no-psqlrc --quiet --dbname "$url" --set ON_ERROR_STOP=1 \
        --command "CREATE ROLE tlsclient LOGIN" \
        --command "SET password_encryption = 'scram-sha-256'" \
        --command "CREATE ROLE tlspassword LOGIN PASSWORD '$(cat "$folder/tls/password")'" \
        >>"$folder/pg_ctl.log" 2>&1 || fail "could not create the TLS tests' roles"

    lines=$(printf 'export MANAGEDRECORD_POSTGRES_URL=%q\nexport MANAGEDRECORD_POSTGRES_FOLDER=%q\n' "$url" "$folder")
    if $tls; then lines+=$(printf '\nexport MANAGEDRECORD_POSTGRES_TLS_FOLDER=%q\n' "$folder/tls"); fi
    if [ -n "$env_file" ]; then echo "$lines" >"$env_file"; fi
    echo "$lines"
    say "PostgreSQL $version started on 127.0.0.1:$port $($tls && echo "with TLS (certificates in $folder/tls; " || echo "without TLS (")user managedrecord${owner:+, server running as postgres}; data in $folder)"
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
    *) echo "usage: $0 start [--no-tls] [ENV_FILE] | stop [FOLDER]" >&2; exit 2 ;;
esac
