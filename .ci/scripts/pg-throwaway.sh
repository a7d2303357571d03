#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 (Debian's binaries in
# /usr/lib/postgresql/15/bin, installed when missing) in a temporary
# directory on a free loopback port, and stops it and removes the
# directory on exit.
#
#   .ci/scripts/pg-throwaway.sh COMMAND ARGS…   runs COMMAND with
#       B2BX_TEST_POSTGRES set to the server's DSN, then stops it
#   source .ci/scripts/pg-throwaway.sh          (bash) starts it for the
#       calling shell: B2BX_TEST_POSTGRES is exported, and the server
#       stops when that shell exits (an EXIT trap)
#
# The server trusts loopback connections (a test cluster: nothing else
# can reach it) and is run as the postgres user when started as root.
set -euo pipefail

pg_bin=/usr/lib/postgresql/15/bin
if [ ! -x "$pg_bin/initdb" ]; then
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends postgresql-15 || \
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends postgresql
fi

as_pg=()
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
	as_pg=(runuser -u postgres --)
fi

pg_tmp=$(mktemp -d "${TMPDIR:-/tmp}/b2bx-pg.XXXXXX")
chmod 755 "$pg_tmp"
[ ${#as_pg[@]} -eq 0 ] || chown postgres "$pg_tmp"

# a free loopback port: the kernel picks one, we give it back and use it
pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

pg_stop() {
	"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_tmp/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	rm -rf "$pg_tmp"
}
trap pg_stop EXIT

"${as_pg[@]}" "$pg_bin/initdb" -D "$pg_tmp/data" -U postgres --auth=trust --no-sync -E UTF8 >"$pg_tmp/initdb.log" 2>&1 || {
	cat "$pg_tmp/initdb.log" >&2
	exit 1
}
# loopback only, no Unix socket outside the temp dir; fsync off: a test
# cluster that dies with the run
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/server.log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$pg_tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
	start >/dev/null || {
	cat "$pg_tmp/server.log" >&2
	exit 1
}

export B2BX_TEST_POSTGRES="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"
echo "pg-throwaway: PostgreSQL 15 on 127.0.0.1:$pg_port (data in $pg_tmp), B2BX_TEST_POSTGRES=$B2BX_TEST_POSTGRES" >&2

if [ $# -gt 0 ]; then
	"$@"
fi
