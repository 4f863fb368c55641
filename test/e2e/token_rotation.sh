#!/usr/bin/env bash
# Member tokens that rotate while the controller runs: two member-sims with TLS, tokens and RBAC,
# joined with 20 s tokens (the member-sim's --testing-min-token-expiration allows them). While the
# federated HPA's shares stay placed (the local maxima summing to the federated max at every look,
# never more, both Clusters Ready), the controller-manager takes each member's next token before
# 80 % of its lifetime and writes it into the Secret; the first token's expiry passes, the shares
# still follow a change, and no reconcile failed. Then the controller is down longer than a token
# lives: the Cluster says CredentialExpired and to re-join, and a re-join brings the member back.
# Usage: token_rotation.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"
LIFETIME=20
STARTED=$(date +%s)

member_pki
for m in member1 member2; do start_rbac_member $m --testing-min-token-expiration 10s; done
start_server "$E2E_DIR/data"
add_member_contexts "{token: \"$ADMIN_TOKEN\"}" member1 member2
join() { "$FEDHPA" join "$1" --cluster-context "$1" --kubeconfig "$E2E_DIR/kubeconfig" --token-lifetime ${LIFETIME}s; }
for m in member1 member2; do check "join $m with a ${LIFETIME} s token" 0 "^cluster.federation/$m joined .* token until " -- join $m; done
expiry_of() { kc get secret "$1" -n federation-system -o jsonpath='{.metadata.annotations.federation\.fedhpa\.io/token-expiration}'; }
epoch() { date -d "$1" +%s; }
FIRST1=$(stored_token member1); FIRST2=$(stored_token member2)
EXPIRY1=$(epoch "$(expiry_of member1)"); EXPIRY2=$(epoch "$(expiry_of member2)")
URL1=$(head -1 "$E2E_DIR/member1.out" | sed 's/^listening on //')
URL2=$(head -1 "$E2E_DIR/member2.out" | sed 's/^listening on //')
member_max() {
  curl -s --cacert "$E2E_DIR/ca.crt" -H "Authorization: Bearer $ADMIN_TOKEN" "$1/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache" |
    python3 -c 'import json,sys; print(json.load(sys.stdin).get("spec", {}).get("maxReplicas", 0))' 2>/dev/null || echo 0
}
as_token() { curl -s -o /dev/null -w '%{http_code}' --cacert "$E2E_DIR/ca.crt" -H "Authorization: Bearer $1" "$URL1/apis/autoscaling/v2/horizontalpodautoscalers"; }
check "the first token works" 0 '^200$' -- as_token "$FIRST1"

start_controller cm
maxes() { echo "$(member_max "$URL1") $(member_max "$URL2")"; }
ready() { kc get cluster "$1" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].reason}'; }
wait_for "both members are Ready" '^member2 .* True .*' -- kc get clusters
check "create the Deployment" 0 'created' -- kc create -f "$M/deployment.yaml"
check "create the federated HPA (max 10)" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
wait_for "each member gets its share: 5 and 5" '^5 5$' -- maxes

# Every look until both first tokens have expired (and 2 s more): the shares add up to the
# federated max, both Clusters are Ready, and each Secret's token is noted. One request per answer
# (curl), so that the looks are many.
readiness() {
  api GET /apis/federation/v1beta1/clusters | python3 -c '
import json, sys
for c in json.load(sys.stdin)["items"]:
    r = [x for x in c.get("status", {}).get("conditions", []) if x["type"] == "Ready"]
    print(c["metadata"]["name"], r[0]["status"] if r else "-", r[0]["reason"] if r else "-")'
}
secret_tokens() {
  api GET /api/v1/namespaces/federation-system/secrets | python3 -c '
import base64, json, re, sys
for s in json.load(sys.stdin)["items"]:
    text = base64.b64decode(s["data"]["kubeconfig"]).decode()
    print(s["metadata"]["name"], re.search(r"token: *\"?([^\"\n]*)", text).group(1))'
}
LOOKS=0; OVER=""; NOT_READY=""; TOKENS="member1 $FIRST1"$'\n'"member2 $FIRST2"
while [ "$(date +%s)" -le $(( (EXPIRY1 > EXPIRY2 ? EXPIRY1 : EXPIRY2) + 2 )) ]; do
  a=$(member_max "$URL1"); b=$(member_max "$URL2")
  [ $((a + b)) -ne 10 ] && OVER="$OVER [$a+$b at $(date +%T)]"
  r=$(readiness)
  [ "$(grep -c ' True ClusterReady$' <<<"$r")" -eq 2 ] || NOT_READY="$NOT_READY [$(date +%T): $(tr '\n' ';' <<<"$r")]"
  while read -r line; do grep -qxF -- "$line" <<<"$TOKENS" || TOKENS="$TOKENS"$'\n'"$line"; done <<<"$(secret_tokens)"
  LOOKS=$((LOOKS + 1))
  sleep 0.2
