#!/usr/bin/env bash
# Two controller-managers against one federation: only the Lease holder acts; kill -9 it and the
# other takes over within the lease duration (15 s) and carries on. Usage: controller_failover.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

PIDS=()
trap 'kill -9 "${PIDS[@]}" 2>/dev/null; cleanup' EXIT
"$FEDHPA" member-sim --listen 127.0.0.1:0 --name member1 --hpa-sync-period 1s >"$E2E_DIR/member.out" 2>"$E2E_DIR/member.err" &
PIDS+=($!)
for _ in $(seq 1 100); do grep -q '^listening on' "$E2E_DIR/member.out" && break; sleep 0.1; done
MEMBER_URL=$(head -1 "$E2E_DIR/member.out" | sed 's/^listening on //')
start_server "$E2E_DIR/data"
python3 - "$E2E_DIR/kubeconfig" "$MEMBER_URL" <<'PY'
import sys
path, url = sys.argv[1], sys.argv[2]
text = open(path).read()
text = text.replace("clusters:\n", f"clusters:\n- name: member1\n  cluster: {{server: \"{url}\"}}\n", 1)
text = text.replace("contexts:\n", "contexts:\n- name: member1\n  context: {cluster: member1, user: admin, namespace: default}\n", 1)
open(path, "w").write(text)
PY
"$FEDHPA" join member1 --cluster-context member1 --kubeconfig "$E2E_DIR/kubeconfig" >/dev/null
member() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context member1 "$@"; }

for name in a b; do
  "$FEDHPA" controller-manager --kubeconfig "$E2E_DIR/kubeconfig" --cluster-probe-period 1s --resync-period 2s \
    --hpa-scale-forbidden-window 0 --address 127.0.0.1:0 >"$E2E_DIR/cm-$name.out" 2>"$E2E_DIR/cm-$name.err" &
  PIDS+=($!)
  eval "PID_$name=$!"
done

holder() { kc get lease fedhpa-controller-manager -n kube-system -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null; }
wait_for() {
  local name=$1 pattern=$2
  shift 3
  local output=""
  for _ in $(seq 1 60); do
    output=$("$@" 2>&1) || true
    if grep -Eq -- "$pattern" <<<"$output"; then ok "$name"; return; fi
    sleep 0.5
  done
  not_ok "$name" "no match for $pattern within 30 s" "$output"
}

wait_for "one controller-manager holds the Lease" "_($PID_a|$PID_b)\$" -- holder
LEADER=$(holder); LEADER_PID=${LEADER##*_}
OTHER_PID=$PID_a; [ "$LEADER_PID" = "$PID_a" ] && OTHER_PID=$PID_b
check "create a federated HPA" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
wait_for "the leader places it on the member" '^php-apache +Deployment/php-apache ' -- member get hpa php-apache
LEADER_LOG="$E2E_DIR/cm-$( [ "$LEADER_PID" = "$PID_a" ] && echo a || echo b ).err"
OTHER_LOG="$E2E_DIR/cm-$( [ "$OTHER_PID" = "$PID_a" ] && echo a || echo b ).err"
METRICS_URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$LEADER_LOG" | head -1)/metrics
check "the leader's /metrics counts the create" 0 '^fedhpa_member_writes_total\{kind="create"\} 1$' -- curl -s "$METRICS_URL"
check "and the member's readiness" 0 '^fedhpa_cluster_ready\{cluster="member1"\} 1$' -- curl -s "$METRICS_URL"
if grep -q 'became the leader' "$OTHER_LOG"; then not_ok "the other one only waits" "$(cat "$OTHER_LOG")"; else ok "the other one only waits"; fi
kill -9 "$LEADER_PID"
sed 's/name: php-apache$/name: second/' "$M/hpa-v2.yaml" | sed '0,/name: php-apache/s//name: second/' >"$E2E_DIR/second.yaml"
STARTED=$(date +%s)
check "create another while the leader is dead" 0 'created' -- kc create -f "$E2E_DIR/second.yaml"
wait_for "the other takes the Lease" "_${OTHER_PID}\$" -- holder
wait_for "and places the new HPA" '^second +Deployment/' -- member get hpa second
ELAPSED=$(( $(date +%s) - STARTED ))
if [ "$ELAPSED" -le 20 ]; then ok "took over within 20 s (${ELAPSED} s)"; else not_ok "took over in ${ELAPSED} s, want 20"; fi

summary
