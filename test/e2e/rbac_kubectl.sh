#!/usr/bin/env bash
# Authorization and audit through real kubectl: `fedhpa apiserver` over HTTPS with client
# certificates (RBAC by default), an admin (system:masters), alice bound to `view` in one namespace,
# bob bound to `admin` in another (escalation checks), the controller-manager's own identity, and
# the audit log answering who created and changed an HPA. Usage: rbac_kubectl.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

PKI=$E2E_DIR/pki
mkdir -p "$PKI"
openssl_quiet() { openssl "$@" >/dev/null 2>&1; }
openssl_quiet req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=e2e-ca \
  -keyout "$PKI/ca.key" -out "$PKI/ca.crt"
# issue NAME SUBJECT [EXTENSION]: a certificate signed by the CA.
issue() {
  openssl_quiet req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" -keyout "$PKI/$1.key" -out "$PKI/$1.csr"
  printf '%s\n' "${3:-extendedKeyUsage=clientAuth}" >"$PKI/$1.ext"
  openssl_quiet x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 2 \
    -extfile "$PKI/$1.ext" -out "$PKI/$1.crt"
}
issue server /CN=fedhpa-apiserver "subjectAltName=IP:127.0.0.1"
issue admin "/O=system:masters/CN=admin"
issue alice /CN=alice
issue bob /CN=bob
issue controller /CN=system:fedhpa-controller-manager

AUDIT=$E2E_DIR/audit.log
"$FEDHPA" apiserver --listen 127.0.0.1:0 --data-dir "$E2E_DIR/data" --tls-cert-file "$PKI/server.crt" \
  --tls-private-key-file "$PKI/server.key" --client-ca-file "$PKI/ca.crt" --audit-log-path "$AUDIT" \
  >"$E2E_DIR/server.out" 2>"$E2E_DIR/server.err" &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q '^listening on https://' "$E2E_DIR/server.out" && break; sleep 0.1; done
PORT=$(head -1 "$E2E_DIR/server.out" | sed 's/.*://')
{
  echo "apiVersion: v1"
  echo "kind: Config"
  echo "clusters: [{name: fed, cluster: {server: \"https://127.0.0.1:$PORT\", certificate-authority: \"$PKI/ca.crt\"}}]"
  echo "users:"
  for u in admin alice bob controller; do
    echo "- {name: $u, user: {client-certificate: \"$PKI/$u.crt\", client-key: \"$PKI/$u.key\"}}"
  done
  echo "contexts:"
  for u in admin alice bob controller; do echo "- {name: $u, context: {cluster: fed, user: $u, namespace: default}}"; done
  echo "current-context: admin"
} >"$E2E_DIR/kubeconfig"
as() { local user=$1; shift; kubectl --kubeconfig "$E2E_DIR/kubeconfig" --context "$user" --cache-dir "$E2E_DIR/cache-$user" "$@"; }

# The admin sets the scene: a namespace alice has no binding in, HPAs in both, Secrets.
check "admin creates namespace other" 0 'namespace/other created' -- as admin create namespace other
check "admin creates namespace team" 0 'namespace/team created' -- as admin create namespace team
check "admin creates an HPA in default" 0 'php-apache created' -- as admin create -f "$M/hpa-v2.yaml"
check "admin creates an HPA in other" 0 'php-apache created' -- as admin create -n other -f "$M/hpa-v2.yaml"
check "admin creates a Secret in default" 0 'secret/s created' -- as admin create secret generic s --from-literal=k=v
check "admin creates a member Secret in federation-system" 0 'secret/member1 created' -- \
  as admin -n federation-system create secret generic member1 --from-literal=kubeconfig=x
check "bootstrap ClusterRoles exist" 0 '^view ' -- as admin get clusterroles
check "bind alice to view in default" 0 'rolebinding.rbac.authorization.k8s.io/alice-view created' -- \
  as admin create rolebinding alice-view --clusterrole=view --user=alice
check "bind bob to admin in team" 0 'bob-admin created' -- as admin -n team create rolebinding bob-admin --clusterrole=admin --user=bob

# alice: view in default, nothing elsewhere, never Secrets.
check "alice lists HPAs in default" 0 '^php-apache +Deployment/php-apache' -- as alice get hpa
check "alice reads the HPA in default" 0 '^php-apache$' -- as alice get hpa php-apache -o 'jsonpath={.metadata.name}{"\n"}'
check "alice gets 403 listing HPAs in other" 1 \
  'Error from server \(Forbidden\): horizontalpodautoscalers.autoscaling is forbidden: User "alice" cannot list resource "horizontalpodautoscalers" in API group "autoscaling" in the namespace "other"' \
  -- as alice -n other get hpa
check "alice gets 403 on all namespaces" 1 'cannot list resource "horizontalpodautoscalers" in API group "autoscaling" at the cluster scope' -- \
  as alice get hpa -A
check "alice gets 403 listing Secrets in default" 1 \
  'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default"' -- as alice get secrets
check "alice gets 403 reading a Secret by name" 1 'secrets "s" is forbidden: User "alice" cannot get resource "secrets"' -- \
  as alice get secret s
check "alice gets 403 on federation-system Secrets" 1 'in the namespace "federation-system"' -- \
  as alice -n federation-system get secret member1
check "alice cannot change the HPA (view)" 1 'cannot patch resource "horizontalpodautoscalers"' -- \
  as alice patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":11}}'
check "alice cannot delete Clusters" 1 'cannot delete resource "clusters" in API group "federation" at the cluster scope' -- \
  as alice delete cluster member1