done
rotations_of() { echo $(( $(grep -c "^$1 " <<<"$TOKENS") - 1 )); }
ROTATIONS=$(( $(rotations_of member1) + $(rotations_of member2) ))
echo "# $LOOKS looks, $ROTATIONS rotations seen, token lifetime $LIFETIME s"
if [ -z "$OVER" ]; then ok "at every one of $LOOKS looks the local maxima summed to the federated max (10)"; else not_ok "the shares did not add up" "$OVER"; fi
if [ -z "$NOT_READY" ]; then ok "both Clusters stayed Ready"; else not_ok "a Cluster was not Ready" "$NOT_READY"; fi
check "member1's token was rotated" 0 '^[1-9]' -- rotations_of member1
check "member2's token was rotated" 0 '^[1-9]' -- rotations_of member2
check "the new expiry is on the Secret" 0 '^ok$' -- sh -c "[ $(epoch "$(expiry_of member1)") -gt $EXPIRY1 ] && echo ok"
check "the first token has expired: 401" 0 '^401$' -- as_token "$FIRST1"
check "the token in the Secret works" 0 '^200$' -- as_token "$(stored_token member1)"
check "raise the federated max to 14" 0 'patched' -- kc patch hpa php-apache --type merge -p '{"spec":{"maxReplicas":14}}'
wait_for "the shares follow with the rotated tokens: 7 and 7" '^7 7$' -- maxes
METRICS_URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$E2E_DIR/cm.err" | head -1)/metrics
check "no reconcile failed" 0 '^fedhpa_reconcile_errors_total 0$' -- curl -s "$METRICS_URL"
check "the controller logged each rotation" 0 'member1: rotated the federation.s token' -- cat "$E2E_DIR/cm.err"
check "and no 401 from a member" 1 '' -- grep -Eq 'Unauthorized|401' "$E2E_DIR/cm.err"

# The controller is down for longer than a token lives: nobody renews it.
kill "$PID_cm"; wait "$PID_cm" 2>/dev/null || true
LAST=$(epoch "$(expiry_of member1)"); LAST2=$(epoch "$(expiry_of member2)")
while [ "$(date +%s)" -le $(( (LAST > LAST2 ? LAST : LAST2) + 1 )) ]; do sleep 0.5; done
start_controller cm2
wait_for "member1's Cluster says its credential expired" '^False CredentialExpired$' -- ready member1
check "and to join it again" 0 'expired at .* join it again: fedhpa join member1 ' -- \
  kc get cluster member1 -o 'jsonpath={.status.conditions[?(@.type=="Ready")].message}'
for m in member1 member2; do check "re-join $m" 0 "^cluster.federation/$m joined " -- join $m; done
wait_for "member1 is Ready again" '^True ClusterReady$' -- ready member1
wait_for "member2 is Ready again" '^True ClusterReady$' -- ready member2
check "lower the federated max to 8" 0 'patched' -- kc patch hpa php-apache --type merge -p '{"spec":{"maxReplicas":8}}'
wait_for "the shares follow again: 4 and 4" '^4 4$' -- maxes
echo "# $(( $(date +%s) - STARTED )) s in all"
summary
