#!/usr/bin/env bash
# Stock kubectl against `fedhpa apiserver`: every command of the issue's list, output and exit
# status. Usage: apiserver_kubectl.sh path/to/fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

start_server "$E2E_DIR/data"

check "kubectl version reports the server" 0 '^Server Version: v1\.32\.0' -- kc version
check "create -f (autoscaling/v2)" 0 'horizontalpodautoscaler.autoscaling/php-apache created' -- kc create -f "$M/hpa-v2.yaml"
check "create -f (autoscaling/v1)" 0 'horizontalpodautoscaler.autoscaling/frontend created' -- kc create -f "$M/hpa-v1.yaml"
check "create twice is AlreadyExists" 1 'AlreadyExists.*"php-apache" already exists' -- kc create -f "$M/hpa-v2.yaml"
check "invalid HPA: first cause" 1 'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`' -- kc create -f "$M/hpa-invalid.yaml"
check "invalid HPA: second cause" 1 '^\* spec.scaleTargetRef.name: Required value' -- kc create -f "$M/hpa-invalid.yaml"
check "unknown field is refused under Strict" 1 'BadRequest.*strict decoding error: unknown field "spec.foo"' -- kc create -f "$M/hpa-unknown-field.yaml"
check "unknown field warns with --validate=warn" 0 '^Warning: unknown field "spec.foo"' -- kc create -f "$M/hpa-unknown-field.yaml" --validate=warn

sed 's/name: php-apache/name: applied/' "$M/hpa-v2.yaml" > "$E2E_DIR/applied.yaml"
check "apply creates" 0 'horizontalpodautoscaler.autoscaling/applied created' -- kc apply -f "$E2E_DIR/applied.yaml"
sed -i 's/maxReplicas: 10/maxReplicas: 11/' "$E2E_DIR/applied.yaml"
check "apply configures" 0 'horizontalpodautoscaler.autoscaling/applied configured' -- kc apply -f "$E2E_DIR/applied.yaml"
check "apply again is unchanged" 0 'horizontalpodautoscaler.autoscaling/applied unchanged' -- kc apply -f "$E2E_DIR/applied.yaml"

check "get hpa: the columns" 0 '^NAME +REFERENCE +TARGETS +MINPODS +MAXPODS +REPLICAS +AGE$' -- kc get hpa
check "get hpa: a row" 0 '^php-apache +Deployment/php-apache +cpu: <unknown>/50% +1 +10 +0 +[0-9]+s$' -- kc get hpa
check "get hpa: a v1-created row read through v2" 0 '^frontend +Deployment/frontend +cpu: <unknown>/70% +2 +6 +0 ' -- kc get hpa
check "get hpa -o wide" 0 '^php-apache +Deployment/php-apache +cpu: <unknown>/50% +1 +10 +0 ' -- kc get hpa -o wide
check "get hpa -o yaml" 0 '^ +averageUtilization: 50$' -- kc get hpa php-apache -o yaml
check "get hpa -o json" 0 '"maxReplicas": 10,?$' -- kc get hpa php-apache -o json
check "get hpa -A shows the namespace" 0 '^NAMESPACE +NAME +REFERENCE' -- kc get hpa -A
check "get hpa -A rows" 0 '^default +php-apache +Deployment/php-apache' -- kc get hpa -A
check "the same HPA through autoscaling/v1" 0 '"targetCPUUtilizationPercentage":50' -- api GET /apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/php-apache

kc get hpa php-apache -w >"$E2E_DIR/watch.out" 2>&1 &
WATCH_PID=$!
sleep 2
kc patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":13}}' >/dev/null
sleep 2
kill "$WATCH_PID" 2>/dev/null || true
wait "$WATCH_PID" 2>/dev/null || true
check "get -w sees a later patch" 0 '^php-apache +Deployment/php-apache +cpu: <unknown>/50% +1 +13 ' -- cat "$E2E_DIR/watch.out"
kc patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":10}}' >/dev/null

UID_OF_HPA=$(kc get hpa php-apache -o jsonpath='{.metadata.uid}')
api POST /api/v1/namespaces/default/events "{\"metadata\":{\"name\":\"php-apache.e2e\"},\"involvedObject\":{\"kind\":\"HorizontalPodAutoscaler\",\"namespace\":\"default\",\"name\":\"php-apache\",\"uid\":\"$UID_OF_HPA\",\"apiVersion\":\"autoscaling/v2\"},\"reason\":\"SuccessfulRescale\",\"message\":\"New size: 3; reason: e2e\",\"type\":\"Normal\",\"source\":{\"component\":\"horizontal-pod-autoscaler\"},\"firstTimestamp\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"lastTimestamp\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"count\":1}" >/dev/null
api POST /api/v1/namespaces/default/events "{\"metadata\":{\"name\":\"other.e2e\"},\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"other\"},\"reason\":\"Unrelated\",\"message\":\"not about the HPA\",\"type\":\"Normal\"}" >/dev/null
check "describe hpa shows the spec" 0 '^Max replicas: +10$' -- kc describe hpa php-apache
check "describe hpa shows its event" 0 'Normal +SuccessfulRescale +.*horizontal-pod-autoscaler +New size: 3; reason: e2e' -- kc describe hpa php-apache
DESCRIBE=$(kc describe hpa php-apache)
if grep -q Unrelated <<<"$DESCRIBE"; then not_ok "describe hpa leaves other objects' events out" "$DESCRIBE"; else ok "describe hpa leaves other objects' events out"; fi

