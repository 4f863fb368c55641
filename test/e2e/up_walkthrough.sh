#!/usr/bin/env bash
# The walkthrough against `fedhpa up` (apiserver + three member-sims + controller in one process)
# with short periods: one federated HPA spread over the members, re-partitioned, moved towards
# load, and deleted or orphaned, all seen through kubectl. Usage: up_walkthrough.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

start_up --audit-log-path "$E2E_DIR/up/audit.log"

# "min max" of php-apache in every member, "-" where it has none, e.g. "1 4|1 3|1 3".
limits() {
  local out=""
  for m in member1 member2 member3; do
    out+=$(k --context=$m get hpa php-apache -o 'jsonpath={.spec.minReplicas} {.spec.maxReplicas}' 2>/dev/null || echo "-")"|"
  done
  echo "${out%|}"
}
# Σ max and the smallest min over the members holding the HPA.
sums() { limits | tr '|' '\n' | awk '$1 != "-" {max += $2; if (min == "" || $1 < min) min = $1} END {print max, min}'; }

wait_for "members are Ready" '^member3 +https://127\.0\.0\.1:[0-9]+ +True ' -- fed get clusters
check "get clusters stays narrow" 0 '^NAME +SERVER +READY +AGE$' -- fed get clusters
check "get clusters -o wide adds the prober's and the controller's columns" 0 '^NAME +SERVER +READY +AGE +LAST PROBE +READY SINCE +HPAS +PROBE RTT +CIRCUIT +REGION +ZONES +MESSAGE$' -- fed get clusters -o wide
RTT='(<1ms|[0-9]+ms|[0-9]+\.[0-9]s)'
wait_for "each member's last probe is seconds old, took a round trip, holds no HPA yet, its circuit closed, and says what /readyz answered" "^member2 +https://127\\.0\\.0\\.1:[0-9]+ +True +[0-9a-z]+ +[0-9]s +[0-9a-z]+ +0 +$RTT +Closed +<none> +<none> +/readyz responded with ok\$" -- fed get clusters -o wide
# The HPAS column of member1..3, e.g. "1 1 0".
placed_column() { fed get clusters -o wide --no-headers | awk '{printf "%s%s", sep, $7; sep=" "} END {print ""}'; }
sed 's/name: web/name: php-apache/; s/app: web/app: php-apache/g' "$M/deployment.yaml" >"$E2E_DIR/deploy.yaml"
sed -i 's/replicas: 2/replicas: 3/' "$E2E_DIR/deploy.yaml"
check "create the Deployment on the federation only" 0 'deployment.apps/php-apache created' -- fed create -f "$E2E_DIR/deploy.yaml"
deploy_replicas() { for m in member1 member2 member3; do k --context=$m get deploy php-apache -o 'jsonpath={.spec.replicas}' 2>/dev/null || echo -; echo -n " "; done; }
wait_for "without an HPA its 3 replicas are spread 1 per member" '^1 *1 *1 *$' -- deploy_replicas
wait_for "its status sums the members'" '^php-apache +3/3 +3 +3 ' -- fed get deploy php-apache

check "create the federated HPA (min 1, max 10)" 0 'horizontalpodautoscaler.autoscaling/php-apache created' -- fed create -f "$M/hpa-v2.yaml"
wait_for "every member holds it, Σ max = 10, every min >= 1" '^10 1$' -- sums
wait_for "get clusters -o wide counts it on every member" '^1 1 1$' -- placed_column
check "each member's kubectl get hpa shows it" 0 '^php-apache +Deployment/php-apache ' -- k --context=member2 get hpa php-apache
check "the member's HPA is managed by fedhpa-controller" 0 '^fedhpa-controller Update$' -- k --context=member2 get hpa php-apache --show-managed-fields -o 'jsonpath={range .metadata.managedFields[*]}{.manager} {.operation}{"\n"}{end}'
wait_for "the federated Deployment names the HPA's clusters" 'hpa-target-cluster-list.*Names.*member1.*member2.*member3' -- fed get deploy php-apache -o 'jsonpath={.metadata.annotations}'