check "alice can-i list hpa in default: yes" 0 '^yes$' -- as alice auth can-i list hpa
check "alice can-i list hpa in other: no" 1 '^no$' -- as alice -n other auth can-i list hpa
check "alice can-i get secrets: no" 1 '^no$' -- as alice auth can-i get secrets

LIST=$(as alice auth can-i --list 2>&1)
check "can-i --list shows view's HPA rule" 0 '^horizontalpodautoscalers.autoscaling +\[\] +\[\] +\[get list watch\]' -- echo "$LIST"
check "can-i --list shows the review rules everyone has" 0 '^selfsubjectaccessreviews.authorization.k8s.io +\[\] +\[\] +\[create\]' -- echo "$LIST"
check "can-i --list shows discovery URLs" 0 '^ +\[/api/\*\] +\[\] +\[get\]' -- echo "$LIST"
if grep -q '^secrets' <<<"$LIST"; then not_ok "can-i --list has no Secrets" "$LIST"; else ok "can-i --list has no Secrets"; fi
check "can-i --list in other has no HPAs" 0 '^selfsubjectrulesreviews' -- as alice -n other auth can-i --list
if as alice -n other auth can-i --list 2>&1 | grep -q horizontalpodautoscalers; then
  not_ok "can-i --list in other lists no HPA rule"
else ok "can-i --list in other lists no HPA rule"; fi

# --as: the admin may impersonate; alice may not.
check "admin can-i --as alice list hpa: yes" 0 '^yes$' -- as admin auth can-i list hpa --as alice
check "admin can-i --as alice get secrets: no" 1 '^no$' -- as admin auth can-i get secrets --as alice
check "admin acting as alice gets alice's 403" 1 'User "alice" cannot list resource "secrets"' -- as admin get secrets --as alice
check "impersonating a group" 0 '^yes$' -- as admin auth can-i get secrets --as nobody --as-group system:masters
check "alice may not impersonate" 1 \
  'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' -- \
  as alice auth can-i list hpa --as bob

# Escalation: bob administers team, so he may bind what he holds there, and no more.
check "bob binds view in team" 0 'carol-view created' -- as bob -n team create rolebinding carol-view --clusterrole=view --user=carol
check "bob cannot bind cluster-admin" 1 'is attempting to grant RBAC permissions not currently held' -- \
  as bob -n team create rolebinding carol-root --clusterrole=cluster-admin --user=carol
check "bob creates a Role within his rights" 0 'role.rbac.authorization.k8s.io/secret-reader created' -- \
  as bob -n team create role secret-reader --verb=get --resource=secrets
check "bob cannot create a Role beyond them" 1 'attempting to grant RBAC permissions not currently held' -- \
  as bob -n team create role cluster-deleter --verb=delete --resource=clusters.federation
check "bob cannot bind anything outside team" 1 'cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "default"' -- \
  as bob create rolebinding x --clusterrole=view --user=bob

# The controller-manager's identity: its Secrets are federation-system's only.
check "controller reads federation-system Secrets" 0 '^member1 ' -- as controller -n federation-system get secrets
check "controller is denied Secrets elsewhere" 1 \
  'secrets is forbidden: User "system:fedhpa-controller-manager" cannot list resource "secrets" in API group "" in the namespace "default"' -- \
  as controller get secrets
check "controller is denied Secrets cluster-wide" 1 'at the cluster scope' -- as controller get secrets -A
check "controller may not delete Clusters" 1 'cannot delete resource "clusters"' -- as controller delete cluster x
check "controller may update HPA status" 0 '^yes$' -- as controller auth can-i patch hpa --subresource=status -n other

# Anonymous requests: health is public, the API is not.
check "anonymous /healthz" 0 '^ok$' -- curl -sS --cacert "$PKI/ca.crt" "https://127.0.0.1:$PORT/healthz"

# Audit: who created and who changed the HPA, and the Audit-Id header that names the event.
as admin patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":12}}' >/dev/null
HEADERS=$(curl -sS -D - -o /dev/null --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
  "https://127.0.0.1:$PORT/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache")
AUDIT_ID=$(sed -n 's/^[Aa]udit-[Ii]d: *\([0-9a-f-]*\).*/\1/p' <<<"$HEADERS")
check "responses carry an Audit-Id" 0 '^[0-9a-f]{8}-[0-9a-f]{4}-4' -- echo "$AUDIT_ID"
who() {
  python3 - "$AUDIT" "$@" <<'PY'
import json, sys
path, verb, namespace, name = sys.argv[1:5]
for line in open(path):
    e = json.loads(line)
    ref = e.get("objectRef", {})
    if (e["verb"], ref.get("resource"), ref.get("namespace"), ref.get("name")) == (verb, "horizontalpodautoscalers", namespace, name) \
            and e["responseStatus"]["code"] < 300:
        print(e["user"]["username"], e["stage"], e["responseStatus"]["code"], ref.get("apiGroup"), e["requestReceivedTimestamp"])
PY
}
check "the audit log says admin created the HPA in default" 0 '^admin ResponseComplete 201 autoscaling 20' -- who create default php-apache
check "the audit log says admin changed it" 0 '^admin ResponseComplete 200 autoscaling ' -- who patch default php-apache
check "the event carries the Audit-Id the response had" 0 "\"auditID\": ?\"$AUDIT_ID\"" -- cat "$AUDIT"
check "alice's 403s are audited with her name" 0 '"code":403.*"username":"alice"' -- cat "$AUDIT"
check "impersonation is audited" 0 '"impersonatedUser":\{"groups":\["system:authenticated"\],"username":"alice"\}' -- cat "$AUDIT"
summary