check "edit with an EDITOR" 0 'horizontalpodautoscaler.autoscaling/php-apache edited' -- env EDITOR='sed -i "s/maxReplicas: 10/maxReplicas: 15/"' kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" edit hpa php-apache
check "edit took effect" 0 '^15$' -- kc get hpa php-apache -o 'jsonpath={.spec.maxReplicas}{"\n"}'
check "patch (strategic merge, the default)" 0 'php-apache patched$' -- kc patch hpa php-apache -p '{"spec":{"maxReplicas":12}}'
check "patch --type=merge" 0 'php-apache patched$' -- kc patch hpa php-apache --type=merge -p '{"spec":{"minReplicas":2}}'
check "patch --type=json" 0 'php-apache patched$' -- kc patch hpa php-apache --type=json -p '[{"op":"replace","path":"/spec/maxReplicas","value":14}]'
check "patch with no change" 0 'php-apache patched \(no change\)' -- kc patch hpa php-apache --type=merge -p '{"spec":{"minReplicas":2}}'
check "patched values" 0 '^2 14$' -- kc get hpa php-apache -o 'jsonpath={.spec.minReplicas} {.spec.maxReplicas}{"\n"}'

kc get hpa php-apache -o yaml >"$E2E_DIR/stale.yaml"
kc patch hpa php-apache -p '{"spec":{"maxReplicas":16}}' >/dev/null
check "replace with a stale resourceVersion is a Conflict" 1 'Conflict.*the object has been modified' -- kc replace -f "$E2E_DIR/stale.yaml"

check "create a Deployment" 0 'deployment.apps/web created' -- kc create -f "$M/deployment.yaml"
check "get deploy" 0 '^web +0/2 +0 +0 +[0-9]+s$' -- kc get deploy
check "autoscale the Deployment (protobuf body)" 0 'horizontalpodautoscaler.autoscaling/web autoscaled' -- kc autoscale deployment web --min=1 --max=5 --cpu-percent=60
check "the autoscaled HPA" 0 '^web +Deployment/web +cpu: <unknown>/60% +1 +5 +0 ' -- kc get hpa web
check "autoscale of a missing Deployment" 1 'NotFound.*deployments.apps "nope" not found' -- kc autoscale deployment nope --max=3

check "create a Cluster" 0 'cluster.federation/member1 created' -- kc create -f "$M/cluster.yaml"
check "get clusters: the columns" 0 '^NAME +SERVER +READY +AGE$' -- kc get clusters
check "get clusters: a row" 0 '^member1 +https://10\.0\.0\.1:6443 +Unknown +[0-9]+s$' -- kc get clusters

check "api-resources lists hpa" 0 '^horizontalpodautoscalers +hpa +autoscaling/v2 +true +HorizontalPodAutoscaler$' -- kc api-resources
check "api-resources lists deploy" 0 '^deployments +deploy +apps/v1 +true +Deployment$' -- kc api-resources
check "api-resources lists clusters" 0 '^clusters +federation/v1beta1 +false +Cluster$' -- kc api-resources
check "api-versions" 0 '^federation/v1beta1$' -- kc api-versions
check "api-versions (autoscaling/v1)" 0 '^autoscaling/v1$' -- kc api-versions

for file in "$HERE"/../../manifests/*.yaml; do
  check "manifests/$(basename "$file") is accepted (server-side dry run)" 0 '(created|configured) \(server dry run\)' -- kc apply --dry-run=server -f "$file"
done

# A file with kinds fedhpa does not serve: validation falls back to /openapi/v2 (protobuf) and the
# empty CustomResourceDefinition list, as against kube-apiserver; each unknown kind gets kubectl's
# own message and the rest of the file is applied.
check "apply of a file with unknown kinds applies the known one" 1 '^horizontalpodautoscaler.autoscaling/mixed-file created$' -- kc apply -f "$M/unknown-kinds.yaml"
check "an unknown custom kind is reported on its own" 1 'resource mapping not found for name: "gadget" .*no matches for kind "Widget" in version "example.com/v1"' -- kc apply -f "$M/unknown-kinds.yaml"
check "an unserved core kind is reported on its own" 1 'no matches for kind "PersistentVolumeClaim" in version "v1"' -- kc apply -f "$M/unknown-kinds.yaml"
check "an unserved apps kind is reported on its own" 1 'no matches for kind "StatefulSet" in version "apps/v1"' -- kc apply -f "$M/unknown-kinds.yaml"
check "the known object of that file is there" 0 '^mixed-file +Deployment/mixed-file ' -- kc get hpa mixed-file
check "create -f reports the same per object" 1 'no matches for kind "Widget"' -- kc create -f "$M/unknown-kinds.yaml"
check "/openapi/v2 answers a JSON client in JSON" 0 '"swagger": ?"2.0"' -- api GET /openapi/v2
check "CustomResourceDefinitions: none, and none can be made" 1 'MethodNotAllowed' -- kc create -f - <<<'{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"}}'

check "delete (background)" 0 'horizontalpodautoscaler.autoscaling "applied" deleted' -- kc delete hpa applied
check "delete --cascade=foreground" 0 'horizontalpodautoscaler.autoscaling "frontend" deleted' -- kc delete hpa frontend --cascade=foreground
check "delete --cascade=orphan" 0 'horizontalpodautoscaler.autoscaling "web" deleted' -- timeout 30 kubectl --kubeconfig "$E2E_DIR/kubeconfig" --cache-dir "$E2E_DIR/cache" delete hpa web --cascade=orphan
check "deleted HPAs are gone" 0 '^php-apache$' -- kc get hpa -o 'jsonpath={range .items[*]}{.metadata.name}{"\n"}{end}'
check "get of a deleted HPA is NotFound" 1 'NotFound.*"applied" not found' -- kc get hpa applied

summary
