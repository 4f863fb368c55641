#!/usr/bin/env bash
# An application's file (ConfigMap, Service, Deployment mounting the ConfigMap, HPA) applied to
# `fedhpa up` with real kubectl: every object is accepted, and the ConfigMap and Service land on
# every member the Deployment is on, follow changes, and go (or stay, orphaned) with the federated
# object. Usage: app_propagation.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

start_up


wait_for "members are Ready" '^member3 +https://127\.0\.0\.1:[0-9]+ +True ' -- fed get clusters
check "label member2 region=eu" 0 'cluster.federation/member2 labeled' -- fed label cluster member2 region=eu

check "the file applies: the ConfigMap" 0 '^configmap/web-config created$' -- fed apply -f "$M/app.yaml"
check "the file applies again, unchanged: the Service" 0 '^service/web unchanged$' -- fed apply -f "$M/app.yaml"
check "the file applies again, unchanged: the Deployment" 0 '^deployment.apps/web unchanged$' -- fed apply -f "$M/app.yaml"
check "the file applies again, unchanged: the HPA" 0 '^horizontalpodautoscaler.autoscaling/web unchanged$' -- fed apply -f "$M/app.yaml"
check "get configmaps: kube's columns" 0 '^web-config +2 +[0-9]+s$' -- fed get configmaps web-config
check "get services: kube's columns, no cluster IP in the federation" 0 '^web +ClusterIP +<none> +<none> +80/TCP +[0-9]+s$' -- fed get services web
check "get services: the header" 0 '^NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE$' -- fed get services

wait_for "the HPA holds every member" 'member1.*member2.*member3' -- fed get deploy web -o 'jsonpath={.metadata.annotations}'
wait_for "the Deployment is on every member" '^deployment/web\|deployment/web\|deployment/web$' -- on_members deployment/web
wait_for "the ConfigMap follows it to every member" '^configmap/web-config\|configmap/web-config\|configmap/web-config$' -- on_members configmap/web-config
wait_for "the Service follows it to every member" '^service/web\|service/web\|service/web$' -- on_members service/web
check "a member's ConfigMap copy has the data" 0 '^production$' -- k --context=member3 get configmap web-config -o 'jsonpath={.data.MODE}'
check "a member's Service copy has the ports and selector" 0 '^80 8080 web$' -- k --context=member1 get service web -o 'jsonpath={.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.selector.app}'
check "copies carry the managed-by label" 0 '^fedhpa$' -- k --context=member2 get configmap web-config -o 'jsonpath={.metadata.labels.federation\.kubernetes\.io/managed-by}'

check "change the federated ConfigMap" 0 'configmap/web-config patched' -- fed patch configmap web-config --type=merge -p '{"data":{"MODE":"staging"}}'
wait_for "the change reaches every member" '^staging staging staging$' -- bash -c "for m in member1 member2 member3; do kubectl --kubeconfig '$KUBECONFIG_FILE' --cache-dir '$E2E_DIR/cache' --context=\$m get configmap web-config -o 'jsonpath={.data.MODE} '; done | sed 's/ $//'"

check "a Deployment placed by a cluster selector, with its ConfigMap" 0 '^configmap/narrow-config created$' -- fed apply -f "$M/app-narrow.yaml"
wait_for "that Deployment is on member2 only" '^-\|deployment/narrow\|-$' -- on_members deployment/narrow
wait_for "its ConfigMap follows it to member2 only" '^-\|configmap/narrow-config\|-$' -- on_members configmap/narrow-config

# (kubectl create configmap sends protobuf, which the federation does not decode for ConfigMaps yet)
check "a ConfigMap no Deployment uses" 0 'configmap/standalone created' -- fed apply -f - <<<'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"standalone"},"data":{"a":"1"}}'
wait_for "goes to every Ready member" '^configmap/standalone\|configmap/standalone\|configmap/standalone$' -- on_members configmap/standalone
check "delete it --cascade=orphan" 0 'configmap "standalone" deleted' -- fed delete configmap standalone --cascade=orphan
wait_for "the federated one is gone" 'NotFound' -- fed get configmap standalone
check "the members keep their copies, released" 0 '^standalone \[\]$' -- k --context=member1 get configmap standalone -o 'jsonpath={.metadata.name} [{.metadata.labels.federation\.kubernetes\.io/managed-by}]'

check "delete the application's file" 0 'service "web" deleted' -- fed delete -f "$M/app.yaml"
wait_for "the ConfigMap copies go with it" '^-\|-\|-$' -- on_members configmap/web-config
wait_for "the Service copies go with it" '^-\|-\|-$' -- on_members service/web
wait_for "the Deployment copies go with it" '^-\|-\|-$' -- on_members deployment/web
check "the federated ConfigMap is gone" 1 'NotFound' -- fed get configmap web-config

summary
