#!/usr/bin/env bash
# `fedhpa join` / `unjoin` as an operator uses them: one kubeconfig with the federation's context
# and a member's; kubectl then sees the Cluster and its Secret. Usage: join_kubectl.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

"$FEDHPA" member-sim --listen 127.0.0.1:0 --name member1 >"$E2E_DIR/member.out" 2>"$E2E_DIR/member.err" &
EXTRA_PIDS+=($!)
for _ in $(seq 1 100); do grep -q '^listening on' "$E2E_DIR/member.out" && break; sleep 0.1; done
MEMBER_URL=$(head -1 "$E2E_DIR/member.out" | sed 's/^listening on //')
start_server "$E2E_DIR/data"
# A second cluster and context in the same file, as `kubectl config set-context` would add them.
python3 - "$E2E_DIR/kubeconfig" "$MEMBER_URL" <<'PY'
import sys
path, url = sys.argv[1], sys.argv[2]
text = open(path).read()
text = text.replace("clusters:\n", f"clusters:\n- name: member1\n  cluster: {{server: \"{url}\"}}\n", 1)
text = text.replace("contexts:\n", "contexts:\n- name: member1\n  context: {cluster: member1, user: admin, namespace: default}\n", 1)
# And one whose server is not there.
text = text.replace("clusters:\n", "clusters:\n- name: down\n  cluster: {server: \"http://127.0.0.1:1\"}\n", 1)
text = text.replace("contexts:\n", "contexts:\n- name: down\n  context: {cluster: down, user: admin}\n", 1)
open(path, "w").write(text)
PY

check "join" 0 '^cluster.federation/member1 joined as system:serviceaccount:fedhpa-system:fedhpa-controller-manager, token until ' -- "$FEDHPA" join member1 --cluster-context member1 --kubeconfig "$E2E_DIR/kubeconfig"
check "get clusters shows it" 0 "^member1 +${MEMBER_URL//./\\.} +Unknown +[0-9]+s$" -- kc get clusters
check "its Secret holds the member's kubeconfig" 0 "server: ${MEMBER_URL//./\\.}" -- bash -c "kubectl --kubeconfig '$E2E_DIR/kubeconfig' --cache-dir '$E2E_DIR/cache' get secret member1 -n federation-system -o jsonpath='{.data.kubeconfig}' | base64 -d"
check "joining twice is idempotent" 0 '^cluster.federation/member1 joined as ' -- "$FEDHPA" join member1 --cluster-context member1 --kubeconfig "$E2E_DIR/kubeconfig"
check "an unknown context is a clear error" 1 'context "nope" not found' -- "$FEDHPA" join member2 --cluster-context nope --kubeconfig "$E2E_DIR/kubeconfig"
# Errors as kubectl words them: the server's answer with its reason, or a plain "error:".
check "a lifetime the member refuses: its answer, as kubectl prints one" 1 '^Error from server \(Invalid\): member member2: .*expirationSeconds' -- \
  "$FEDHPA" join member2 --cluster-context member1 --token-lifetime 5s --kubeconfig "$E2E_DIR/kubeconfig"
check "a member that does not answer: a plain error" 1 '^error: member member2: ' -- \
  "$FEDHPA" join member2 --cluster-context down --kubeconfig "$E2E_DIR/kubeconfig"
check "the dry run prints the member's identity and writes nothing" 0 '^  name: "fedhpa:controller-manager"$' -- "$FEDHPA" join member2 --cluster-context member1 --dry-run --kubeconfig "$E2E_DIR/kubeconfig"
check "so member2 was not joined" 1 'NotFound' -- kc get cluster member2
check "unjoin" 0 '^cluster.federation/member1 unjoined; 0 copies released .*; its identity in the member removed \(6 objects\)$' -- "$FEDHPA" unjoin member1 --kubeconfig "$E2E_DIR/kubeconfig"
check "the Cluster is gone" 0 'No resources found' -- kc get clusters
check "the Secret is gone" 1 'NotFound' -- kc get secret member1 -n federation-system

summary
