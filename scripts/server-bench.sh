#!/usr/bin/env bash
# ABAB comparison of two ternd builds with tern-bench (docs/benchmarks.md, "ternd at line rate").
#
#   scripts/server-bench.sh BASE_TERND NEW_TERND [OUT_DIR]
#
# Runs each point of the matrix below as A B A B (this VM is noisy: interleaving keeps drift out of
# the comparison), server pinned to CPU 0 and the bench to CPU 1, and writes every full report to
# OUT_DIR (default /tmp/tern-server-bench) plus a summary (summary.txt) of the lines that matter.
# Needs: swift build -c release --product tern-bench (the bench is .build/release/tern-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: scripts/server-bench.sh BASE_TERND NEW_TERND [OUT_DIR]}
NEW=${2:?usage: scripts/server-bench.sh BASE_TERND NEW_TERND [OUT_DIR]}
OUT=${3:-/tmp/tern-server-bench}
BENCH=.build/release/tern-bench
mkdir -p "$OUT"
: > "$OUT/summary.txt"

run() { # name build-label ternd args...
    local name=$1 label=$2 ternd=$3
    shift 3
    local log="$OUT/$name-$label-$(date +%H%M%S).txt"
    echo "== $name [$label] $*" | tee -a "$OUT/summary.txt"
    taskset -c 1 "$BENCH" --spawn "$ternd" --server-cpu 0 "$@" > "$log" 2>&1 || true
    # The measured latency line, throughput, CPU, ramp and REST lines, the verdict.
    awk '/^latency, scheduled/ {getline; print "  latency " $0; next}
         /^ack latency/ {getline; print "  ack " $0; next}
         /^  GET / {print "  " $0; getline; print "  " $0; next}
         /done during|server CPU|client CPU|memory per idle|ramp: .* requested|RESULT/ {print "  " $0}' "$log" \
        | tee -a "$OUT/summary.txt"
}

abab() { # name args...
    local name=$1
    shift
    run "$name" A "$BASE" "$@"
    run "$name" B "$NEW" "$@"
    run "$name" A "$BASE" "$@"
    run "$name" B "$NEW" "$@"
}

# BRIEF §6 headline: 100 members, 1,000 msg/s (99,000 deliveries/s), durable SQLite.
abab headline --members 100 --rate 1000 --duration 10
# Below saturation: latency and CPU per delivery at 100 msg/s, with the REST listing/history probe.
abab r100 --members 100 --rate 100 --duration 10 --rest-probe 50
# Fixed cost per message: a 2-member channel.
abab fixed --members 2 --rate 200 --duration 10
# A 1,000-participant open channel, 200 msg/s offered (199,800 deliveries/s).
abab open1000 --channel-type open --members 1000 --rate 200 --duration 10
# Idle connections: memory per connection, and a 100-member channel at 100 msg/s beside them.
run ramp A "$BASE" --members 100 --rate 100 --duration 10 --ramp 4000
run ramp B "$NEW" --members 100 --rate 100 --duration 10 --ramp 4000
run ramp19k B "$NEW" --members 100 --rate 100 --duration 10 --ramp 19000
echo "reports in $OUT; summary: $OUT/summary.txt"
