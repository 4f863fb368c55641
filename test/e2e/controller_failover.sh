#!/usr/bin/env bash
# Two controller-managers against one federation: only the Lease holder acts; kill -9 it and the
# other takes over once the Lease expires (15 s) and carries on; how long that took is printed, not
# judged (a busy machine may make it take longer). Usage: controller_failover.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

start_member member1
start_server "$E2E_DIR/data"
join_members member1
member() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context member1 "$@"; }

start_controller cm_a
start_controller cm_b
PID_a=$PID_cm_a
PID_b=$PID_cm_b

holder() { kc get lease fedhpa-controller-manager -n kube-system -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null; }
wait_for "one controller-manager holds the Lease" "_($PID_a|$PID_b)\$" -- holder
LEADER=$(holder); LEADER_PID=${LEADER##*_}
OTHER_PID=$PID_a; [ "$LEADER_PID" = "$PID_a" ] && OTHER_PID=$PID_b
check "create a federated HPA" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
wait_for "the leader places it on the member" '^php-apache +Deployment/php-apache ' -- member get hpa php-apache
LEADER_LOG="$E2E_DIR/cm_$( [ "$LEADER_PID" = "$PID_a" ] && echo a || echo b ).err"
OTHER_LOG="$E2E_DIR/cm_$( [ "$OTHER_PID" = "$PID_a" ] && echo a || echo b ).err"
METRICS_URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$LEADER_LOG" | head -1)/metrics
check "the leader's /metrics counts the create" 0 '^fedhpa_member_writes_total\{kind="create"\} 1$' -- curl -s "$METRICS_URL"
check "and the member's readiness" 0 '^fedhpa_cluster_ready\{cluster="member1"\} 1$' -- curl -s "$METRICS_URL"
check "and the member's share of the HPA" 0 '^fedhpa_federated_hpa_member_max_replicas\{namespace="default",name="php-apache",cluster="member1"\} 10$' -- curl -s "$METRICS_URL"
check "the leader says it leads" 0 '^leader_election_master_status\{name="fedhpa-controller-manager"\} 1$' -- curl -s "$METRICS_URL"
OTHER_METRICS_URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$OTHER_LOG" | head -1)/metrics
check "the other one says it does not" 0 '^leader_election_master_status\{name="fedhpa-controller-manager"\} 0$' -- curl -s "$OTHER_METRICS_URL"
# promtool check metrics on real scrapes of every server (it exits 1 on any complaint, lint
# included); then every metric the alerts and the dashboard use must be declared in them.
MEMBER_URL=$(head -1 "$E2E_DIR/member1.out" | sed 's/^listening on //')
for scrape in "leader=$METRICS_URL" "standby=$OTHER_METRICS_URL" "apiserver=http://127.0.0.1:$PORT/metrics" "member-sim=$MEMBER_URL/metrics"; do
  curl -sf "${scrape#*=}" >"$E2E_DIR/${scrape%%=*}.prom"
  check "promtool check metrics: ${scrape%%=*}'s /metrics is clean" 0 '' -- promtool check metrics <"$E2E_DIR/${scrape%%=*}.prom"
done
check "the alerts and the dashboard use only metrics these servers export" 0 'metric names' -- \
  python3 "$HERE/../manifests/monitoring_test.py" "$HERE/../.." --scrape "$E2E_DIR"/{leader,apiserver}.prom
if grep -q 'became the leader' "$OTHER_LOG"; then not_ok "the other one only waits" "$(cat "$OTHER_LOG")"; else ok "the other one only waits"; fi
kill -9 "$LEADER_PID"
sed 's/name: php-apache$/name: second/' "$M/hpa-v2.yaml" | sed '0,/name: php-apache/s//name: second/' >"$E2E_DIR/second.yaml"
STARTED=$(date +%s)
check "create another while the leader is dead" 0 'created' -- kc create -f "$E2E_DIR/second.yaml"
WAIT_SECONDS=120 wait_for "the other takes the Lease" "_${OTHER_PID}\$" -- holder
WAIT_SECONDS=120 wait_for "and places the new HPA" '^second +Deployment/' -- member get hpa second
echo "# took over and placed the new HPA $(( $(date +%s) - STARTED )) s after the leader died (the Lease lasts 15 s)"

summary
