#!/usr/bin/env bash
# kubectl's typed commands, which send protobuf bodies for built-in types and ask for protobuf
# answers first, against `fedhpa apiserver` and a `fedhpa member-sim`: create deployment, scale,
# set image, rollout status (member-sim: its Deployment controller reports the rollout), and the
# typed `create` subcommands of every built-in type each server serves (Services included).
# Usage: typed_kubectl.sh path/to/fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
trap on_exit EXIT

image_of() { kc get deploy web -o 'jsonpath={.spec.template.spec.containers[0].image}{"\n"}'; }

deployment_commands() {
  local where=$1
  check "$where: create deployment (a protobuf body)" 0 '^deployment.apps/web created$' -- kc create deployment web --image=nginx
  check "$where: the Deployment is as kubectl built it" 0 '^nginx$' -- image_of
  check "$where: scale (the scale subresource)" 0 '^deployment.apps/web scaled$' -- kc scale deployment web --replicas=3
  check "$where: scaled to 3" 0 '^3$' -- kc get deploy web -o 'jsonpath={.spec.replicas}{"\n"}'
  check "$where: set image" 0 '^deployment.apps/web image updated$' -- kc set image deployment/web nginx=nginx:1.27
  check "$where: the new image" 0 '^nginx:1.27$' -- image_of
  check "$where: create deployment twice: the protobuf Status read by kubectl" 1 '^error: failed to create deployment: deployments.apps "web" already exists$' -- kc create deployment web --image=nginx
  check "$where: autoscale (a protobuf HPA)" 0 'horizontalpodautoscaler.autoscaling/web autoscaled' -- kc autoscale deployment web --min=1 --max=5 --cpu-percent=60
  check "$where: describe reads it back through the typed client" 0 '^Min replicas: +1$' -- kc describe hpa web
}

typed_creates() {
  local where=$1
  check "$where: create namespace" 0 '^namespace/team-a created$' -- kc create namespace team-a
  check "$where: create secret generic" 0 '^secret/creds created$' -- kc create secret generic creds --from-literal=user=admin
  check "$where: the secret's data" 0 '^YWRtaW4=$' -- kc get secret creds -o 'jsonpath={.data.user}{"\n"}'
  check "$where: create configmap" 0 '^configmap/settings created$' -- kc create configmap settings --from-literal=mode=fast
  check "$where: the configmap's data" 0 '^fast$' -- kc get configmap settings -o 'jsonpath={.data.mode}{"\n"}'
  check "$where: create role" 0 '^role.rbac.authorization.k8s.io/reader created$' -- kc create role reader --verb=get,list --resource=deployments.apps
  check "$where: create rolebinding" 0 '^rolebinding.rbac.authorization.k8s.io/reader created$' -- kc create rolebinding reader --role=reader --user=alice
  check "$where: create clusterrole" 0 '^clusterrole.rbac.authorization.k8s.io/hpa-reader created$' -- kc create clusterrole hpa-reader --verb=get --resource=horizontalpodautoscalers.autoscaling
  check "$where: create clusterrolebinding" 0 '^clusterrolebinding.rbac.authorization.k8s.io/hpa-reader created$' -- kc create clusterrolebinding hpa-reader --clusterrole=hpa-reader --user=alice
  check "$where: auth can-i (a protobuf review)" 0 '^yes$' -- kc auth can-i get deployments
  check "$where: create service clusterip" 0 '^service/web created$' -- kc create service clusterip web --tcp=80:8080
  check "$where: the Service's port as kubectl built it" 0 '^80-8080 80 8080 TCP$' -- \
    kc get service web -o 'jsonpath={.spec.ports[0].name} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.ports[0].protocol}{"\n"}'
  check "$where: create service nodeport" 0 '^service/web-np created$' -- kc create service nodeport web-np --tcp=8443:443
  check "$where: its type" 0 '^NodePort$' -- kc get service web-np -o 'jsonpath={.spec.type}{"\n"}'
  check "$where: create service externalname" 0 '^service/db created$' -- kc create service externalname db --external-name db.example.com
  check "$where: get services reads them back" 0 'db +ExternalName' -- kc get services
}

start_server "$E2E_DIR/data"
deployment_commands "federation"
typed_creates "federation"
stop_server

rm -rf "$E2E_DIR/cache"
start_member_sim --name member1 --pod-startup-delay 0s
deployment_commands "member-sim"
check "member-sim: rollout status" 0 'deployment "web" successfully rolled out' -- kc rollout status deployment/web --timeout=60s
typed_creates "member-sim"
check "member-sim: create serviceaccount" 0 '^serviceaccount/builder created$' -- kc create serviceaccount builder
check "member-sim: create token (a protobuf TokenRequest)" 0 '^eyJ' -- kc create token builder

summary
