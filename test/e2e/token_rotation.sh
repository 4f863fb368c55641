#!/usr/bin/env bash
# Member tokens that rotate while the controller runs: a federation API server that enforces RBAC,
# with the controller-manager authenticated as its own identity (system:fedhpa-controller-manager,
# the bootstrap policy's roles and nothing more); two member-sims with TLS, tokens and RBAC,
# joined (again, once the shares are placed) with 20 s tokens (the member-sim's
# --testing-min-token-expiration allows them). While the
# federated HPA's shares stay placed (the local maxima summing to the federated max at every look,
# never more, both Clusters Ready), the controller-manager takes each member's next token before
# 80 % of its lifetime and writes it into the Secret; the first token's expiry passes, the shares
# still follow a change, and no reconcile failed. Then the controller is down longer than a token
# lives: the Cluster says CredentialExpired and to re-join; a re-join brings the member back, and
# unjoining the other releases its copy with the operator's credential, since its own expired.
# Usage: token_rotation.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"
LIFETIME=20
STARTED=$(date +%s)

member_pki
for m in member1 member2; do start_rbac_member $m --testing-min-token-expiration 5s; done
# The federation serves TLS (the members' certificate; kubectl sends tokens over https only),
# authenticates tokens and authorizes by RBAC: the operator is a master (the members' admin token,
# so one token reads both), the controller-manager itself.
CM_TOKEN="controller-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s,admin,admin,"system:masters"\n%s,system:fedhpa-controller-manager,controller-manager,\n' "$ADMIN_TOKEN" "$CM_TOKEN" \
  >"$E2E_DIR/federation-tokens.csv"
"$FEDHPA" apiserver --listen 127.0.0.1:0 --data-dir "$E2E_DIR/data" --tls-cert-file "$E2E_DIR/member.crt" \
  --tls-private-key-file "$E2E_DIR/member.key" --token-auth-file "$E2E_DIR/federation-tokens.csv" \
  >"$E2E_DIR/server.out" 2>"$E2E_DIR/server.err" &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q '^listening on https://' "$E2E_DIR/server.out" && break; sleep 0.1; done
PORT=$(head -1 "$E2E_DIR/server.out" | sed 's/.*://')
cat >"$E2E_DIR/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: federation
  cluster: {server: "https://127.0.0.1:$PORT", certificate-authority-data: $(base64 -w0 "$E2E_DIR/ca.crt")}
users:
- name: admin
  user: {token: "$ADMIN_TOKEN"}
- name: controller-manager
  user: {token: "$CM_TOKEN"}
contexts:
- name: federation-cluster
  context: {cluster: federation, user: admin, namespace: default}
- name: controller-manager
  context: {cluster: federation, user: controller-manager}
current-context: federation-cluster
KUBECONFIG
# can_cm VERB: may the controller's identity VERB Secrets in federation-system ("yes" or "no").
can_cm() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --context controller-manager --cache-dir "$E2E_DIR/cache" auth can-i "$1" secrets -n federation-system || true; }
check "the federation refuses an anonymous request" 0 '^401$' -- curl -s -o /dev/null -w '%{http_code}' --cacert "$E2E_DIR/ca.crt" "https://127.0.0.1:$PORT/api/v1/namespaces"
check "the controller's identity may update the members' Secrets" 0 '^yes$' -- can_cm update
check "but may not create them" 0 '^no$' -- can_cm create
check "nor delete them" 0 '^no$' -- can_cm delete
add_member_contexts "{token: \"$ADMIN_TOKEN\"}" member1 member2
join() { "$FEDHPA" join "$1" --cluster-context "$1" --kubeconfig "$E2E_DIR/kubeconfig" --token-lifetime "$2"; }
expiry_of() { kc get secret "$1" -n federation-system -o jsonpath='{.metadata.annotations.federation\.fedhpa\.io/token-expiration}'; }
epoch() { date -d "$1" +%s; }
URL1=$(head -1 "$E2E_DIR/member1.out" | sed 's/^listening on //')
URL2=$(head -1 "$E2E_DIR/member2.out" | sed 's/^listening on //')
member_max() {
  curl -s --cacert "$E2E_DIR/ca.crt" -H "Authorization: Bearer $ADMIN_TOKEN" "$1/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache" |
    python3 -c 'import json,sys; print(json.load(sys.stdin).get("spec", {}).get("maxReplicas", 0))' 2>/dev/null || echo 0
}
maxes() { echo "$(member_max "$URL1") $(member_max "$URL2")"; }
as_token() { curl -s -o /dev/null -w '%{http_code}' --cacert "$E2E_DIR/ca.crt" -H "Authorization: Bearer $1" "$URL1/apis/autoscaling/v2/horizontalpodautoscalers"; }
ready() { kc get cluster "$1" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].reason}'; }

# The shares are placed first (tokens of an hour), however long that takes on a busy machine.
for m in member1 member2; do check "join $m" 0 "^cluster.federation/$m joined .* token until " -- join $m 1h; done
start_controller cm --leader-elect=false --context controller-manager
wait_for "both members are Ready" '^member2 .* True .*' -- kc get clusters
check "create the Deployment" 0 'created' -- kc create -f "$M/deployment.yaml"
check "create the federated HPA (max 10)" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
wait_for "each member gets its share: 5 and 5" '^5 5$' -- maxes

