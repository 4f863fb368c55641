# Shared helpers for the end-to-end scripts: start `fedhpa apiserver` on a free port with a fresh
# data dir, point a private kubeconfig (context federation-cluster) and kubectl cache at it, and
# count checks. Source it; FEDHPA must be the binary's path.
set -euo pipefail

E2E_DIR=$(mktemp -d /tmp/fedhpa-e2e.XXXXXX)
SERVER_PID=""
PASSED=0
FAILED=0

cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$E2E_DIR"
}

# start_server DATA_DIR: starts the apiserver, waits for its ready line, sets PORT and SERVER_PID.
start_server() { start_fedhpa apiserver --listen 127.0.0.1:0 --data-dir "$1"; }

# start_member_sim [FLAGS...]: a simulated member cluster, reached the same way.
start_member_sim() { start_fedhpa member-sim --listen 127.0.0.1:0 "$@"; }

start_fedhpa() {
  : > "$E2E_DIR/server.out"
  "$FEDHPA" "$@" >"$E2E_DIR/server.out" 2>>"$E2E_DIR/server.err" &
  SERVER_PID=$!
  for _ in $(seq 1 100); do
    if grep -q '^listening on http://' "$E2E_DIR/server.out"; then
      PORT=$(head -1 "$E2E_DIR/server.out" | sed 's/.*://')
      write_kubeconfig
      return 0
    fi
    sleep 0.1
  done
  echo "fedhpa $1 did not become ready:"; cat "$E2E_DIR/server.err"; exit 1
}

# start_up [FLAGS...]: `fedhpa up` (apiserver, three member-sims and the controller in one process)
# with short periods, plus FLAGS; sets SERVER_PID and KUBECONFIG_FILE, the kubeconfig it wrote
# (contexts federation-cluster, member1..3), which k (any context) and fed use.
start_up() {
  "$FEDHPA" up --data-dir "$E2E_DIR/up/data" --kubeconfig-out "$E2E_DIR/up/kubeconfig" --hpa-sync-period 1s \
    --cluster-probe-period 1s --resync-period 2s --hpa-scale-forbidden-window 0 "$@" >"$E2E_DIR/up.out" 2>"$E2E_DIR/up.err" &
  SERVER_PID=$!
  for _ in $(seq 1 100); do grep -q '^kubeconfig:' "$E2E_DIR/up.out" && break; sleep 0.1; done
  KUBECONFIG_FILE=$(sed -n 's/^kubeconfig: //p' "$E2E_DIR/up.out")
}
k() { kubectl --kubeconfig "$KUBECONFIG_FILE" --cache-dir "$E2E_DIR/cache" "$@"; }
fed() { k --context=federation-cluster "$@"; }
# "kind/name" present on each of start_up's members, "-" where absent, e.g. "svc|svc|-".
on_members() {
  local out=""
  for m in member1 member2 member3; do
    if k --context=$m get "$1" -o name >/dev/null 2>&1; then out+="$1|"; else out+="-|"; fi
  done
  echo "${out%|}"
}

