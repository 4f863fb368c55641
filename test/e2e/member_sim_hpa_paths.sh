#!/usr/bin/env bash
# kube's two HPA paths on a member-sim at sync 1 s, from 1 replica with 32 replicas' worth of
# demand: an HPA without spec.behavior (kubectl autoscale, autoscaling/v1) may double, or reach 4,
# at every sync: 1 -> 4 -> 8 -> 16 -> 32; one with `behavior: {}` gets autoscaling/v2's default
# policies (4 pods or 100 % per 15 s): 1 -> 5, and 5 until the 15 s period is over.
# Usage: member_sim_hpa_paths.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

start_member_sim --name member1 --hpa-sync-period 1s --pod-startup-delay 0s

# deployment NAME: one replica, 32 replicas' worth of demand at the HPA's target.
deployment() {
  kc apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  annotations: {sim.fedhpa.io/demand: "32"}
spec:
  replicas: 1
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec: {containers: [{name: app, image: registry.k8s.io/hpa-example}]}
YAML
}

# hpa NAME BEHAVIOR_LINE: autoscaling/v2, cpu 50 %, 1..64 replicas.
hpa() {
  kc apply -f - >/dev/null <<YAML
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: $1}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $1}
  minReplicas: 1
  maxReplicas: 64
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
$2
YAML
}

# sizes NAME SECONDS: the Deployment's spec.replicas, a line each time it changes, over SECONDS,
# sampled every 0.1 s straight from the API (kubectl is too slow to see every 1 s sync).
sizes() {
  python3 - "http://127.0.0.1:$PORT/apis/apps/v1/namespaces/default/deployments/$1" "$2" <<'PY'
import json, sys, time, urllib.request
url, seconds = sys.argv[1], float(sys.argv[2])
seen, end = [], time.monotonic() + seconds
while time.monotonic() < end:
    try:
        replicas = json.load(urllib.request.urlopen(url))["spec"]["replicas"]
        if not seen or seen[-1] != replicas:
            seen.append(replicas)
            print(replicas, flush=True)
    except Exception:
        pass
    time.sleep(0.1)
PY
}

# watch NAME BEHAVIOR_LINE: creates the HPA once the sampler has seen the first size; the sizes in
# order, space-separated, in $E2E_DIR/NAME.sizes.
watch() {
  sizes "$1" 10 >"$E2E_DIR/$1.lines" &
  local sampler=$!
  for _ in $(seq 1 100); do [ -s "$E2E_DIR/$1.lines" ] && break; sleep 0.1; done
  hpa "$1" "$2"
  wait "$sampler"
  paste -sd' ' "$E2E_DIR/$1.lines" >"$E2E_DIR/$1.sizes"
}

deployment legacy
watch legacy ""
check "without behavior: 1 -> 4 -> 8 -> 16 -> 32, one step per sync" 0 '^1 4 8 16 32$' -- cat "$E2E_DIR/legacy.sizes"
check "and it says why it stopped at each step" 0 'New size: 32; reason: cpu resource utilization' -- kc describe hpa legacy

deployment shaped
watch shaped "  behavior: {}"
check "with behavior {}: 1 -> 5, then 5 until the 15 s period is over" 0 '^1 5$' -- cat "$E2E_DIR/shaped.sizes"
check "held by the policy: ScaleUpLimit" 0 'ScalingLimited +True +ScaleUpLimit' -- kc describe hpa shaped
wait_for_size() {
  for _ in $(seq 1 100); do [ "$(kc get deploy shaped -o 'jsonpath={.spec.replicas}')" = "$1" ] && return 0; sleep 0.2; done
  return 1
}
check "the next period doubles: 10" 0 '' -- wait_for_size 10

summary
