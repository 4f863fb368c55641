#!/usr/bin/env bash
# Joining members that enforce what real members enforce: member-sims over TLS, with an admin
# token and RBAC, reached by the operator only through an exec credential plugin (run once per
# join, not per request). `fedhpa join` leaves the federation a least-privilege ServiceAccount
# token (never the admin's, nor the plugin), which `kubectl auth can-i` checks; the walkthrough's
# federated HPA is shared out through it; after `unjoin` that token is refused. Usage:
# join_rbac.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

member_pki
for m in member1 member2; do start_rbac_member $m; done
start_server "$E2E_DIR/data"
# The operator reaches the members only through an exec plugin (as EKS, GKE and AKS kubeconfigs
# do): it logs each run's parent (the process that ran it) and prints the admin token, valid an hour.
cat >"$E2E_DIR/member-plugin.sh" <<PLUGIN
#!/bin/bash
echo "\$PPID" >> "$E2E_DIR/plugin-runs"
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"%s","expirationTimestamp":"%s"}}' \
  "$ADMIN_TOKEN" "\$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
PLUGIN
chmod +x "$E2E_DIR/member-plugin.sh"
add_member_contexts '{exec: {apiVersion: client.authentication.k8s.io/v1, command: ./member-plugin.sh, interactiveMode: Never}}' member1 member2
runs_of() { grep -c "^$1\$" "$E2E_DIR/plugin-runs" 2>/dev/null || true; }
member() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context "$@"; }
URL1=$(head -1 "$E2E_DIR/member1.out" | sed 's/^listening on //')

check "the member refuses requests without a credential" 0 '"code":401' -- \
  curl -sS --cacert "$E2E_DIR/ca.crt" "$URL1/apis/autoscaling/v2/horizontalpodautoscalers"
for m in member1 member2; do
  "$FEDHPA" join $m --cluster-context $m --kubeconfig "$E2E_DIR/kubeconfig" --token-lifetime 2h >"$E2E_DIR/join-$m.out" 2>&1 &
  JOIN_PID=$!
  JOIN_STATUS=0
  wait $JOIN_PID || JOIN_STATUS=$?
  check "join $m with the admin credential the plugin gives" 0 "^cluster.federation/$m joined as system:serviceaccount:fedhpa-system:fedhpa-controller-manager, token until " -- \
    sh -c "cat '$E2E_DIR/join-$m.out'; exit $JOIN_STATUS"
  # join makes a dozen requests to the member (namespace, account, roles, bindings, token, review).
  check "the plugin ran once for join $m, not once per request" 0 '^1$' -- runs_of $JOIN_PID
done
stored_kubeconfig member1 >"$E2E_DIR/stored-member1"
STORED=$(stored_token member1)
if [ -n "$STORED" ] && [ "$STORED" != "$ADMIN_TOKEN" ]; then ok "the stored kubeconfig holds a token of its own"; else not_ok "stored token: '$STORED'"; fi
for m in member1 member2; do
  if kc get secret $m -n federation-system -o json | grep -q "$ADMIN_TOKEN" || stored_kubeconfig $m | grep -q "$ADMIN_TOKEN"; then
    not_ok "federation Secret $m holds the admin token"
  else
    ok "federation Secret $m holds nothing of the admin token"
  fi
  check "nor the plugin" 1 '' -- grep -Eq 'exec:|member-plugin' <(kc get secret $m -n federation-system -o json; stored_kubeconfig $m)
done
check "and no client certificate" 1 '' -- grep -q 'client-certificate-data' "$E2E_DIR/stored-member1"
check "its expiry is on the Secret" 0 '^20[0-9-]+T[0-9:]+Z$' -- \
  kc get secret member1 -n federation-system -o jsonpath='{.metadata.annotations.federation\.fedhpa\.io/token-expiration}'

# The stored credential, as the controller-manager holds it.
as_federation() { kubectl --kubeconfig "$E2E_DIR/stored-member1" --cache-dir "$E2E_DIR/cache-stored" "$@"; }
check "it may create HPAs" 0 '^yes$' -- as_federation auth can-i create horizontalpodautoscalers.autoscaling -n shop
check "it may not read Secrets" 1 '^no$' -- as_federation auth can-i get secrets -n default
check "it may not write RBAC" 1 '^no$' -- as_federation auth can-i create clusterroles.rbac.authorization.k8s.io
check "it may ask for its own next token" 0 '^yes$' -- \
  as_federation auth can-i create serviceaccounts/fedhpa-controller-manager --subresource=token -n fedhpa-system
check "and no other account's" 1 '^no$' -- as_federation auth can-i create serviceaccounts/default --subresource=token -n fedhpa-system
check "reading Secrets is a 403" 1 'Forbidden' -- as_federation get secrets -n default

# The walkthrough's seed: a federated HPA, a share for each member.
start_controller cm
wait_for "both members are Ready" '^member2 .* True .*' -- kc get clusters
check "create the Deployment" 0 'created' -- kc create -f "$M/deployment.yaml"
check "create the federated HPA (max 10)" 0 'created' -- kc create -f "$M/hpa-v2.yaml"
maxes() { echo "$(member member1 get hpa php-apache -o 'jsonpath={.spec.maxReplicas}' 2>/dev/null || echo -) $(member member2 get hpa php-apache -o 'jsonpath={.spec.maxReplicas}' 2>/dev/null || echo -)"; }
wait_for "each member gets its share: 5 and 5" '^5 5$' -- maxes

check "unjoin member1 removes its identity there" 0 '^cluster.federation/member1 unjoined; 2 copies released .*; its identity in the member removed \(6 objects\)$' -- \
  "$FEDHPA" unjoin member1 --kubeconfig "$E2E_DIR/kubeconfig"
check "the token the federation held is refused: 401" 1 'Unauthorized' -- as_federation get hpa -A
check "member2 stays joined" 0 '^member2 ' -- kc get clusters

summary
