#!/usr/bin/env bash
# bench-parse-hostile.sh [RUNS]: peak RSS, output size and time of
# `b2bx parse` on the hostile inputs of issue 7 (item 2-4) next to the
# 16 MiB benchmark ORDERS, as the table in BENCHMARKS.md ("EDIFACT").
#
#   make build
#   EDI_BENCH_FILE=/tmp/o.edi go test ./edi -run TestWriteBenchFile -count=1
#   .ci/scripts/bench-parse-hostile.sh 5
#
# Each case runs RUNS times (default 3): the largest peak RSS and the
# median wall time are shown. The goal column is 3 x input + 64 MB; for
# /dev/zero the input is what was read before it stopped (--max-input,
# default 1 GiB, or Ctrl-C). Environment: B2BX (default bin/b2bx),
# ORDERS (default /tmp/o.edi), LIMIT_KB (a ulimit -v for the runs, to
# measure an old binary safely; default none).
set -euo pipefail

runs=${1:-3}
bin=${B2BX:-bin/b2bx}
orders=${ORDERS:-/tmp/o.edi}
[[ -x $bin ]] || { echo "no $bin: run make build (or set B2BX)" >&2; exit 2; }
[[ -f $orders ]] || { echo "no $orders: EDI_BENCH_FILE=$orders go test ./edi -run TestWriteBenchFile -count=1" >&2; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unb="UNB+UNOC:3+SENDER+RECEIVER+240101:1200+1'"
set +o pipefail # yes and head -c /dev/zero end by SIGPIPE
{ printf '%s' "$unb"; head -c 1048576 /dev/zero | tr '\0' "'"; } >"$dir/quotes.edi"
yes "UNH+1+ORDERS:D:96A:UN'" | head -n 1000000 | tr -d '\n' >"$dir/unh1m.edi"
yes "UNH+1+ORDERS:D:96A:UN'" | head -n 100000 | tr -d '\n' >"$dir/unh100k.edi"
{ printf 'FTX'; head -c 80000 /dev/zero | tr '\0' '+'; printf "'"; } >"$dir/ftx80k.edi"
{ printf 'FTX'; head -c 1000000 /dev/zero | tr '\0' '+'; printf "'"; } >"$dir/ftx1m.edi"
set -o pipefail

# one LABEL INPUT_BYTES TIMEOUT ARGS...: RUNS runs of b2bx parse ARGS.
one() {
	local label=$1 size=$2 tmo=$3; shift 3
	local rss=0 times=() out=0 code=0 r
	for _ in $(seq "$runs"); do
		r=$( { /usr/bin/time -f '%M %e %x' bash -c '[[ -n ${LIMIT_KB:-} ]] && ulimit -v "$LIMIT_KB"; exec timeout -k 10 -s INT "$0" "$@" 2>/dev/null' \
			"$tmo" "$bin" parse "$@" | wc -c; } 2>&1 | tr '\n' ' ') || true # parse exits 1 for a file with errors
		# r: "[Command exited with non-zero status N] RSS_KB SECONDS EXIT OUTPUT_BYTES"
		read -r -a f <<<"$r"
		local n=${#f[@]}
		out=${f[n-1]} code=${f[n-2]} times+=("${f[n-3]}")
		if ((f[n-4] > rss)); then rss=${f[n-4]}; fi
	done
	local med
	med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	local goal=$(( (3 * size + 64000000) / 1000000 ))
	printf '| %-34s | %10s | %7.1f MB | %5d MB | %11s | %6s s | %4s |\n' \
		"$label" "$size" "$(awk -v k="$rss" 'BEGIN {print k/1000}')" "$goal" "$out" "$med" "$code"
}

size() { stat -c %s "$1"; }
echo "| input, command | bytes | peak RSS | goal | output bytes | time | exit |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
one "16 MiB ORDERS" "$(size "$orders")" 60 "$orders"
one "16 MiB ORDERS --json" "$(size "$orders")" 60 --json "$orders"
one "16 MiB ORDERS --segments" "$(size "$orders")" 60 --segments "$orders"
one "UNB + 1 MiB of '" "$(size "$dir/quotes.edi")" 60 "$dir/quotes.edi"
one "UNB + 1 MiB of ' --json" "$(size "$dir/quotes.edi")" 60 --json "$dir/quotes.edi"
one "UNB + 1 MiB of ' --segments" "$(size "$dir/quotes.edi")" 60 --segments "$dir/quotes.edi"
one "10^5 UNH without UNT" "$(size "$dir/unh100k.edi")" 60 "$dir/unh100k.edi"
one "10^5 UNH without UNT --json" "$(size "$dir/unh100k.edi")" 60 --json "$dir/unh100k.edi"
one "10^6 UNH without UNT" "$(size "$dir/unh1m.edi")" 60 "$dir/unh1m.edi"
one "10^6 UNH without UNT --json" "$(size "$dir/unh1m.edi")" 60 --json "$dir/unh1m.edi"
one "FTX + 80,000 '+' --describe" "$(size "$dir/ftx80k.edi")" 60 --describe "$dir/ftx80k.edi"
one "FTX + 10^6 '+' --describe" "$(size "$dir/ftx1m.edi")" 60 --describe "$dir/ftx1m.edi"
one "/dev/zero (stops at --max-input)" 1073741824 60 /dev/zero
one "/dev/zero --max-input 16MiB" 16777216 60 --max-input 16MiB /dev/zero
