#!/usr/bin/env bash
# A member that stops answering: after the unhealthy grace its share of the federated HPA moves
# to the live members; when it comes back the partition includes it again. Every component is
# its own process here, as in production. Usage: member_outage.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

for m in member1 member2 member3; do start_member $m; done
start_server "$E2E_DIR/data"
join_members member1 member2 member3
start_controller cm --cluster-unhealthy-grace 3s

member() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context "$1" get hpa php-apache -o 'jsonpath={.spec.maxReplicas}' 2>/dev/null || echo -; }
maxes() { echo "$(member member1) $(member member2) $(member member3)"; }
live_sum() { set -- $(maxes); echo $(( ${1/-/0} + ${2/-/0} )); }

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

# Unjoined, a member keeps its copies, released: no longer labelled as fedhpa's.
check "unjoin member3 releases its copy" 0 'unjoined; 1 copies released' -- "$FEDHPA" unjoin member3 --kubeconfig "$E2E_DIR/kubeconfig"
check "member3's HPA is still there, without fedhpa's label" 0 '^php-apache \{\}$|^php-apache map\[\]$|^php-apache $' -- \
  kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context member3 get hpa php-apache \
  -o 'jsonpath={.metadata.name} {.metadata.labels}'

summary