# Then, under the running controller, each member is joined again with a short-lived token (which
# its client takes in place), and watched: at every look until both have expired (and 1 s more),
# and each Secret shows a token the controller took, the shares add up to the federated max and
# both Clusters are Ready; each Secret's token is noted.
for m in member1 member2; do check "re-join $m with a ${LIFETIME} s token while the controller runs" 0 "^cluster.federation/$m joined " -- join $m ${LIFETIME}s; done
FIRST1=$(stored_token member1)
EXPIRY1=$(epoch "$(expiry_of member1)"); EXPIRY2=$(epoch "$(expiry_of member2)")
python3 "$HERE/watch_shares.py" "https://127.0.0.1:$PORT" "$E2E_DIR/ca.crt" "$ADMIN_TOKEN" default/php-apache 10 \
  $(( (EXPIRY1 > EXPIRY2 ? EXPIRY1 : EXPIRY2) + 1 )) 2 member1="$URL1" member2="$URL2" >"$E2E_DIR/watch.out" &
WATCH_PID=$!
EXTRA_PIDS+=($WATCH_PID)
check "the short-lived token works" 0 '^200$' -- as_token "$FIRST1"
wait $WATCH_PID
LOOKS=$(sed -n 's/^looks //p' "$E2E_DIR/watch.out")
# Each member's Secret held the short-lived token joined with, then the ones the controller took.
rotations_of() { echo $(( $(sed -n "s/^tokens $1 //p" "$E2E_DIR/watch.out") - 1 )); }
echo "# $LOOKS looks over $(sed -n 's/^seconds //p' "$E2E_DIR/watch.out") s, $(( $(rotations_of member1) + $(rotations_of member2) )) rotations seen, token lifetime $LIFETIME s"
check "at each of the $LOOKS looks the local maxima summed to the federated max (10)" 1 '' -- grep '^over' "$E2E_DIR/watch.out"
check "both Clusters stayed Ready" 1 '' -- grep '^not-ready' "$E2E_DIR/watch.out"
check "member1's token was rotated" 0 '^[1-9]' -- rotations_of member1
check "member2's token was rotated" 0 '^[1-9]' -- rotations_of member2
check "the new expiry is on the Secret" 0 '^ok$' -- sh -c "[ $(epoch "$(expiry_of member1)") -gt $EXPIRY1 ] && echo ok"
while [ "$(date +%s)" -le $((EXPIRY1 + 1)) ]; do sleep 0.5; done
check "the short-lived token joined with has expired: 401" 0 '^401$' -- as_token "$FIRST1"
check "the token in the Secret works" 0 '^200$' -- as_token "$(stored_token member1)"
check "raise the federated max to 14" 0 'patched' -- kc patch hpa php-apache --type merge -p '{"spec":{"maxReplicas":14}}'
wait_for "the shares follow with the rotated tokens: 7 and 7" '^7 7$' -- maxes
METRICS_URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$E2E_DIR/cm.err" | head -1)/metrics
check "no reconcile failed" 0 '^fedhpa_reconcile_errors_total 0$' -- curl -s "$METRICS_URL"
check "the controller logged each rotation" 0 'member1: rotated the federation.s token' -- cat "$E2E_DIR/cm.err"
check "and no 401 from a member" 1 '' -- grep -Eq 'Unauthorized|HTTP 401|Credential(Expired|Rejected)' "$E2E_DIR/cm.err"
check "and nothing the federation forbade its identity" 1 '' -- grep -Eiq 'forbidden|HTTP 403' "$E2E_DIR/cm.err"

# The controller is down for longer than a token lives (re-joined with 5 s tokens, so the wait is
# short): nobody renews them.
kill "$PID_cm"; wait "$PID_cm" 2>/dev/null || true
for m in member1 member2; do check "re-join $m with a 5 s token while no controller runs" 0 "^cluster.federation/$m joined " -- join $m 5s; done
LAST=$(epoch "$(expiry_of member1)"); LAST2=$(epoch "$(expiry_of member2)")
while [ "$(date +%s)" -le $(( (LAST > LAST2 ? LAST : LAST2) + 1 )) ]; do sleep 0.5; done
start_controller cm2 --leader-elect=false --context controller-manager
wait_for "member1's Cluster says its credential expired" '^False CredentialExpired$' -- ready member1
check "and to join it again" 0 'expired at .* join it again: fedhpa join member1 ' -- \
  kc get cluster member1 -o 'jsonpath={.status.conditions[?(@.type=="Ready")].message}'
# member2 leaves while its token is expired: its copies (HPA, Deployment) are released with the operator's credential.
check "unjoin member2, whose token expired" 0 '^cluster.federation/member2 unjoined; 2 copies released with the operator.s credential .*; its identity in the member removed' -- \
  "$FEDHPA" unjoin member2 --kubeconfig "$E2E_DIR/kubeconfig"
check "re-join member1" 0 "^cluster.federation/member1 joined " -- join member1 1h
wait_for "member1 is Ready again" '^True ClusterReady$' -- ready member1
check "lower the federated max to 8" 0 'patched' -- kc patch hpa php-apache --type merge -p '{"spec":{"maxReplicas":8}}'
wait_for "member1, the one member left, follows: 8 (member2 keeps its released copy)" '^8 7$' -- maxes
echo "# $(( $(date +%s) - STARTED )) s in all"
summary
