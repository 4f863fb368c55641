#!/usr/bin/env bash
# A simulated member cluster as kubectl sees it: an HPA scales its Deployment to the demand set by
# annotation, reports saturation at its max, and records events. Usage: member_sim_kubectl.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

# Pods ready at once, and no downscale window: the idle Deployment goes to its minimum at the first sync.
start_member_sim --name member1 --hpa-sync-period 1s --pod-startup-delay 0s --horizontal-pod-autoscaler-downscale-stabilization 0s

# wait_for DESCRIPTION PATTERN -- COMMAND...: up to 20 s for COMMAND's output to match.

# docs/member-sim.md's example, command for command (create deployment sends a protobuf body).
check "create a Deployment" 0 'deployment.apps/web created' -- kc create deployment web --image=nginx
check "autoscale it: min 1, max 10, cpu 50%" 0 'horizontalpodautoscaler.autoscaling/web autoscaled' -- kc autoscale deployment web --min=1 --max=10 --cpu-percent=50
wait_for "idle, the HPA scales the Deployment down to its minimum" '^web +Deployment/web +cpu: 0%/50% +1 +10 +1 ' -- kc get hpa web
check "annotate a demand of 6 replicas" 0 'deployment.apps/web annotated' -- kc annotate deploy web sim.fedhpa.io/demand=6
wait_for "get hpa shows REPLICAS 6" '^web +Deployment/web +cpu: 50%/50% +1 +10 +6 ' -- kc get hpa web
check "the Deployment has 6 ready pods" 0 '^web +6/6 +6 +6 ' -- kc get deploy web
check "describe shows the rescale event" 0 'Normal +SuccessfulRescale .*horizontal-pod-autoscaler +New size: 6; reason: cpu resource utilization \(percentage of request\) above target' -- kc describe hpa web
check "describe shows the conditions" 0 'ScalingActive +True +ValidMetricFound' -- kc describe hpa web

kc annotate deploy web sim.fedhpa.io/demand=25 --overwrite >/dev/null
wait_for "above its max the HPA stays at 10" '^web +Deployment/web +cpu: 125%/50% +1 +10 +10 ' -- kc get hpa web
wait_for "and says TooManyReplicas" 'ScalingLimited +True +TooManyReplicas' -- kc describe hpa web
check "status: desired == current == max" 0 '^10 10 10$' -- kc get hpa web -o 'jsonpath={.status.desiredReplicas} {.status.currentReplicas} {.spec.maxReplicas}{"\n"}'

kc create -f "$M/hpa-v2.yaml" >/dev/null
wait_for "an HPA without its Deployment cannot get the scale" 'AbleToScale +False +FailedGetScale' -- kc describe hpa php-apache

summary
