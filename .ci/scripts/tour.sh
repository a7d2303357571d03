#!/usr/bin/env bash
# The b2bx CLI tour (`make tour`): what a support engineer does with a
# partner's mailbox from the command line, run against the built-in Partner
# API simulator. (`make demo` opens the app instead: b2bx demo.)
#
#   make tour                     # builds bin/b2bx, then runs this script
#   TOUR_PAUSE=1 make tour        # wait for Enter between steps (live demos)
#   B2BX=/path/to/b2bx .ci/scripts/tour.sh
#
# Everything happens in a temporary directory that is removed on exit: the
# simulator's credentials, the downloaded files, the upload history. The
# user's own profiles and OS keyring are never touched: the connection is
# given with --url/--connection and the key through $B2BX_API_KEY, and the
# D-Bus session bus is disabled for every b2bx process.
#
# Needs only bash and the usual coreutils/sed/awk/grep (no jq). Exits 0 when
# every step showed what it should, 1 otherwise (so CI can run it too).
set -euo pipefail

cd "$(dirname "$0")/../.."  # the repository root (this script is .ci/scripts/tour.sh)
B2BX="${B2BX:-bin/b2bx}"
case "$B2BX" in */*) B2BX="$(cd "$(dirname "$B2BX")" && pwd)/$(basename "$B2BX")" ;; esac
if [ ! -x "$B2BX" ]; then
	echo "tour: $B2BX not found or not executable; run 'make tour' (it builds bin/b2bx first) or set B2BX=/path/to/b2bx" >&2
	exit 2
fi
ORDERS_FILE="testdata/edifact/orders_d96a.edi"
REPLY_WAIT="${TOUR_REPLY_WAIT:-${DEMO_REPLY_WAIT:-30}}" # seconds to wait for the partner's answers
TOUR_PAUSE="${TOUR_PAUSE:-${DEMO_PAUSE:-}}"                 # DEMO_*: the names from before the app

tmp="$(mktemp -d "${TMPDIR:-/tmp}/b2bx-tour.XXXXXX")"
sim_pid=
cleanup() {
	if [ -n "$sim_pid" ]; then
		kill "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A private world for every b2bx process of the tour.
export B2BX_DATA_DIR="$tmp/data" B2BX_CONFIG="$tmp/config/profiles.toml"
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/share"
export DBUS_SESSION_BUS_ADDRESS="disabled:"
unset B2BX_API_KEY B2BX_LOG

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'
else
	bold= dim= off=
fi
step_no=0
# step prints the one-line heading of what the next step shows.
step() {
	step_no=$((step_no + 1))
	if [ "$TOUR_PAUSE" = 1 ] && [ "$step_no" -gt 1 ] && { : </dev/tty; } 2>/dev/null; then
		printf '%s(Enter for the next step)%s' "$dim" "$off"
		read -r _ </dev/tty || true
	fi
	printf '\n%s== %d. %s%s\n' "$bold" "$step_no" "$*" "$off"
}
note() { printf '%s   %s%s\n' "$dim" "$*" "$off"; }
die() {
	printf 'tour: %s\n' "$*" >&2
	exit 1
}
# b2bx shows the command (the connection flags abbreviated as $CONN), runs
# it with stdout also captured in $tmp/out, and sets rc to its exit code.
rc=0
b2bx() {
	local shown="$*"
	if [ -n "${conn_flags:-}" ]; then
		shown="${shown//"$conn_flags"/\$CONN}"
	fi
	printf '%s$ b2bx %s%s\n' "$dim" "$shown" "$off"
	set +e
	"$B2BX" "$@" | tee "$tmp/out"
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" != 0 ]; then
		note "(exit code $rc)"
	fi
}

# --- the simulator ------------------------------------------------------------
step "Start the Partner API simulator: a demo partner with two connections, throwaway keys"
"$B2BX" sim --seed demo --json --reply-delay 2s >"$tmp/sim.json" 2>"$tmp/sim.log" &
sim_pid=$!
for _ in $(seq 1 100); do
	[ -n "$(sed -n 2p "$tmp/sim.json")" ] && break
	kill -0 "$sim_pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$(sed -n 2p "$tmp/sim.json")" ] || die "the simulator did not start; its log: $(tail -5 "$tmp/sim.log")"

# The first line is {"baseURL":"…","connections":[{"name","connectionId",
# "keyId","secret","scopes"},…]}: take the first connection's object (its
# only nested value, scopes, holds no braces) and read each field from it.
json_field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p"; }
first=$(sed -n '1s/.*"connections":\[{\([^}]*\)}.*/\1/p' "$tmp/sim.json")
base_url=$(json_field "$(sed -n 1p "$tmp/sim.json")" baseURL)
conn_name=$(json_field "$first" name)
conn_id=$(json_field "$first" connectionId)
key_id=$(json_field "$first" keyId)
key_secret=$(json_field "$first" secret)
# The second line names the faulty entries: [{"connectionId","deliveryAttemptId","what"},…].
faulty=$(sed -n '2s/.*"faulty":\[{\([^}]*\)}.*/\1/p' "$tmp/sim.json")
faulty_id=$(json_field "$faulty" deliveryAttemptId)
faulty_what=$(json_field "$faulty" what)
large_id=$(json_field "$(sed -n '2s/.*"large":{\([^}]*\)}.*/\1/p' "$tmp/sim.json")" deliveryAttemptId)
for v in base_url conn_name conn_id key_id key_secret faulty_id large_id; do
	[ -n "${!v}" ] || die "could not read $v from the simulator's JSON lines (did 'b2bx sim --json' change its output?)"
