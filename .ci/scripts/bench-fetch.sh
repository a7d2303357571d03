#!/usr/bin/env bash
# Whole-command benchmark from issue 3: `b2bx fetch` of the simulator's
# 15 MiB ORDRSP (claim, download with all checks, durable store) against
# doing it by hand: `curl -o FILE` and then `sha256sum FILE` (the claim is
# made in hyperfine's prepare step, so the by-hand side is not charged for it).
#
# Each timed run needs a fresh delivery (a fetched one is claimed), so one
# `b2bx sim --large N` holds N copies of the 15 MiB entry sharing one buffer,
# and every run takes the next one. Needs hyperfine, curl and jq.
#
#   make build && .ci/scripts/bench-fetch.sh [RUNS]
set -euo pipefail
runs=${1:-30}
b2bx=${B2BX:-bin/b2bx}
# Without hyperfine (or with BENCH_INTERLEAVED=1) the two sides run in
# interleaved rounds timed here (medians and the median of the per-round
# ratios): on a loaded machine that pairs each b2bx run with a by-hand run
# taken under the same load.
interleaved=${BENCH_INTERLEAVED:-}
command -v hyperfine >/dev/null || interleaved=1
need="curl jq $b2bx"
[ -n "$interleaved" ] || need="hyperfine $need"
for t in $need; do
	command -v "$t" >/dev/null || { echo "bench-fetch: $t not found (apt-get install -y hyperfine curl jq; make build)" >&2; exit 2; }
done
b2bx=$(cd "$(dirname "$b2bx")" && pwd)/$(basename "$b2bx")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/b2bx-bench.XXXXXX")
sim=
cleanup() { [ -n "$sim" ] && kill "$sim" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

copies=$((2 * (runs + 5) + 4))
"$b2bx" sim --seed demo --large "$copies" --json >"$tmp/sim.json" 2>/dev/null &
sim=$!
for _ in $(seq 200); do [ "$(wc -l <"$tmp/sim.json")" -ge 2 ] && break; sleep 0.05; done
l1=$(sed -n 1p "$tmp/sim.json")
l2=$(sed -n 2p "$tmp/sim.json")
conn=$(jq -r .large.connectionId <<<"$l2")
jq -r --arg c "$conn" '.largeAll[] | select(.connectionId == $c) | .deliveryAttemptId' <<<"$l2" >"$tmp/ids"
cat >"$tmp/env" <<EOT
url=$(jq -r .baseURL <<<"$l1")
conn=$conn
key=$(jq -r --arg c "$conn" '.connections[] | select(.connectionId == $c) | .keyId + ":" + .secret' <<<"$l1")
b2bx=$b2bx
dir=$tmp
EOT
echo 1 >"$tmp/next"

# next.sh: take the next unused 15 MiB delivery; with "claim", also claim it
# (for the by-hand side) and remember the token.
cat >"$tmp/next.sh" <<'EOT'
. "$(dirname "$0")/env"
n=$(cat "$dir/next"); echo $((n + 1)) >"$dir/next"
id=$(sed -n "${n}p" "$dir/ids")
rm -rf "$dir/data" "$dir/payload.edi"
echo "id=$id" >"$dir/cur"
if [ "${1:-}" = claim ]; then
	tok=$(curl -sf -X POST -H "Authorization: Bearer $key" "$url/api/v1/b2b-exchange/partner/connections/$conn/mailbox/$id/claim" | jq -r .claimToken)
	echo "tok=$tok" >>"$dir/cur"
fi
EOT
cat >"$tmp/fetch.sh" <<'EOT'
. "$(dirname "$0")/env"; . "$dir/cur"
B2BX_API_KEY=$key B2BX_DATA_DIR=$dir/data exec "$b2bx" fetch "$id" --url "$url" --connection "$conn" >/dev/null
EOT
cat >"$tmp/byhand.sh" <<'EOT'
. "$(dirname "$0")/env"; . "$dir/cur"
curl -sf -o "$dir/payload.edi" -H "Authorization: Bearer $key" -H "X-B2B-Claim-Token: $tok" \
	"$url/api/v1/b2b-exchange/partner/connections/$conn/mailbox/$id/payload" && sha256sum "$dir/payload.edi" >/dev/null
EOT
if [ -n "$interleaved" ]; then
	ms() { local t0 t1; t0=$(date +%s%N); bash "$@" || return 1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
	bash "$tmp/next.sh"; bash "$tmp/fetch.sh" # one warm-up each
	bash "$tmp/next.sh" claim; bash "$tmp/byhand.sh"
	: >"$tmp/rounds"
	for _ in $(seq "$runs"); do
		bash "$tmp/next.sh"; f=$(ms "$tmp/fetch.sh")
		bash "$tmp/next.sh" claim; h=$(ms "$tmp/byhand.sh")
		echo "$f $h" >>"$tmp/rounds"
	done
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
	python3 - "$tmp/rounds" <<'EOP'
import statistics, sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
f = [r[0] for r in rows]; h = [r[1] for r in rows]
print(f"b2bx fetch: median {statistics.median(f)} ms (min {min(f)}); curl -o + sha256sum: median {statistics.median(h)} ms (min {min(h)})")
print(f"ratio: median of per-round ratios {statistics.median(a / b for a, b in rows):.2f}, min/min {min(f) / min(h):.2f} ({len(rows)} interleaved rounds)")
EOP
	exit 0
fi
hyperfine -w 3 -r "$runs" \
	-n 'b2bx fetch (claim, download, 5 checks, fsync store)' --prepare "bash $tmp/next.sh" "bash $tmp/fetch.sh" \
	-n 'curl -o FILE && sha256sum FILE (claim not timed)' --prepare "bash $tmp/next.sh claim" "bash $tmp/byhand.sh"
