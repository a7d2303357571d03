#!/usr/bin/env bash
# The webhook receiver's load goals (issues 17 and 24), on loopback:
#  1. 100 events/s for DURATION (default 60s) with every ACKed event
#     checked in the capture directory, then 1,000 events/s offered for
#     half of it, every delivery answered ACK or NB-E012 (none dropped);
#  2. p50/p99 latency per delivery at 100/s (BenchmarkDeliveryAt100PerSecond);
#  3. throughput of event listen's handler against a reference receiver
#     (same HMAC, temp file + fsync + rename + directory fsync per
#     delivery) in the same run (BenchmarkThroughputVsReference);
#  4. state lookups with KEYS idempotency keys stored (default 1,000,000;
#     BenchmarkStateLookup).
# The numbers go into BENCHMARKS.md. Bounded: the run stops by itself.
#
#   .ci/scripts/bench-webhook.sh [DURATION] [DELIVERIES] [KEYS]
set -euo pipefail
dur=${1:-60s}
n=${2:-3000}
keys=${3:-1000000}
cd "$(dirname "$0")/../.."
pkg=./apiclient/events/webhook
B2BX_WEBHOOK_LOAD=$dur go test $pkg -count=1 -run '^TestLoadShort$' -v -timeout 30m | grep -E 'reliability_test|^(ok|FAIL|---)'
go test $pkg -run XXX -bench BenchmarkDeliveryAt100PerSecond -benchtime "${n}x" | grep -E 'Benchmark|^(ok|FAIL)'
go test $pkg -run XXX -bench BenchmarkThroughputVsReference -benchtime "${n}x" -count 3 | grep -E 'Benchmark|^(ok|FAIL)'
B2BX_BENCH_KEYS=$keys go test $pkg -run XXX -bench BenchmarkStateLookup -benchtime 20000x -timeout 60m | grep -E 'Benchmark|^(ok|FAIL)'
