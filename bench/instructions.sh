#!/usr/bin/env bash
# Instruction counts (valgrind cachegrind, Ir) of the intake paths on a fixed
# stream; see bench/instructions.ts. Prints per-order counts net of start-up.
# Usage: bash bench/instructions.sh [orders]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-20000}"
ir() { # path orders -> total Ir of the node process
  local out; out=$(mktemp)
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    node --single-threaded --hash-seed=1 --random-seed=1 --import tsx bench/instructions.ts --path "$1" --orders "$2" 2>"$out" >"$out.stdout"
  grep -o 'I *refs: *[0-9,]*' "$out" | tr -d ', ' | cut -d: -f2
  grep -o 'log hash.*' "$out.stdout" >&2 || true
  rm -f "$out" "$out.stdout"
}
base=$(ir e2e 0)
book=$(ir book "$N"); bookBase=$(ir book 0)
e2e=$(ir e2e "$N"); val=$(ir validate "$N"); place=$(ir place "$N")
per() { echo "scale=0; ($1) / $N" | bc; }
echo "orders: $N"
echo "nodejs-order-book Ir/order: $(per "$book - $bookBase")"
echo "engine placeOrder (e2e) Ir/order: $(per "$e2e - $base")"
echo "engine validateOrder Ir/order: $(per "$val - $base")"
echo "engine placeParsed Ir/order: $(per "$place - $val")"
