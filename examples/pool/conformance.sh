#!/usr/bin/env bash
# The conformance kit against pool instances: one `fakex serve --pool`, then N ids at
# once, each funded through its own control API and checked by `fakex conformance`
# (write set included) at its own base URL. Exit 0 when every id passed.
#
#   examples/pool/conformance.sh            # 16 ids
#   IDS=4 examples/pool/conformance.sh
#
# Against a server you already run: replace {id} in its info JSON's base_url_template.
set -euo pipefail
cd "$(dirname "$0")/../.."
IDS="${IDS:-16}"
work="$(mktemp -d)"
info="$work/fakex.json"

node bin/fakex.js serve --pool --pool-size "$IDS" --info-file "$info" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 240); do [ -s "$info" ] && break; sleep 0.25; done
[ -s "$info" ] || { cat "$work/serve.log"; exit 1; }

base_tpl="$(jq -r .pool.base_url_template "$info")"
control_tpl="$(jq -r .pool.control_url_template "$info")"
address="$(jq -r '.accounts[0].address' "$info")"
key="$(jq -r '.accounts[0].private_key' "$info")"

run_one() {
  local id="w$1"
  curl -fsS -X POST -H 'content-type: application/json' \
    -d "{\"address\":\"$address\",\"token\":\"EURC\",\"amount\":\"100000000\",\"vault\":true}" \
    "${control_tpl//\{id\}/$id}/fund" >/dev/null
  node bin/fakex.js conformance --base-url "${base_tpl//\{id\}/$id}" --private-key "$key" >"$work/$id.txt" 2>&1
}

start=$(date +%s.%N)
pids=()
for i in $(seq 0 $((IDS - 1))); do run_one "$i" & pids+=($!); done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then failed=$((failed + 1)); echo "w$i failed:"; cat "$work/w$i.txt"; fi
done
end=$(date +%s.%N)
echo "fakex conformance on $IDS pool ids at once: $((IDS - failed))/$IDS passed ($(tail -n 1 "$work/w0.txt") on w0), $(echo "$end - $start" | bc) s"
[ "$failed" -eq 0 ]
