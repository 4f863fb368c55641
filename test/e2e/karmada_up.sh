#!/usr/bin/env bash
# Karmada's front door against `fedhpa up`: the FederatedHPA of manifests/karmada/ applied
# unchanged spreads per-member HPAs exactly as the equivalent federated HPA does, `kubectl get
# fhpa` prints Karmada's columns, delete cascades; CronFederatedHPA rules firing every minute raise
# the FederatedHPA's limits (the members follow) and set a federated Deployment's replicas, while a
# suspended rule does not fire. The cron cases share one wait for the next minute.
# Usage: karmada_up.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
KARMADA=$HERE/../../manifests/karmada
source "$HERE/lib.sh"

start_up

# "min max" of NAMESPACE/nginx's HPA in every member, "-" where it has none.
limits() {
  local out=""
  for m in member1 member2 member3; do
    out+=$(k --context=$m -n "$1" get hpa nginx -o 'jsonpath={.spec.minReplicas} {.spec.maxReplicas}' 2>/dev/null || echo "-")"|"
  done
  echo "${out%|}"
}
sums() { limits "$1" | tr '|' '\n' | awk '$1 != "-" {max += $2; if (min == "" || $1 < min) min = $1} END {print max, min}'; }
# wait_minute NAME PATTERN -- COMMAND...: as wait_for, but up to 100 s (a rule firing every minute).
wait_minute() {
  local name=$1 pattern=$2 output=""
  shift 3
  for _ in $(seq 1 200); do
    output=$("$@" 2>&1) || true
    if grep -Eq -- "$pattern" <<<"$output"; then ok "$name"; return; fi
    sleep 0.5
  done
  not_ok "$name" "no match for $pattern within 100 s" "$output"
}

wait_for "members are Ready" '^member3 +https://127\.0\.0\.1:[0-9]+ +True ' -- fed get clusters
check "discovery lists autoscaling.karmada.io/v1alpha1" 0 '^federatedhpas +fhpa +autoscaling.karmada.io/v1alpha1 +true +FederatedHPA' -- fed api-resources
check "the nginx Deployment" 0 'deployment.apps/nginx created' -- fed apply -f "$KARMADA/nginx-deployment.yaml"
check "Karmada's FederatedHPA applies unchanged" 0 'federatedhpa.autoscaling.karmada.io/nginx created' -- fed apply -f "$KARMADA/federatedhpa.yaml"
wait_for "every member holds an HPA: Σ max = 10, every min >= 1" '^10 1$' -- sums default
check "the members' HPAs carry Karmada's behavior and metric" 0 '^10 10 10$' -- \
  k --context=member1 get hpa nginx -o 'jsonpath={.spec.behavior.scaleDown.stabilizationWindowSeconds} {.spec.behavior.scaleUp.stabilizationWindowSeconds} {.spec.metrics[0].resource.target.averageUtilization}'
check "kubectl get fhpa prints Karmada's columns" 0 '^NAME +REFERENCE-KIND +REFERENCE-NAME +MINPODS +MAXPODS +REPLICAS +AGE$' -- fed get fhpa
wait_for "with the FederatedHPA's values and the members' replicas" '^nginx +Deployment +nginx +1 +10 +[1-9][0-9]* +[0-9]+s$' -- fed get fhpa nginx
wait_for "the FederatedHPA reports it is federated" 'Federated.*True|True.*Federated' -- fed get fhpa nginx -o 'jsonpath={range .status.conditions[*]}{.type} {.status}{"\n"}{end}'
check "kubectl get fhpa -o wide adds the per-cluster column" 0 ' AGE +CLUSTERS$' -- fed get fhpa -o wide
wait_for "which names every member's share, as the HPA's" '^nginx +Deployment +nginx +1 +10 +[0-9]+ +[0-9a-z]+ +member1 1-[0-9]+ \([0-9]+\), member2 1-[0-9]+ \([0-9]+\), member3 1-[0-9]+ \([0-9]+\)$' -- fed get fhpa nginx -o wide

# The equivalent federated HPA, in a namespace of its own: the same partitioner, the same spread.
fed create namespace plain >/dev/null
fed -n plain apply -f "$KARMADA/nginx-deployment.yaml" >/dev/null
sed -e 's|autoscaling.karmada.io/v1alpha1|autoscaling/v2|' -e 's|kind: FederatedHPA|kind: HorizontalPodAutoscaler|' \
  "$KARMADA/federatedhpa.yaml" >"$E2E_DIR/equivalent-hpa.yaml"
