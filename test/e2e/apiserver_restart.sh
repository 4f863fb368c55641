#!/usr/bin/env bash
# Objects outlive the server: a clean stop (SIGTERM) and a crash (SIGKILL) on the same data dir
# keep objects, uids and resourceVersions, and revisions go on increasing.
# Usage: apiserver_restart.sh path/to/fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"

DATA=$E2E_DIR/data
identity() { kc get "$@" -o 'jsonpath={.metadata.uid} {.metadata.resourceVersion}'; }

start_server "$DATA"
kc create -f "$M/hpa-v2.yaml" >/dev/null
kc create -f "$M/cluster.yaml" >/dev/null
kc create secret generic member1 -n federation-system --from-literal=kubeconfig=apiVersion >/dev/null
HPA_BEFORE=$(identity hpa php-apache)
CLUSTER_BEFORE=$(identity cluster member1)
SECRET_BEFORE=$(identity secret member1 -n federation-system)

stop_server TERM
start_server "$DATA"
check "the HPA survives a restart with its uid and resourceVersion" 0 "^$HPA_BEFORE\$" -- identity hpa php-apache
check "the Cluster survives" 0 "^$CLUSTER_BEFORE\$" -- identity cluster member1
check "the Secret survives" 0 "^$SECRET_BEFORE\$" -- identity secret member1 -n federation-system
check "the Secret's data survives" 0 '^YXBpVmVyc2lvbg==$' -- kc get secret member1 -n federation-system -o 'jsonpath={.data.kubeconfig}'
OLD_RV=${HPA_BEFORE#* }
kc patch hpa php-apache --type=merge -p '{"spec":{"maxReplicas":7}}' >/dev/null
NEW_RV=$(kc get hpa php-apache -o 'jsonpath={.metadata.resourceVersion}')
if [ "$NEW_RV" -gt "$OLD_RV" ]; then ok "a write after the restart gets a larger resourceVersion ($OLD_RV -> $NEW_RV)"; else not_ok "resourceVersion went from $OLD_RV to $NEW_RV"; fi

kc create -f "$M/hpa-v1.yaml" >/dev/null
FRONTEND=$(identity hpa frontend)
stop_server KILL
start_server "$DATA"
check "an acknowledged write survives SIGKILL" 0 "^$FRONTEND\$" -- identity hpa frontend
check "the patch before the crash is there" 0 '^7$' -- kc get hpa php-apache -o 'jsonpath={.spec.maxReplicas}'

summary
