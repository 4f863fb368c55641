#!/usr/bin/env bash
# A member that stops answering: after the unhealthy grace its share of the federated HPA moves
# to the live members; when it comes back the partition includes it again. Every component is
# its own process here, as in production. Usage: member_outage.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

PIDS=()
trap 'kill -9 "${PIDS[@]}" 2>/dev/null; cleanup' EXIT
start_member() {  # NAME [PORT]
  "$FEDHPA" member-sim --listen "127.0.0.1:${2:-0}" --name "$1" --hpa-sync-period 1s >"$E2E_DIR/$1.out" 2>>"$E2E_DIR/$1.err" &
  PIDS+=($!)
  eval "PID_$1=$!"
  for _ in $(seq 1 100); do grep -q '^listening on' "$E2E_DIR/$1.out" && break; sleep 0.1; done
}
for m in member1 member2 member3; do start_member $m; done
start_server "$E2E_DIR/data"
python3 - "$E2E_DIR/kubeconfig" "$E2E_DIR" <<'PY'
import sys
path, dir = sys.argv[1], sys.argv[2]
text = open(path).read()
for m in ("member1", "member2", "member3"):
    url = open(f"{dir}/{m}.out").readline().strip().split()[-1]
    text = text.replace("clusters:\n", f"clusters:\n- name: {m}\n  cluster: {{server: \"{url}\"}}\n", 1)
    text = text.replace("contexts:\n", f"contexts:\n- name: {m}\n  context: {{cluster: {m}, user: admin, namespace: default}}\n", 1)
open(path, "w").write(text)
PY
for m in member1 member2 member3; do "$FEDHPA" join $m --cluster-context $m --kubeconfig "$E2E_DIR/kubeconfig" >/dev/null; done
"$FEDHPA" controller-manager --kubeconfig "$E2E_DIR/kubeconfig" --address 127.0.0.1:0 --cluster-probe-period 500ms \
  --cluster-unhealthy-grace 3s --resync-period 1s --hpa-scale-forbidden-window 0 >"$E2E_DIR/cm.out" 2>"$E2E_DIR/cm.err" &
PIDS+=($!)

member() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context "$1" get hpa php-apache -o 'jsonpath={.spec.maxReplicas}' 2>/dev/null || echo -; }
maxes() { echo "$(member member1) $(member member2) $(member member3)"; }
live_sum() { set -- $(maxes); echo $(( ${1/-/0} + ${2/-/0} )); }
wait_for() {
  local name=$1 pattern=$2
  shift 3
  local output=""
  for _ in $(seq 1 80); do
    output=$("$@" 2>&1) || true
    if grep -Eq -- "$pattern" <<<"$output"; then ok "$name"; return; fi
    sleep 0.5
  done
  not_ok "$name" "no match for $pattern within 40 s" "$output"
}

check "create the federated HPA (max 10)" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
wait_for "spread over three members" '^4 3 3$' -- maxes
MEMBER3_PORT=$(head -1 "$E2E_DIR/member3.out" | sed 's/.*://')
kill -9 "$PID_member3"
wait_for "member3 turns NotReady" '^member3 .* False ' -- kc get clusters
wait_for "after the grace its share moves to member1 and member2" '^10$' -- live_sum
start_member member3 "$MEMBER3_PORT"
wait_for "member3 is Ready again" '^member3 .* True ' -- kc get clusters
wait_for "and holds a share again" '^[0-9]+ [0-9]+ [1-9][0-9]*$' -- maxes
SUM=$(maxes | awk '{print $1 + $2 + $3}')
if [ "$SUM" = 10 ]; then ok "Σ max is 10 across the three"; else not_ok "Σ max is $SUM ($(maxes))"; fi

summary