fed patch hpa php-apache --type=merge -p '{"spec":{"minReplicas":2,"maxReplicas":9}}' >/dev/null
wait_for "max 9, min 2 over 3 members: each {1, 3}" '^1 3\|1 3\|1 3$' -- limits
fed patch hpa php-apache --type=merge -p '{"spec":{"minReplicas":1,"maxReplicas":2}}' >/dev/null
wait_for "max 2: exactly two members hold it" '^(-\|1 1\|1 1|1 1\|-\|1 1|1 1\|1 1\|-)$' -- limits
wait_for "and get clusters -o wide counts it on those two only" "^$(limits | sed 's/-/0/; s/1 1/1/g; s/|/ /g')$" -- placed_column
fed patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":20}}' >/dev/null
wait_for "max 20: Σ max = 20" '^20 1$' -- sums
fed patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":4}}' >/dev/null
wait_for "max 4: Σ max = 4" '^4 1$' -- sums
fed patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":10}}' >/dev/null
wait_for "back to max 10" '^10 1$' -- sums

k --context=member1 annotate deploy php-apache sim.fedhpa.io/demand=8 --overwrite >/dev/null
wait_for "load on member1: its max grows past its share" '^1 [6-9]\|' -- limits
check "Σ max stays 10" 0 '^10 1$' -- sums
check "plain get hpa stays narrow" 0 '^NAME +REFERENCE +TARGETS +MINPODS +MAXPODS +REPLICAS +AGE$' -- fed get hpa php-apache
check "get hpa -o wide adds the per-cluster column" 0 ' AGE +CLUSTERS$' -- fed get hpa php-apache -o wide
check "a member's get hpa -o wide is kube-apiserver's, without it" 0 '^NAME +REFERENCE +TARGETS +MINPODS +MAXPODS +REPLICAS +AGE$' -- k --context=member1 get hpa php-apache -o wide
wait_for "get hpa -o wide names every member's share, member1's max grown" ' member1 1-[6-9] \([0-9]+\), member2 1-[1-4] \([0-9]+\), member3 1-[1-4] \([0-9]+\)$' -- fed get hpa php-apache -o wide
wide_matches_members() {
  local want="" m
  for m in member1 member2 member3; do
    want+="$m $(k --context=$m get hpa php-apache -o 'jsonpath={.spec.minReplicas}-{.spec.maxReplicas} ({.status.currentReplicas})'), "
  done
  fed get hpa php-apache -o wide --no-headers | grep -F -q -- " ${want%, }" && echo same || echo "members: ${want%, }"
}
wait_for "the column is what each member's own HPA says" '^same$' -- wide_matches_members
wait_for "an Event on the federated HPA names the move" 'Rebalanced +.*member1 now min 1, max [6-9]: saturated' -- fed describe hpa php-apache
check "describe shows the per-cluster breakdown" 0 '^ +\{"member1":\{"cpuUtilization":[0-9]+,"current":[0-9]+,"desired":[0-9]+,"max":[0-9]+,"min":1\}' -- fed describe hpa php-apache
wait_for "get hpa shows the aggregated replicas" '^php-apache +Deployment/php-apache +cpu: [0-9]+%/50% +1 +10 +([8-9]|1[0-9]) ' -- fed get hpa php-apache
check "member1's replicas stay the local HPA's, not the federation's 3" 0 '^([5-9]|10)$' -- k --context=member1 get deploy php-apache -o 'jsonpath={.spec.replicas}'

# Members scale down without the 300 s default window from here on, so spare limits show quickly.
fed patch hpa php-apache --type=merge -p '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":0}}}}' >/dev/null
k --context=member1 annotate deploy php-apache sim.fedhpa.io/demand- >/dev/null
k --context=member2 annotate deploy php-apache sim.fedhpa.io/demand=6 --overwrite >/dev/null
wait_for "load moves to member2: member1's spare max flows to it" '^1 [1-5]\|1 ([5-9]|10)\|' -- limits
check "Σ max still 10" 0 '^10 1$' -- sums
wait_for "get hpa -o wide follows the rebalance to member2" ' member1 1-[1-5] \([0-9]+\), member2 1-([5-9]|10) \([0-9]+\), member3 1-[0-9]+ \([0-9]+\)$' -- fed get hpa php-apache -o wide
k --context=member2 annotate deploy php-apache sim.fedhpa.io/demand- >/dev/null

