#!/usr/bin/env bash
# Scan the module with govulncheck against the offline snapshot of the Go
# vulnerability database in ../shared/vulndb (the newest govulndb-*.tgz).
# Prints the snapshot date next to the result: a clean scan means "no known
# vulnerability as of that date", nothing more.
#
# Without the snapshot it skips, unless B2BX_REQUIRE_SHARED=1 (CI), where a
# missing snapshot fails the run.
set -euo pipefail
cd "$(dirname "$0")/../.."  # the repository root (this script is .ci/scripts/vulncheck.sh)
dir=${B2BX_VULNDB_DIR:-../shared/vulndb}
GOVULNCHECK=${GOVULNCHECK:-govulncheck}

snap=$(ls -1 "$dir"/govulndb-*.tgz 2>/dev/null | sort | tail -n 1 || true)
if [ -z "$snap" ]; then
	if [ "${B2BX_REQUIRE_SHARED:-}" = 1 ]; then
		echo "vulncheck: no govulndb-*.tgz in $dir (B2BX_REQUIRE_SHARED=1)" >&2
		exit 1
	fi
	echo "vulncheck: skipped: no offline vulnerability database in $dir"
	exit 0
fi
date=$(basename "$snap" .tgz)
date=${date#govulndb-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$snap" -C "$tmp"
db=$(dirname "$(find "$tmp" -path '*/index/db.json' -print -quit)")
db=$(dirname "$db")
[ -f "$db/index/db.json" ] || { echo "vulncheck: $snap has no index/db.json" >&2; exit 1; }

echo "vulncheck: $($GOVULNCHECK -version 2>/dev/null | grep -m1 '^Scanner:' || echo govulncheck), $(go version | cut -d' ' -f3), database snapshot $date"
if $GOVULNCHECK -db "file://$db" ./...; then
	echo "vulncheck: no known vulnerabilities as of $date (offline Go vulnerability database snapshot)"
else
	rc=$?
	echo "vulncheck: FAILED (exit $rc) against the database snapshot of $date" >&2
	exit "$rc"
fi
