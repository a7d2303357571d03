#!/usr/bin/env bash
# The webhook receiver's load goals from issue 17, on loopback: 100
# events/s for DURATION (default 60s) with every ACKed event checked in
# the capture directory, then 1,000 events/s offered for half of it,
# every delivery answered ACK or NB-E012 (none dropped); then the p50/p99
# latency per delivery at 100/s (BenchmarkDeliveryAt100PerSecond). The
# numbers go into BENCHMARKS.md. Bounded: the run stops by itself.
#
#   .ci/scripts/bench-webhook.sh [DURATION] [DELIVERIES]
set -euo pipefail
dur=${1:-60s}
n=${2:-3000}
cd "$(dirname "$0")/.."
B2BX_WEBHOOK_LOAD=$dur go test ./events/webhook -count=1 -run '^TestLoadShort$' -v -timeout 30m | grep -E 'reliability_test|^(ok|FAIL|---)'
go test ./events/webhook -run XXX -bench BenchmarkDeliveryAt100PerSecond -benchtime "${n}x" | grep -E 'Benchmark|^(ok|FAIL)'
