#!/usr/bin/env bash
# GitOps against `fedhpa apiserver` with stock kubectl: server-side apply, its no-op, a conflicting
# second manager, --force-conflicts, and managedFields as kubectl shows them.
# Usage: server_side_apply_kubectl.sh path/to/fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
HPA=$HERE/../../manifests/php-apache-hpa.yaml
source "$HERE/lib.sh"

start_server "$E2E_DIR/data"

check "apply --server-side creates" 0 '^horizontalpodautoscaler.autoscaling/php-apache serverside-applied$' -- kc apply --server-side -f "$HPA"
RV1=$(kc get hpa php-apache -o 'jsonpath={.metadata.resourceVersion}')
check "apply --server-side again" 0 '^horizontalpodautoscaler.autoscaling/php-apache serverside-applied$' -- kc apply --server-side -f "$HPA"
check "an unchanged apply keeps the resourceVersion" 0 "^$RV1\$" -- kc get hpa php-apache -o 'jsonpath={.metadata.resourceVersion}{"\n"}'

sed 's/maxReplicas: 10/maxReplicas: 20/' "$HPA" >"$E2E_DIR/other.yaml"
check "a second manager changing maxReplicas conflicts" 1 'conflict with "kubectl": \.spec\.maxReplicas' -- kc apply --server-side --field-manager=other -f "$E2E_DIR/other.yaml"
check "the conflict left maxReplicas alone" 0 '^10$' -- kc get hpa php-apache -o 'jsonpath={.spec.maxReplicas}{"\n"}'
check "--force-conflicts takes the field over" 0 'php-apache serverside-applied' -- kc apply --server-side --field-manager=other --force-conflicts -f "$E2E_DIR/other.yaml"
check "the forced value is in place" 0 '^20$' -- kc get hpa php-apache -o 'jsonpath={.spec.maxReplicas}{"\n"}'
check "--show-managed-fields: the first manager" 0 '^  - apiVersion: autoscaling/v2$|^    manager: kubectl$' -- kc get hpa php-apache -o yaml --show-managed-fields
check "--show-managed-fields: the second manager owns maxReplicas" 0 '^    manager: other$' -- kc get hpa php-apache -o yaml --show-managed-fields
OWNER=$(kc get hpa php-apache -o json --show-managed-fields | python3 -c '
import json, sys
for entry in json.load(sys.stdin)["metadata"]["managedFields"]:
    if "f:maxReplicas" in entry["fieldsV1"].get("f:spec", {}):
        print(entry["manager"], entry["operation"])')
if [ "$OWNER" = "other Apply" ]; then ok "maxReplicas is owned by other alone"; else not_ok "maxReplicas is owned by other alone" "$OWNER"; fi
if kc get hpa php-apache -o yaml | grep -q managedFields; then not_ok "managedFields stay hidden by default"; else ok "managedFields stay hidden by default"; fi

# A label only the applier set goes when its manifest drops it.
sed 's/^  name: php-apache$/  name: php-apache\n  labels:\n    team: web/' "$E2E_DIR/other.yaml" >"$E2E_DIR/labelled.yaml"
check "apply adds a label" 0 'php-apache serverside-applied' -- kc apply --server-side --field-manager=other -f "$E2E_DIR/labelled.yaml"
check "the label is there" 0 '^web$' -- kc get hpa php-apache -o 'jsonpath={.metadata.labels.team}{"\n"}'
check "apply without the label" 0 'php-apache serverside-applied' -- kc apply --server-side --field-manager=other -f "$E2E_DIR/other.yaml"
check "the dropped label is gone" 0 '^$' -- kc get hpa php-apache -o 'jsonpath={.metadata.labels.team}{"\n"}'
check "a client-side edit is an Update manager" 0 'php-apache edited' -- env EDITOR='sed -i "s/averageUtilization: 50/averageUtilization: 60/"' kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" edit hpa php-apache
check "applying over the edited field conflicts with kubectl-edit" 1 'conflicts? with "kubectl-edit" using autoscaling/v2' -- kc apply --server-side -f "$HPA"

# Other served types: a Deployment (containers merged by name) and Karmada's FederatedHPA.
K=$HERE/../../manifests/karmada
check "apply --server-side a Deployment" 0 'deployment.apps/nginx serverside-applied' -- kc apply --server-side -f "$K/nginx-deployment.yaml"
check "apply --server-side a FederatedHPA" 0 'federatedhpa.autoscaling.karmada.io/nginx serverside-applied' -- kc apply --server-side -f "$K/federatedhpa.yaml"
check "the Deployment's container is a list-map entry" 0 'k:\{"name":"nginx"\}:' -- kc get deploy nginx -o yaml --show-managed-fields

# The member-sim serves through the same REST layer.
stop_server
start_member_sim --name member1
check "apply --server-side against a member-sim" 0 'php-apache serverside-applied' -- kc apply --server-side -f "$HPA"
RV1=$(kc get hpa php-apache -o 'jsonpath={.metadata.resourceVersion}')
kc apply --server-side -f "$HPA" >/dev/null
check "the member-sim's unchanged apply keeps the resourceVersion" 0 "^$RV1\$" -- kc get hpa php-apache -o 'jsonpath={.metadata.resourceVersion}{"\n"}'

summary
