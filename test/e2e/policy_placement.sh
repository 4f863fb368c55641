#!/usr/bin/env bash
# Karmada's FederatedHPA guide against `fedhpa up` with three members, with real kubectl: its
# application file (manifests/karmada/nginx.yaml: Deployment, Service, PropagationPolicy placing
# both on member1 and member2 at static weights 1:1) and its FederatedHPA apply unchanged; the
# Deployment, Service and HPA land on member1 and member2 only, the max of 10 split 5/5; a weight
# moved to 2:1 moves max to 7/3 with Σ max never above 10 while it moves; deleting the policy
# leaves everything where it is (Karmada's behaviour); a Karmada field fedhpa does not act on is
# refused by name; `kubectl get pp -o wide` names what the policy placed where and follows a change
# of its clusterNames; a Deployment no HPA targets has its replicas divided by a policy's static
# weights, or duplicated on every member; each member allocates its Service copy a cluster IP of
# its own, which fedhpa's later writes keep. Usage: policy_placement.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
KARMADA=$HERE/../../manifests/karmada
source "$HERE/lib.sh"

start_up

# A JSONPath of one object on each member, joined by "|", "-" where the member has no such object.
per_member() {
  local kind=$1 name=$2 path=$3 out=""
  for m in member1 member2 member3; do
    out+=$(k --context=$m get "$kind" "$name" -o "jsonpath=$path" 2>/dev/null || echo "-")"|"
  done
  echo "${out%|}"
}
# "min max" of the nginx HPA on each member.
limits() { per_member hpa nginx '{.spec.minReplicas} {.spec.maxReplicas}'; }

wait_for "members are Ready" '^member3 +https://127\.0\.0\.1:[0-9]+ +True ' -- fed get clusters
check "discovery lists policy.karmada.io/v1alpha1 with Karmada's short name" 0 '^propagationpolicies +pp +policy.karmada.io/v1alpha1 +true +PropagationPolicy' -- fed api-resources
check "and ClusterPropagationPolicy, cluster-scoped" 0 '^clusterpropagationpolicies +cpp +policy.karmada.io/v1alpha1 +false +ClusterPropagationPolicy' -- fed api-resources

check "the guide's file applies unchanged: the Deployment" 0 '^deployment.apps/nginx created$' -- fed apply -f "$KARMADA/nginx.yaml"
check "the file applies again: the Service" 0 '^service/nginx-service unchanged$' -- fed apply -f "$KARMADA/nginx.yaml"
check "the file applies again: the PropagationPolicy" 0 '^propagationpolicy.policy.karmada.io/nginx-propagation unchanged$' -- fed apply -f "$KARMADA/nginx.yaml"
check "the guide's FederatedHPA" 0 'federatedhpa.autoscaling.karmada.io/nginx created' -- fed apply -f "$KARMADA/federatedhpa.yaml"
check "kubectl get pp: Karmada's printer columns" 0 '^nginx-propagation +Abort +0 +[0-9]+s$' -- fed get pp

wait_for "the Deployment is on member1 and member2 only" '^deployment/nginx\|deployment/nginx\|-$' -- on_members deployment/nginx
wait_for "the Service is on member1 and member2 only" '^service/nginx-service\|service/nginx-service\|-$' -- on_members service/nginx-service
wait_for "member1 allocated its copy a cluster IP from 10.96.0.0/12, as kube-apiserver does" \
  '^10\.(9[6-9]|10[0-9]|11[01])\.[0-9]{1,3}\.[0-9]{1,3}$' -- k --context=member1 get service nginx-service -o 'jsonpath={.spec.clusterIP}'
MEMBER1_IP=$(k --context=member1 get service nginx-service -o 'jsonpath={.spec.clusterIP}')
check "the federation's Service has none" 0 '^nginx-service +ClusterIP +<none> +<none> +80/TCP ' -- fed get service nginx-service
wait_for "the FederatedHPA's max is split 5/5 between them" '^1 5\|1 5\|-$' -- limits
wait_for "kubectl get pp -o wide: what the policy placed where (its Deployment, Service, and the HPA on that Deployment)" \
  '^nginx-propagation +Abort +0 +[0-9a-z]+ +Deployment/nginx: member1,member2; HorizontalPodAutoscaler/nginx: member1,member2; Service/nginx-service: member1,member2$' \
  -- fed get pp -o wide
