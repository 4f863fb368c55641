#!/usr/bin/env bash
# The controller-manager reaching the federation API only through an exec credential plugin (a
# script that counts its runs per process and prints the token in current-token, valid an hour):
# the plugin runs once for the controller-manager however many requests it makes, and once more
# when the API server stops accepting that token (401), after which the controller carries on.
# Then a context shaped as EKS's and GKE's kubeconfigs are (a client.authentication.k8s.io/v1beta1
# plugin with args and env and no interactiveMode): a controller-manager run with it takes the
# Lease, the plugin ran once, with its args and env, and was told the v1beta1 ExecCredential with
# interactive false.
# Usage: exec_credentials.sh fedhpa
FEDHPA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

cat >"$E2E_DIR/plugin.sh" <<PLUGIN
#!/bin/bash
echo "\$PPID" >> "$E2E_DIR/plugin-runs"
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"%s","expirationTimestamp":"%s"}}' \
  "\$(cat "$E2E_DIR/current-token")" "\$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
PLUGIN
chmod +x "$E2E_DIR/plugin.sh"
echo token-1 >"$E2E_DIR/current-token"
echo 'token-1,fedhpa-admin,uid-1,"system:masters"' >"$E2E_DIR/tokens.csv"

start_fedhpa apiserver --listen 127.0.0.1:0 --data-dir "$E2E_DIR/data" --token-auth-file "$E2E_DIR/tokens.csv"
# The federation's user runs the plugin (a path relative to the kubeconfig's directory).
use_plugin() { sed -i 's#^  user: {}$#  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ./plugin.sh, interactiveMode: Never}}#' "$E2E_DIR/kubeconfig"; }
use_plugin
# kubectl sends no credential to an http:// server, so the checks use curl with the current token.
lease() { curl -s -H "Authorization: Bearer $(cat "$E2E_DIR/current-token")" "http://127.0.0.1:$PORT/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/fedhpa-controller-manager"; }
renewed() { lease | python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"]["renewTime"])' 2>/dev/null; }
renewed_since() { [ "$(renewed)" != "$1" ] && echo renewed; }
runs_of() { grep -c "^$1\$" "$E2E_DIR/plugin-runs" 2>/dev/null || true; }

check "anonymous requests are refused" 0 '^401$' -- curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/namespaces"
start_controller cm
wait_for "the controller-manager, authenticated by the plugin, holds the Lease" "_${PID_cm}\"" -- lease
FIRST=$(renewed)
wait_for "and renews it (many requests)" '^renewed$' -- renewed_since "$FIRST"
sleep 3
check "the plugin ran once for the controller-manager" 0 '^1$' -- runs_of "$PID_cm"

# The token is revoked: the API server restarts on the same port accepting only token-2, which the
# plugin now prints. The controller's next request gets a 401, runs the plugin once more, goes on.
echo token-2 >"$E2E_DIR/current-token"
echo 'token-2,fedhpa-admin,uid-1,"system:masters"' >"$E2E_DIR/tokens.csv"
stop_server
start_fedhpa apiserver --listen "127.0.0.1:$PORT" --data-dir "$E2E_DIR/data" --token-auth-file "$E2E_DIR/tokens.csv"
use_plugin  # start_fedhpa wrote the kubeconfig afresh
check "token-1 no longer works" 0 '^401$' -- curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer token-1' "http://127.0.0.1:$PORT/api/v1/namespaces"
BEFORE=$(renewed)
wait_for "the controller-manager renews the Lease with the new token" '^renewed$' -- renewed_since "$BEFORE"
sleep 3
check "the plugin ran once more after the 401, not once per request" 0 '^2$' -- runs_of "$PID_cm"
if kill -0 "$PID_cm" 2>/dev/null; then ok "the controller-manager is still running"; else not_ok "the controller-manager is still running" "$(tail -20 "$E2E_DIR/cm.err")"; fi

# A v1beta1 plugin, as `aws eks update-kubeconfig` and gke-gcloud-auth-plugin write them.
cat >"$E2E_DIR/plugin-v1beta1.sh" <<PLUGIN
#!/bin/bash
echo "\$PPID" >> "$E2E_DIR/plugin-runs"
printf '%s' "\$KUBERNETES_EXEC_INFO" > "$E2E_DIR/exec-info-\$PPID"
echo "\$* profile=\$AWS_PROFILE" > "$E2E_DIR/args-\$PPID"
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"%s","expirationTimestamp":"%s"}}' \
  "\$(cat "$E2E_DIR/current-token")" "\$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
PLUGIN
chmod +x "$E2E_DIR/plugin-v1beta1.sh"
python3 - "$E2E_DIR/kubeconfig" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
text = text.replace("users:\n", "users:\n- name: eks\n  user:\n    exec:\n"
                    "      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ./plugin-v1beta1.sh\n"
                    "      args: [eks, get-token, --cluster-name, federation]\n      env: [{name: AWS_PROFILE, value: e2e}]\n", 1)
text = text.replace("contexts:\n", "contexts:\n- name: eks\n  context: {cluster: federation, user: eks}\n", 1)
open(path, "w").write(text)
PY
kill "$PID_cm"; wait "$PID_cm" 2>/dev/null || true
# Its Lease goes with it, so that the next controller-manager need not wait for it to lapse.
curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $(cat "$E2E_DIR/current-token")" \
  "http://127.0.0.1:$PORT/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/fedhpa-controller-manager"
start_controller cm_beta --context eks </dev/null  # no terminal, whoever runs the test
wait_for "a controller-manager on the v1beta1 context holds the Lease" "_${PID_cm_beta}\"" -- lease
BEFORE=$(renewed)
wait_for "and renews it" '^renewed$' -- renewed_since "$BEFORE"
check "the v1beta1 plugin ran once for it" 0 '^1$' -- runs_of "$PID_cm_beta"
check "with its args and env" 0 '^eks get-token --cluster-name federation profile=e2e$' -- cat "$E2E_DIR/args-$PID_cm_beta"
check "told the v1beta1 ExecCredential, not interactive (v1beta1's default IfAvailable, no terminal)" 0 '^client.authentication.k8s.io/v1beta1 False$' -- \
  python3 -c 'import json,sys; i=json.load(open(sys.argv[1])); print(i["apiVersion"], i["spec"]["interactive"])' "$E2E_DIR/exec-info-$PID_cm_beta"

summary