# A custom metric: requests per second per pod (target 10) rise on member3 while CPU stays idle.
fed patch hpa php-apache --type=merge -p '{"spec":{"metrics":[
  {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},
  {"type":"Pods","pods":{"metric":{"name":"http_requests_per_second"},"target":{"type":"AverageValue","averageValue":"10"}}}]}}' >/dev/null
wait_for "the members' HPAs get the metric list" 'http_requests_per_second' -- k --context=member3 get hpa php-apache -o 'jsonpath={.spec.metrics}'
k --context=member3 annotate deploy php-apache metrics.sim.fedhpa.io/http_requests_per_second=8 --overwrite >/dev/null
wait_for "member3 reports the Pods metric in status.currentMetrics" '^[1-9][0-9]*(\.[0-9]+|[mk])?$' -- k --context=member3 get hpa php-apache -o 'jsonpath={.status.currentMetrics[?(@.type=="Pods")].pods.current.averageValue}'
wait_for "requests on member3 alone (CPU idle): its max grows past its share" '\|1 [6-8]$' -- limits
check "Σ max still 10" 0 '^10 1$' -- sums
# A lowering that failed (a 409 from the member's own status write) leaves Σ max below 10 for the
# next pass, which fills it first: the Event then names that before the saturation.
wait_for "the Event names the metric and the need" 'member3 now min 1, max [6-8]: (filling the federated max of 10: max [0-9]+ -> [0-9]+; )?saturated \([0-9]+/[0-9]+ replicas at http_requests_per_second [0-9.]+ > 10 per pod target, need 8' -- fed describe hpa php-apache
k --context=member3 annotate deploy php-apache metrics.sim.fedhpa.io/http_requests_per_second- >/dev/null
fed patch hpa php-apache --type=merge -p '{"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}' >/dev/null

check "label member2's Cluster" 0 'cluster.federation/member2 labeled' -- fed label cluster member2 region=eu
fed annotate hpa php-apache 'federation.alpha.kubernetes.io/cluster-selector=[{"key":"region","operator":"In","values":["eu"]}]' >/dev/null
wait_for "a cluster selector for region=eu: only member2 holds it, with all 10" '^-\|1 10\|-$' -- limits
fed annotate hpa php-apache federation.alpha.kubernetes.io/cluster-selector- >/dev/null
wait_for "selector removed: spread again" '^10 1$' -- sums

check "delete the federated HPA" 0 '"php-apache" deleted' -- fed delete hpa php-apache
wait_for "it is gone from every member" '^-\|-\|-$' -- limits

check "create it again" 0 'created' -- fed create -f "$M/hpa-v2.yaml"
wait_for "spread again" '^10 1$' -- sums
check "delete --cascade=orphan" 0 '"php-apache" deleted' -- fed delete hpa php-apache --cascade=orphan
check "the member copies remain" 0 '^1 [0-9]+\|1 [0-9]+\|1 [0-9]+$' -- limits
check "and are no longer managed" 0 '^$' -- k --context=member1 get hpa php-apache -o 'jsonpath={.metadata.labels.federation\.kubernetes\.io/managed-by}'

# The controller-manager ran as itself (not a system:master), and its role sufficed: the audit log
# has its requests and not one 403 among them.
controller_answers() {
  python3 - "$E2E_DIR/up/audit.log" <<'PY'
import collections, json, sys
codes = collections.Counter()
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event["user"]["username"] == "system:fedhpa-controller-manager":
        assert "system:masters" not in event["user"].get("groups", []), event
        codes["denied" if event["responseStatus"]["code"] == 403 else "served"] += 1
print("served", codes["served"] > 100, "denied", codes["denied"])
PY
}
check "the controller-manager's own identity was never denied" 0 '^served True denied 0$' -- controller_answers
check "the operator's kubeconfig is a system:master" 0 '^yes$' -- fed auth can-i '*' '*' --all-namespaces

summary