check "the same in the policy's status, for its generation" 0 '^([0-9]+) \1 3 member1,member2$' -- \
  fed get pp nginx-propagation -o 'jsonpath={.metadata.generation} {.status.observedGeneration} {.status.placedCount} {.status.placements[0].clusters[0]},{.status.placements[0].clusters[1]}'
check "member3 never got an HPA" 0 '^-$' -- bash -c "kubectl --kubeconfig '$KUBECONFIG_FILE' --context=member3 get hpa nginx -o name 2>/dev/null || echo -"

# 2:1. The partitioner gives each member the largest-remainder share of 10 by weight: 20/3 = 6.67
# and 10/3 = 3.33 round down to 6 and 3, and the remaining replica goes to the largest remainder
# (member1's .67): 7/3, as Karmada's own static-weight division gives. The write phases lower
# member2 first and raise member1 only once that is acknowledged; each poll reads member1 (the one
# raised) before member2 (the one lowered), so a sum above 10 could only come from a raise sent
# before its lowering was acknowledged.
# A poller reads the members from before the patch until max has moved, as fast as kubectl goes.
touch "$E2E_DIR/polling"
(while [[ -e $E2E_DIR/polling ]]; do limits >>"$E2E_DIR/polls"; done) &
POLLER=$!
wait_for "the poller has read the members" '^1 5' -- cat "$E2E_DIR/polls"
check "a weight moved to 2:1" 0 'propagationpolicy.policy.karmada.io/nginx-propagation patched' -- \
  fed patch pp nginx-propagation --type=json -p '[{"op":"replace","path":"/spec/placement/replicaScheduling/weightPreference/staticWeightList/0/weight","value":2}]'
wait_for "max moves to 7/3" '^1 7\|1 3\|-$' -- limits
sleep 2  # a few more polls of the settled state
rm -f "$E2E_DIR/polling"
wait "$POLLER"
worst=$(awk -F'|' '{sum = 0; for (i = 1; i <= NF; i++) if ($i != "-") {split($i, l, " "); sum += l[2]; if (l[1] < 1) bad = 1}
                     if (sum > worst) worst = sum} END {print (bad ? "min0" : worst)}' "$E2E_DIR/polls")
polls=$(wc -l <"$E2E_DIR/polls")
if [[ $worst == 10 ]]; then ok "Σ max never above 10, no local min 0, in $polls polls ($(sort -u "$E2E_DIR/polls" | tr '\n' ';'))"; else
  not_ok "Σ max never above 10 and no local min 0" "worst: $worst" "$(cat "$E2E_DIR/polls")"; fi
wait_for "the FederatedHPA's wide column names the shares" 'member1 1-7 \([0-9]+\), member2 1-3 \([0-9]+\)$' -- fed get fhpa nginx -o wide

# Deleting the policy, as Karmada does: what it propagated stays where it is, no longer governed.
check "delete the policy" 0 'propagationpolicy.policy.karmada.io "nginx-propagation" deleted' -- fed delete pp nginx-propagation
check "the Deployment records the placement it keeps" 0 'nginx-propagation' -- \
  fed get deployment nginx -o 'jsonpath={.metadata.annotations.federation\.kubernetes\.io/propagation-placement}'
# Each check waits for a change made after the deletion to reach member1, so the reconcile that
# would have placed the object on member3 has run: the kept placement (2:1 over member1 and
# member2) splits a max of 12 into 8/4.
check "raise the FederatedHPA's max to 12" 0 'federatedhpa.autoscaling.karmada.io/nginx patched' -- \
  fed patch fhpa nginx --type=merge -p '{"spec":{"maxReplicas":12}}'
wait_for "the HPAs keep the policy's members and weights: 8/4" '^1 8\|1 4\|-$' -- limits
check "change the Deployment's pod template" 0 'deployment.apps/nginx patched' -- \
  fed patch deployment nginx --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"after":"deletion"}}}}}'
