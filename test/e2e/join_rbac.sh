#!/usr/bin/env bash
# Joining members that enforce what real members enforce: member-sims over TLS, with an admin
# token and RBAC. `fedhpa join` with the admin credential leaves the federation a least-privilege
# ServiceAccount token (never the admin's), which `kubectl auth can-i` checks; the walkthrough's
# federated HPA is shared out through it; after `unjoin` that token is refused. Usage:
# join_rbac.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

ADMIN_TOKEN="member-admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
# One CA and one serving certificate for 127.0.0.1, for both members.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=e2e-ca -keyout "$E2E_DIR/ca.key" -out "$E2E_DIR/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=member -keyout "$E2E_DIR/member.key" -out "$E2E_DIR/member.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$E2E_DIR/san.ext"
openssl x509 -req -in "$E2E_DIR/member.csr" -CA "$E2E_DIR/ca.crt" -CAkey "$E2E_DIR/ca.key" -CAcreateserial -days 1 \
  -extfile "$E2E_DIR/san.ext" -out "$E2E_DIR/member.crt" 2>/dev/null
printf '%s,member-admin,member-admin,"system:masters"\n' "$ADMIN_TOKEN" >"$E2E_DIR/tokens.csv"

for m in member1 member2; do
  "$FEDHPA" member-sim --listen 127.0.0.1:0 --name $m --hpa-sync-period 1s --authorization-mode RBAC \
    --tls-cert-file "$E2E_DIR/member.crt" --tls-private-key-file "$E2E_DIR/member.key" \
    --token-auth-file "$E2E_DIR/tokens.csv" >"$E2E_DIR/$m.out" 2>>"$E2E_DIR/$m.err" &
  EXTRA_PIDS+=($!)
  for _ in $(seq 1 100); do grep -q '^listening on' "$E2E_DIR/$m.out" && break; sleep 0.1; done
done
start_server "$E2E_DIR/data"
CA_DATA=$(base64 -w0 "$E2E_DIR/ca.crt")
python3 - "$E2E_DIR" "$CA_DATA" "$ADMIN_TOKEN" <<'PY'
import sys
d, ca, token = sys.argv[1:4]
path = d + "/kubeconfig"
text = open(path).read()
for m in ("member1", "member2"):
    url = open(f"{d}/{m}.out").readline().split()[-1]
    text = text.replace("clusters:\n", f"clusters:\n- name: {m}\n  cluster: {{server: \"{url}\", certificate-authority-data: {ca}}}\n", 1)
    text = text.replace("contexts:\n", f"contexts:\n- name: {m}\n  context: {{cluster: {m}, user: member-admin, namespace: default}}\n", 1)
text = text.replace("users:\n", f"users:\n- name: member-admin\n  user: {{token: \"{token}\"}}\n", 1)
open(path, "w").write(text)
PY
member() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" --context "$@"; }
URL1=$(head -1 "$E2E_DIR/member1.out" | sed 's/^listening on //')

check "the member refuses requests without a credential" 0 '"code":401' -- \
  curl -sS --cacert "$E2E_DIR/ca.crt" "$URL1/apis/autoscaling/v2/horizontalpodautoscalers"
for m in member1 member2; do
  check "join $m with the admin credential" 0 "^cluster.federation/$m joined as system:serviceaccount:fedhpa-system:fedhpa-controller-manager, token until " -- \
    "$FEDHPA" join $m --cluster-context $m --kubeconfig "$E2E_DIR/kubeconfig" --token-lifetime 2h
done

stored_kubeconfig() { kc get secret "$1" -n federation-system -o jsonpath='{.data.kubeconfig}' | base64 -d; }
stored_kubeconfig member1 >"$E2E_DIR/stored-member1"
STORED=$(sed -n 's/^ *token: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$E2E_DIR/stored-member1")
if [ -n "$STORED" ] && [ "$STORED" != "$ADMIN_TOKEN" ]; then ok "the stored kubeconfig holds a token of its own"; else not_ok "stored token: '$STORED'"; fi
for m in member1 member2; do
  if kc get secret $m -n federation-system -o json | grep -q "$ADMIN_TOKEN" || stored_kubeconfig $m | grep -q "$ADMIN_TOKEN"; then
    not_ok "federation Secret $m holds the admin token"
  else
    ok "federation Secret $m holds nothing of the admin token"
  fi
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