check "the equivalent autoscaling/v2 HPA" 0 'horizontalpodautoscaler.autoscaling/nginx created' -- fed -n plain apply -f "$E2E_DIR/equivalent-hpa.yaml"
wait_for "it spreads too" '^10 1$' -- sums plain
check "per member, exactly as the FederatedHPA's" 0 "^$(limits default | sed 's/|/\\|/g')\$" -- limits plain

# Scheduled scaling: two CronFederatedHPAs, fired by the same minute.
sed -e 's/name: nginx/name: web/' -e 's/app: nginx/app: web/' -e 's/replicas: 1/replicas: 2/' "$KARMADA/nginx-deployment.yaml" | fed apply -f - >/dev/null
fed apply -f - >/dev/null <<'YAML'
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata:
  name: nginx-every-minute
spec:
  scaleTargetRef:
    apiVersion: autoscaling.karmada.io/v1alpha1
    kind: FederatedHPA
    name: nginx
  rules:
  - name: raise
    schedule: "* * * * *"
    timeZone: "Europe/Berlin"
    targetMinReplicas: 3
    targetMaxReplicas: 12
  - name: suspended
    schedule: "* * * * *"
    suspend: true
    targetMaxReplicas: 30
---
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata:
  name: web-every-minute
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  rules:
  - name: scale-web
    schedule: "*/1 * * * *"
    targetReplicas: 5
YAML
check "kubectl get cronfhpa prints Karmada's columns" 0 '^nginx-every-minute +FederatedHPA +nginx +[0-9]+s$' -- fed get cronfhpa
check "the next execution is scheduled" 0 '^raise [0-9-]+T[0-9:]+Z$' -- \
  fed get cronfhpa nginx-every-minute -o 'jsonpath={.status.executionHistories[0].ruleName} {.status.executionHistories[0].nextExecutionTime}'
wait_minute "within a minute the rule raises the FederatedHPA to min 3, max 12" '^3 12$' -- fed get fhpa nginx -o 'jsonpath={.spec.minReplicas} {.spec.maxReplicas}'
wait_for "the members follow: Σ max = 12" '^12 1$' -- sums default
check "the execution is recorded in status" 0 '^raise [0-9-]+T[0-9:]+:00Z 3 12$' -- \
  fed get cronfhpa nginx-every-minute -o 'jsonpath={.status.executionHistories[0].ruleName} {.status.executionHistories[0].successfulExecutions[0].scheduleTime} {.status.executionHistories[0].successfulExecutions[0].appliedMinReplicas} {.status.executionHistories[0].successfulExecutions[0].appliedMaxReplicas}'
check "and as an Event" 0 'ScaleSucceeded +cronfederatedhpa/nginx-every-minute +rule raise: set FederatedHPA default/nginx' -- fed get events
check "the suspended rule did not fire" 0 '^suspended  $' -- \
  fed get cronfhpa nginx-every-minute -o 'jsonpath={.status.executionHistories[1].ruleName} {.status.executionHistories[1].successfulExecutions} {.status.executionHistories[1].nextExecutionTime}'
wait_minute "the Deployment rule set the federated Deployment's replicas to 5" '^5$' -- fed get deploy web -o 'jsonpath={.spec.replicas}'
deploy_replicas() { for m in member1 member2 member3; do k --context=$m get deploy web -o 'jsonpath={.spec.replicas}' 2>/dev/null || echo -; echo -n " "; done; }
wait_for "spread over the members: 2 1 1... summing to 5" '^[0-9] +[0-9] +[0-9] *$' -- deploy_replicas
check "Σ 5" 0 '^5$' -- bash -c "echo \$(( $(deploy_replicas | tr ' ' '+')0 ))"

check "delete the CronFederatedHPAs" 0 'deleted' -- fed delete cronfhpa nginx-every-minute web-every-minute
check "delete the FederatedHPA" 0 'federatedhpa.autoscaling.karmada.io "nginx" deleted' -- fed delete fhpa nginx
wait_for "its federated HPA is gone" 'NotFound' -- fed get hpa nginx
wait_for "and so are the members' copies" '^-\|-\|-$' -- limits default

summary