done
case "$base_url" in http://127.0.0.1:*) ;; *) die "unexpected simulator URL: $base_url" ;; esac
export B2BX_API_KEY="$key_id:$key_secret"
unset key_secret
conn_flags="--url $base_url --connection $conn_id"
# shellcheck disable=SC2206 # URL and UUID hold no spaces or globs
conn=($conn_flags)
entries=$(sed -n '2s/.*"entries":\([0-9]*\).*/\1/p' "$tmp/sim.json")
note "listening on $base_url; connection $conn_name = $conn_id; ${entries:-?} deliveries in the demo seed"
note "CONN=\"$conn_flags\""
note "B2BX_API_KEY=$key_id:<the simulator's secret>  (never printed, never stored)"

# --- the mailbox -------------------------------------------------------------
step "What is due in $conn_name's mailbox? (the first 8 of many)"
b2bx mailbox ls "${conn[@]}" --limit 8
[ "$rc" = 0 ] || die "mailbox ls failed"

step "Fetch the next delivery: claim, download, check size + SHA-256 + trailer, store durably, acknowledge"
b2bx fetch "${conn[@]}" --next --ack
[ "$rc" = 0 ] || die "fetch --next --ack failed"
stored=$(sed -n 's/^stored  *//p' "$tmp/out" | head -1)
[ -f "$stored" ] || die "fetch did not name the stored file"

step "Show the stored EDIFACT: envelope, message, summary, issues"
b2bx parse "$stored"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || die "parse failed"

step "A faulty delivery ($faulty_what): nothing is acknowledged, exit code 4"
b2bx fetch "${conn[@]}" "$faulty_id" --ack
[ "$rc" = 4 ] || die "the faulty delivery gave exit code $rc, want 4"
note "the simulator's request log for this delivery (claim and payload, no acknowledge):"
grep -F "$faulty_id" "$tmp/sim.log" | sed -n 's/.*method=\([A-Z]*\) path=.*\/\([a-z]*\) status=\([0-9]*\).*/     \1 \2 -> \3/p'
if grep -F "$faulty_id" "$tmp/sim.log" | grep -q '/acknowledge '; then
	die "the faulty delivery was acknowledged"
fi
note "the lease stays with us for 5 minutes, then the delivery is due again for another try"

step "The 15 MiB ORDRSP: the same checks at speed (progress on stderr when it is a terminal)"
b2bx fetch "${conn[@]}" "$large_id" --ack
[ "$rc" = 0 ] || die "fetch of the large delivery failed"

# --- upload and the partner's answer -----------------------------------------
# mailbox_ids prints "ID TYPE" for every due entry, from the --json listing.
mailbox_ids() {
	"$B2BX" mailbox ls "${conn[@]}" --all --json | tr ',{' '\n\n' |
		awk -F'"' '$2 == "deliveryAttemptId" { id = $4 } $2 == "messageType" { print id, $4 }'
}
mailbox_ids >"$tmp/before" || die "mailbox ls --all --json failed"

step "Upload an ORDERS: pre-flight with edi, the idempotency key is shown before sending"
b2bx upload "${conn[@]}" "$ORDERS_FILE"
[ "$rc" = 0 ] || die "upload failed"

step "The same bytes again: an explicit choice, here --replay (same key, the server answers replay)"
note "(on a terminal without --replay/--new, b2bx asks: Replay, new, or abort? [r/n/N])"
b2bx upload "${conn[@]}" "$ORDERS_FILE" --replay
[ "$rc" = 0 ] || die "upload --replay failed"

step "Wait for the partner's answer in the mailbox: a CONTRL and, for an accepted order, an ORDRSP"
answers=
for _ in $(seq 1 $((REPLY_WAIT * 2))); do
	mailbox_ids >"$tmp/after" || die "mailbox ls --all --json failed"
	answers=$(grep -vxF -f "$tmp/before" "$tmp/after" || true)
	if grep -q ' CONTRL$' <<<"$answers" && grep -q ' ORDRSP$' <<<"$answers"; then
		break
	fi
	sleep 0.5
done
grep -q ' CONTRL$' <<<"$answers" && grep -q ' ORDRSP$' <<<"$answers" ||
	die "no CONTRL+ORDRSP answer appeared within ${REPLY_WAIT}s (new entries: ${answers:-none})"
while read -r id type; do
	note "new: $id  $type"
done <<<"$answers"

step "Fetch and acknowledge the answers, then read them"
while read -r id type; do
	b2bx fetch "${conn[@]}" "$id" --ack
	[ "$rc" = 0 ] || die "fetch of the $type answer failed"
	stored=$(sed -n 's/^stored  *//p' "$tmp/out" | head -1)
	b2bx parse "$stored"
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || die "parse of the $type answer failed"
done <<<"$answers"

printf '\n%sDone.%s The simulator stops and the temporary directory is removed now.\n' "$bold" "$off"
printf 'The same in the app, with every check live on screen: make demo (b2bx demo).\n'
