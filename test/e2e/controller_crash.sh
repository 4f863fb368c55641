#!/usr/bin/env bash
# kill -9 the controller-manager in the middle of a rebalance and start it again: it converges,
# and an observer sampling all members throughout never sees the local maxima add up to more
# than the federated max (limits are lowered before any are raised). Usage: controller_crash.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

for m in member1 member2 member3; do start_member $m; done
start_server "$E2E_DIR/data"
join_members member1 member2 member3
start_controller cm1
MEMBER_URLS=$(for m in member1 member2 member3; do head -1 "$E2E_DIR/$m.out" | sed 's/^listening on //'; done)

# Σ of the members' php-apache maxReplicas, read straight from their APIs.
sum_max() {
  local total=0 url max
  for url in $MEMBER_URLS; do
    max=$(curl -s "$url/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache" |
      python3 -c 'import json,sys; print(json.load(sys.stdin).get("spec", {}).get("maxReplicas", 0))' 2>/dev/null || echo 0)
    total=$((total + max))
  done
  echo "$total"
}
member_max() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context "$1" get hpa php-apache -o 'jsonpath={.spec.maxReplicas}'; }

sed 's/name: web/name: php-apache/; s/app: web/app: php-apache/g' "$M/deployment.yaml" >"$E2E_DIR/deploy.yaml"
for m in member1 member2 member3; do kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context $m create -f "$E2E_DIR/deploy.yaml" >/dev/null; done
check "create the federated HPA (max 10)" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
wait_for "spread: Σ max = 10" '^10$' -- sum_max

# The observer: one process reading every member's HPA as fast as it can, noting each Σ max.
# It reads member1 (the one that receives) first, so a sample that straddles a rebalance can
# only undercount: it never sees a raise without the lowerings that preceded it.
python3 - "$E2E_DIR" $MEMBER_URLS <<'PY' &
import json, os, sys, urllib.request
dir, urls = sys.argv[1], sys.argv[2:]
with open(f"{dir}/observed", "w") as out:
    while not os.path.exists(f"{dir}/stop-observing"):
        total = 0
        for url in urls:
            try:
                with urllib.request.urlopen(f"{url}/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache") as r:
                    total += json.load(r)["spec"]["maxReplicas"]
            except Exception:
                pass
        out.write(f"{total}\n")
        out.flush()
PY
EXTRA_PIDS+=($!)
kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context member1 annotate deploy php-apache sim.fedhpa.io/demand=9 >/dev/null
wait_for "the rebalance starts (member1's max grows)" '^([5-9]|10)$' -- member_max member1
kill -9 "$PID_cm1"
start_controller cm2
wait_for "after the restart it converges: member1 holds what it needs" '^(8|9|10)$' -- member_max member1
wait_for "Σ max = 10" '^10$' -- sum_max
touch "$E2E_DIR/stop-observing"
sleep 0.5
HIGHEST=$(sort -n "$E2E_DIR/observed" | tail -1)
if [ "$HIGHEST" -le 10 ]; then ok "the observer's highest Σ max in $(wc -l <"$E2E_DIR/observed") samples was $HIGHEST"; else not_ok "the observer saw Σ max = $HIGHEST > 10"; fi

summary