stop_server() {
  local signal=${1:-TERM}
  kill "-$signal" "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

write_kubeconfig() {
  cat >"$E2E_DIR/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: federation
  cluster: {server: "http://127.0.0.1:$PORT"}
users:
- name: admin
  user: {}
contexts:
- name: federation-cluster
  context: {cluster: federation, user: admin, namespace: default}
current-context: federation-cluster
KUBECONFIG
  # kubectl caches discovery per server address; a fresh cache per server start.
  rm -rf "$E2E_DIR/cache"
}

kc() { kubectl --kubeconfig "$E2E_DIR/kubeconfig" --context federation-cluster --cache-dir "$E2E_DIR/cache" "$@"; }

# api METHOD PATH [BODY]: curl against the server, prints the body.
api() {
  local method=$1 path=$2 body=${3:-}
  if [ -n "$body" ]; then
    curl -sS -X "$method" -H 'Content-Type: application/json' --data "$body" "http://127.0.0.1:$PORT$path"
  else
    curl -sS -X "$method" "http://127.0.0.1:$PORT$path"
  fi
}

ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $1"; shift; for line in "$@"; do echo "    $line"; done; }

# check NAME EXPECTED_EXIT PATTERN -- COMMAND...: runs COMMAND, wants its exit status and a line
# of its combined output matching the extended regular expression PATTERN.
check() {
  local name=$1 want_exit=$2 pattern=$3
  shift 4
  local output status=0
  output=$("$@" 2>&1) || status=$?
  if [ "$status" -ne "$want_exit" ]; then
    not_ok "$name" "exit $status, want $want_exit" "$output"
  elif ! grep -Eq -- "$pattern" <<<"$output"; then
    not_ok "$name" "no line matches: $pattern" "$output"
  else
    ok "$name"
  fi
}

summary() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

# Member clusters as their own processes, added to the kubeconfig and joined to the federation.
# start_member NAME [PORT]: a member-sim (HPA sync 1 s, pods ready at once); its pid in PID_<NAME>.
EXTRA_PIDS=()
# The script's own exit status survives the cleanup (a trap's last command would replace it).
on_exit() {
  local status=$?
  if [ ${#EXTRA_PIDS[@]} -gt 0 ]; then kill -9 "${EXTRA_PIDS[@]}" 2>/dev/null || true; fi
  cleanup
  exit "$status"
}
trap on_exit EXIT
start_member() {
  "$FEDHPA" member-sim --listen "127.0.0.1:${2:-0}" --name "$1" --hpa-sync-period 1s --pod-startup-delay 0s >"$E2E_DIR/$1.out" 2>>"$E2E_DIR/$1.err" &
  EXTRA_PIDS+=($!)
  eval "PID_$1=$!"
  for _ in $(seq 1 100); do grep -q '^listening on' "$E2E_DIR/$1.out" && break; sleep 0.1; done
}

# join_members NAME...: a context per member in the kubeconfig, then `fedhpa join`.
join_members() {
  local m url
  for m in "$@"; do
    url=$(head -1 "$E2E_DIR/$m.out" | sed 's/^listening on //')
    python3 - "$E2E_DIR/kubeconfig" "$m" "$url" <<'PY'
import sys
path, name, url = sys.argv[1:4]
text = open(path).read()
text = text.replace("clusters:\n", f"clusters:\n- name: {name}\n  cluster: {{server: \"{url}\"}}\n", 1)
text = text.replace("contexts:\n", f"contexts:\n- name: {name}\n  context: {{cluster: {name}, user: admin, namespace: default}}\n", 1)
open(path, "w").write(text)
PY
    "$FEDHPA" join "$m" --cluster-context "$m" --kubeconfig "$E2E_DIR/kubeconfig" >/dev/null
  done
}

# start_controller NAME [FLAGS...]: a controller-manager process with short periods; pid in PID_<NAME>.
start_controller() {
  local name=$1
  shift
  "$FEDHPA" controller-manager --kubeconfig "$E2E_DIR/kubeconfig" --address 127.0.0.1:0 --cluster-probe-period 500ms \
    --resync-period 1s --hpa-scale-forbidden-window 0 "$@" >"$E2E_DIR/$name.out" 2>>"$E2E_DIR/$name.err" &
  EXTRA_PIDS+=($!)
  eval "PID_$name=$!"
}

# wait_for NAME PATTERN -- COMMAND...: up to 40 s (WAIT_SECONDS=N wait_for ...: N s) of tries, one
# every half second, for a line of COMMAND's output to match.
wait_for() {
  local name=$1 pattern=$2
  shift 3
  local output="" started now
  started=$(date +%s.%N)
  for _ in $(seq 1 $((${WAIT_SECONDS:-40} * 2))); do
    output=$("$@" 2>&1) || true
    if grep -Eq -- "$pattern" <<<"$output"; then
      now=$(date +%s.%N)
      ok "$name ($(awk -v a="$started" -v b="$now" 'BEGIN {printf "%.1f", b - a}') s)"
      return
    fi
    sleep 0.5
  done
  not_ok "$name" "no match for $pattern within ${WAIT_SECONDS:-40} s" "$output"
}

# Members that enforce what real members enforce: TLS, tokens, RBAC.
# member_pki: one CA (ca.crt) and a serving certificate for 127.0.0.1 for every member, and an
# admin token (ADMIN_TOKEN, group system:masters) in tokens.csv.
member_pki() {
  ADMIN_TOKEN="member-admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=e2e-ca -keyout "$E2E_DIR/ca.key" -out "$E2E_DIR/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=member -keyout "$E2E_DIR/member.key" -out "$E2E_DIR/member.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\n' >"$E2E_DIR/san.ext"
  openssl x509 -req -in "$E2E_DIR/member.csr" -CA "$E2E_DIR/ca.crt" -CAkey "$E2E_DIR/ca.key" -CAcreateserial -days 1 \
    -extfile "$E2E_DIR/san.ext" -out "$E2E_DIR/member.crt" 2>/dev/null
  printf '%s,member-admin,member-admin,"system:masters"\n' "$ADMIN_TOKEN" >"$E2E_DIR/tokens.csv"
}
# start_rbac_member NAME [FLAGS...]: a member-sim serving TLS with member_pki's certificate and
# tokens, authorizing by RBAC; its pid in PID_<NAME>.
start_rbac_member() {
  local m=$1
  shift
  "$FEDHPA" member-sim --listen 127.0.0.1:0 --name "$m" --hpa-sync-period 1s --authorization-mode RBAC \
    --tls-cert-file "$E2E_DIR/member.crt" --tls-private-key-file "$E2E_DIR/member.key" \
    --token-auth-file "$E2E_DIR/tokens.csv" "$@" >"$E2E_DIR/$m.out" 2>>"$E2E_DIR/$m.err" &
  EXTRA_PIDS+=($!)
  eval "PID_$m=$!"
  for _ in $(seq 1 100); do grep -q '^listening on' "$E2E_DIR/$m.out" && break; sleep 0.1; done
}
# add_member_contexts USER NAME...: to the kubeconfig, user member-admin (USER: its `user:` as a
# YAML flow mapping) and, per member, a cluster with the CA and a context NAME using that user.
add_member_contexts() {
  python3 - "$E2E_DIR" "$(base64 -w0 "$E2E_DIR/ca.crt")" "$@" <<'PY'
import sys
d, ca, user, *members = sys.argv[1:]
path = d + "/kubeconfig"
text = open(path).read()
for m in members:
    url = open(f"{d}/{m}.out").readline().split()[-1]
    text = text.replace("clusters:\n", f"clusters:\n- name: {m}\n  cluster: {{server: \"{url}\", certificate-authority-data: {ca}}}\n", 1)
    text = text.replace("contexts:\n", f"contexts:\n- name: {m}\n  context: {{cluster: {m}, user: member-admin, namespace: default}}\n", 1)
text = text.replace("users:\n", f"users:\n- name: member-admin\n  user: {user}\n", 1)
open(path, "w").write(text)
PY
}
# stored_kubeconfig NAME: the kubeconfig the federation's Secret for member NAME holds.
stored_kubeconfig() { kc get secret "$1" -n federation-system -o jsonpath='{.data.kubeconfig}' | base64 -d; }
# stored_token NAME: the token in it.
stored_token() { stored_kubeconfig "$1" | sed -n 's/^ *token: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p'; }