wait_for "the change reaches member1's copy" '^deletion$' -- k --context=member1 get deployment nginx -o 'jsonpath={.spec.template.metadata.annotations.after}'
check "the Deployment stays off member3" 0 '^deployment/nginx\|deployment/nginx\|-$' -- on_members deployment/nginx
check "label the Service" 0 'service/nginx-service labeled' -- fed label service nginx-service after=deletion
wait_for "the label reaches member1's copy" '^deletion$' -- k --context=member1 get service nginx-service -o 'jsonpath={.metadata.labels.after}'
check "member1's copy keeps the cluster IP it allocated" 0 "^${MEMBER1_IP//./\\.}\$" -- \
  k --context=member1 get service nginx-service -o 'jsonpath={.spec.clusterIP}'
check "the Service stays off member3" 0 '^service/nginx-service\|service/nginx-service\|-$' -- on_members service/nginx-service

# A Karmada field fedhpa does not act on is refused, by name, with kube's 422.
sed -e 's/name: nginx-propagation/name: spread/' -e 's/^  placement:$/  placement:\n    spreadConstraints:\n    - spreadByField: cluster\n      maxGroups: 2/' \
  "$KARMADA/nginx.yaml" | awk '/^kind: PropagationPolicy/,0' | sed '1i apiVersion: policy.karmada.io/v1alpha1' >"$E2E_DIR/spread.yaml"
check "spreadConstraints: refused, naming the field" 1 'spec.placement.spreadConstraints: Forbidden: not supported by fedhpa' -- fed apply -f "$E2E_DIR/spread.yaml"

# The wide column follows the policy: applied again, then narrowed to member1.
check "the policy applied again" 0 '^propagationpolicy.policy.karmada.io/nginx-propagation created$' -- fed apply -f "$KARMADA/nginx.yaml"
wait_for "kubectl get pp -o wide shows it placing on member1 and member2 again" \
  ' Deployment/nginx: member1,member2; HorizontalPodAutoscaler/nginx: member1,member2; Service/nginx-service: member1,member2$' -- fed get pp -o wide
check "clusterNames narrowed to member1" 0 'propagationpolicy.policy.karmada.io/nginx-propagation patched' -- \
  fed patch pp nginx-propagation --type=merge -p '{"spec":{"placement":{"clusterAffinity":{"clusterNames":["member1"]}}}}'
wait_for "kubectl get pp -o wide follows: member1 only" \
  ' Deployment/nginx: member1; HorizontalPodAutoscaler/nginx: member1; Service/nginx-service: member1$' -- fed get pp -o wide
wait_for "and so do the members: the Deployment is on member1 only" '^deployment/nginx\|-\|-$' -- on_members deployment/nginx

# A Deployment no HPA targets: its replicas follow the policy's replicaScheduling, as Karmada
# schedules them. Static weights 2:1 divide 6 into 4/2; Duplicated runs all 6 on each member.
cat >"$E2E_DIR/plain.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: plain
spec:
  replicas: 6
  selector:
    matchLabels: {app: plain}
  template:
    metadata:
      labels: {app: plain}
    spec:
      containers:
      - {name: plain, image: nginx}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: plain-propagation
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: plain}
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [member1]}, weight: 2}
        - {targetCluster: {clusterNames: [member2]}, weight: 1}
YAML
# spec.replicas of the plain Deployment on each member.
plain_replicas() { per_member deployment plain '{.spec.replicas}'; }
check "a Deployment without an HPA and its weighted policy" 0 'propagationpolicy.policy.karmada.io/plain-propagation created' -- \
  fed apply -f "$E2E_DIR/plain.yaml"
wait_for "its 6 replicas are divided 2:1: 4 on member1, 2 on member2, none on member3" '^4\|2\|-$' -- plain_replicas
check "the policy switched to Duplicated" 0 'propagationpolicy.policy.karmada.io/plain-propagation patched' -- \
  fed patch pp plain-propagation --type=merge -p '{"spec":{"placement":{"replicaScheduling":{"replicaSchedulingType":"Duplicated","replicaDivisionPreference":null,"weightPreference":null}}}}'
wait_for "every placed member runs all 6" '^6\|6\|-$' -- plain_replicas

summary
