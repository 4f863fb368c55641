#!/usr/bin/env bash
# `kubectl explain` against `fedhpa apiserver` and `fedhpa member-sim`: kubectl reads the
# descriptions from /openapi/v3 and prints them for types and fields, fedhpa's own and Karmada's
# included. Usage: explain_kubectl.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

# described NAME RESOURCE.PATH: kubectl explain prints that path with a description for it and for
# each of its fields (no "<empty>", no "<no description>").
described() {
  local name=$1 path=$2 output status=0
  output=$(kc explain "$path" 2>&1) || status=$?
  if [ "$status" -ne 0 ] || grep -Eq '<empty>|<no description>' <<<"$output"; then
    not_ok "$name" "exit $status" "$output"
  else
    ok "$name"
  fi
}

start_server "$E2E_DIR/data"

check "explain hpa.spec.maxReplicas prints the field" 0 '^FIELD: maxReplicas <integer>' -- kc explain hpa.spec.maxReplicas
check "explain hpa.spec.maxReplicas prints fedhpa's description" 0 \
  '^ +Most replicas, summed over the member clusters; fedhpa splits it' -- kc explain hpa.spec.maxReplicas
check "explain hpa describes the kind" 0 '^ +Scales a workload between limits by its metrics\.' -- kc explain hpa
check "explain hpa describes its fields" 0 '^ +The desired autoscaling, for the whole federation\.' -- kc explain hpa
check "explain hpa.metadata.annotations names the federation annotations" 0 'federation\.kubernetes\.io/hpa-preferences' -- \
  kc explain hpa.metadata.annotations
check "explain --api-version=autoscaling/v1 describes v1's CPU target" 0 '^ +The CPU utilization \(percent of requests\)' -- \
  kc explain hpa.spec.targetCPUUtilizationPercentage --api-version=autoscaling/v1
check "explain fhpa.spec.scaleTargetRef prints what fedhpa does with it" 0 \
  '^ +The workload to scale \(a Deployment\)\. If another federated HPA already' -- kc explain fhpa.spec.scaleTargetRef
check "explain fhpa.spec.scaleTargetRef lists its fields" 0 '^ +Kind of the referent, e\.g\. Deployment\.' -- \
  kc explain fhpa.spec.scaleTargetRef
check "explain fhpa.spec says which fields are mirrored" 0 'mirrored onto the owned HPA' -- kc explain fhpa.spec
check "explain cronfhpa.spec.rules.schedule" 0 'standard 5-field cron expression' -- kc explain cronfhpa.spec.rules.schedule
check "explain clusters.spec.secretRef" 0 'key kubeconfig' -- kc explain clusters.spec.secretRef
check "explain --recursive walks every level" 0 '^ +averageUtilization\s+<integer>' -- kc explain hpa --recursive
for path in hpa hpa.spec hpa.spec.metrics.resource.target hpa.spec.behavior.scaleUp hpa.status hpa.metadata \
  hpa.metadata.ownerReferences fhpa fhpa.spec fhpa.status cronfhpa cronfhpa.spec.rules cronfhpa.status.executionHistories \
  deployments.spec deployments.spec.template.spec.containers clusters clusters.spec clusters.status namespaces secrets \
  events leases.spec roles.rules rolebindings clusterroles clusterrolebindings.subjects selfsubjectaccessreviews.spec \
  subjectaccessreviews.spec.resourceAttributes; do
  described "explain $path: every field described" "$path"
done
stop_server

# The member-sim serves the same types (Clusters aside), with the same descriptions.
start_member_sim
check "member-sim: explain hpa.spec.maxReplicas" 0 '^ +Most replicas, summed over the member clusters' -- \
  kc explain hpa.spec.maxReplicas
described "member-sim: explain deployments.spec" deployments.spec

summary
