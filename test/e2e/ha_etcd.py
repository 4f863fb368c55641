#!/usr/bin/env python3
"""The HA shape: 3 etcd members, 2 API servers on them behind HAProxy, 2 controller-managers (one
leads), 3 member-sims. The walkthrough runs with kubectl against either API server: a create on one
is seen by a watch on the other, a stale update on either is a 409. Then, during a rebalance, one
API server, one etcd member and the leading controller-manager are killed with SIGKILL: the
walkthrough goes on through the survivors, every acknowledged write is still there (through both
API servers once the dead ones are back), and the sum of the members' local maxima never exceeds
the federated max. Usage: ha_etcd.py path/to/fedhpa"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etcdlib import EtcdCluster, free_port  # noqa: E402
from fedlib import HPA_PATH, Federation, SumObserver  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBERS = ["member1", "member2", "member3"]
APISERVERS = ["apiserver-1", "apiserver-2"]

fed = Federation(sys.argv[1], "fedhpa-ha.")
etcd = None
haproxy = None


def kubectl(context, *args, stdin=None):
    result = subprocess.run(["kubectl", "--kubeconfig", fed.kubeconfig, "--cache-dir", os.path.join(fed.work, "cache"),
                             "--context", context, *args], input=stdin, capture_output=True, text=True, timeout=30)
    return result.returncode, result.stdout + result.stderr


def check(name, ok, detail=""):
    (fed.ok if ok else lambda n: fed.not_ok(n, detail))(name)


def start_apiserver(name, ports, endpoints):
    fed.urls[name] = fed.start_serving(name, "apiserver", "--listen", f"127.0.0.1:{ports[name]}",
                                       "--etcd-servers", endpoints)


def limits():
    # "min max" of php-apache in every member ("-" where it has none), as in the walkthrough.
    out = []
    for m in MEMBERS:
        try:
            spec = fed.call(fed.urls[m] + HPA_PATH + "/php-apache")["spec"]
            out.append((spec.get("minReplicas", 1), spec["maxReplicas"]))
        except Exception:
            out.append(None)
    return out


def sum_max():
    return sum(x[1] for x in limits() if x)


try:
    etcd = EtcdCluster(fed.work, members=3)
    ports = {name: free_port() for name in APISERVERS}
    # Each API server lists every etcd member, starting with a different one.
    start_apiserver("apiserver-1", ports, etcd.endpoints(["etcd0", "etcd1", "etcd2"]))
    start_apiserver("apiserver-2", ports, etcd.endpoints(["etcd1", "etcd2", "etcd0"]))
    lb_port = free_port()
    with open(os.path.join(fed.work, "haproxy.cfg"), "w") as f:
        f.write(f"""global
  maxconn 2000
defaults
  mode tcp
  timeout connect 1s
  timeout client 1h
  timeout server 1h
frontend fedhpa-api
  bind 127.0.0.1:{lb_port}
  default_backend apiservers
backend apiservers
  option httpchk GET /readyz
  default-server inter 300ms fall 1 rise 1
""" + "".join(f"  server {n} 127.0.0.1:{ports[n]} check\n" for n in APISERVERS))
    haproxy = subprocess.Popen(["haproxy", "-db", "-f", os.path.join(fed.work, "haproxy.cfg")],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(fed.work, "haproxy.err"), "w"))
    fed.api = f"http://127.0.0.1:{lb_port}"
    for m in MEMBERS:
        fed.start_member(m)
    servers = [("federation-cluster", fed.api)] + [(n, fed.urls[n]) for n in APISERVERS] + [(m, fed.urls[m]) for m in MEMBERS]
    with open(fed.kubeconfig, "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: federation-cluster\nclusters:\n")
        f.writelines(f"- name: {n}\n  cluster: {{server: \"{u}\"}}\n" for n, u in servers)
        f.write("users:\n- name: admin\n  user: {}\ncontexts:\n")
        f.writelines(f"- name: {n}\n  context: {{cluster: {n}, user: admin, namespace: default}}\n" for n, _ in servers)
    fed.wait_for("HAProxy serves the API", lambda: urllib.request.urlopen(fed.api + "/readyz", timeout=2).status == 200,
                 timeout=20)
    for m in MEMBERS:
        subprocess.run([fed.fedhpa, "join", m, "--cluster-context", m, "--kubeconfig", fed.kubeconfig],
                       check=True, stdout=subprocess.DEVNULL)
    for cm in ("cm_a", "cm_b"):
        fed.start_controller(cm, "--resync-period", "2s")

    fed.wait_for("apiserver-2 shows the members joined through HAProxy as Ready",
                 lambda: kubectl("apiserver-2", "get", "clusters")[1].count(" True ") == 3, timeout=60)

    # A watch on apiserver-2, then a create on apiserver-1.
    seen = []

    def watch_apiserver_2():
        with urllib.request.urlopen(fed.urls["apiserver-2"] + HPA_PATH + "?watch=1&resourceVersion=" +
                                    fed.call(fed.urls["apiserver-2"] + HPA_PATH)["metadata"]["resourceVersion"], timeout=60) as r:
            for line in r:
                event = json.loads(line)
                seen.append((event["type"], event["object"]["metadata"]["name"]))
                if event["object"]["metadata"]["name"] == "php-apache":
                    return

    watcher = threading.Thread(target=watch_apiserver_2, daemon=True)
    watcher.start()
    time.sleep(0.5)
    deploy = open(os.path.join(HERE, "manifests", "deployment.yaml")).read()
    deploy = deploy.replace("name: web", "name: php-apache").replace("app: web", "app: php-apache").replace("replicas: 2", "replicas: 3")
    code, out = kubectl("apiserver-2", "create", "-f", "-", stdin=deploy)
    check("kubectl on apiserver-2 creates the Deployment", code == 0, out)
    code, out = kubectl("apiserver-1", "create", "-f", os.path.join(HERE, "manifests", "hpa-v2.yaml"))
    check("kubectl on apiserver-1 creates the federated HPA (max 10)", code == 0 and "created" in out, out)
    watcher.join(timeout=10)
    check("a watch on apiserver-2 sees the create made on apiserver-1", ("ADDED", "php-apache") in seen, str(seen))

    # Stale updates: the object read before a change on one server is refused by either.
    _, stale = kubectl("apiserver-1", "get", "hpa", "php-apache", "-o", "json")
    kubectl("apiserver-2", "annotate", "hpa", "php-apache", "note=changed")
    for server in APISERVERS:
        code, out = kubectl(server, "replace", "-f", "-", stdin=stale)
        check(f"a stale update on {server} is a 409 Conflict", code != 0 and "the object has been modified" in out, out)

    fed.wait_for("every member holds php-apache, Σ max = 10", lambda: sum_max() == 10 and all(limits()), timeout=60)

    # Writes acknowledged while things die: each create goes to one API server, the other on failure.
    acknowledged, stop_writing = [], threading.Event()

    def writer():
        n = 0
        while not stop_writing.is_set():
            name = f"ack-{n}"
            n += 1
            for server in APISERVERS:
                try:
                    fed.call(fed.urls[server] + "/api/v1/namespaces/default/secrets", "POST",
                             {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}}, timeout=5)
                    acknowledged.append(name)
                    break
                except Exception:
                    continue
            time.sleep(0.05)

    writing = threading.Thread(target=writer, daemon=True)
    writing.start()
    observer = SumObserver(fed, MEMBERS)
    observer.start()

    # The rebalance, and the kills in the middle of it.
    code, out = kubectl("member1", "annotate", "deploy", "php-apache", "sim.fedhpa.io/demand=8", "--overwrite")
    check("load on member1 (the walkthrough's rebalance)", code == 0, out)
    _, holder = kubectl("apiserver-2", "get", "lease", "fedhpa-controller-manager", "-n", "kube-system",
                        "-o", "jsonpath={.spec.holderIdentity}")
    leader = next((cm for cm in ("cm_a", "cm_b") if holder.endswith("_" + str(fed.processes[cm].pid))), None)
    check("one controller-manager leads", leader is not None, holder)
    at_kill = limits()
    fed.signal("apiserver-1", signal.SIGKILL)
    etcd.kill("etcd0")
    if leader:
        fed.signal(leader, signal.SIGKILL)
    killed_at = time.time()
    follower = "cm_b" if leader == "cm_a" else "cm_a"

    code, out = kubectl("apiserver-2", "get", "hpa", "php-apache")
    check("kubectl on apiserver-2 works right after the kills", code == 0 and "php-apache" in out, out)
    code, out = kubectl("federation-cluster", "get", "hpa", "php-apache")
    check("kubectl through HAProxy works too", code == 0 and "php-apache" in out, out)
    fed.wait_for("the other controller-manager takes the Lease",
                 lambda: kubectl("apiserver-2", "get", "lease", "fedhpa-controller-manager", "-n", "kube-system",
                                 "-o", "jsonpath={.spec.holderIdentity}")[1].endswith("_" + str(fed.processes[follower].pid)),
                 timeout=40)
    fed.wait_for("the rebalance completes: member1's max grows past its share",
                 lambda: (limits()[0] or (0, 0))[1] >= 6 and sum_max() == 10, timeout=60)
    fed.wait_for("describe on apiserver-2 shows the Rebalanced Event",
                 lambda: "Rebalanced" in kubectl("apiserver-2", "describe", "hpa", "php-apache")[1], timeout=30)
    code, out = kubectl("apiserver-2", "patch", "hpa", "php-apache", "--type=merge", "-p", '{"spec":{"maxReplicas":12}}')
    check("the walkthrough goes on: patch max 12 on apiserver-2", code == 0, out)
    fed.wait_for("Σ max = 12 on the members", lambda: sum_max() == 12, timeout=60)
    observer.stop()
    observer.report(fed)
    stop_writing.set()
    writing.join()

    def names(server):
        return {s["metadata"]["name"] for s in fed.call(fed.urls[server] + "/api/v1/namespaces/default/secrets")["items"]}

    lost = [n for n in acknowledged if n not in names("apiserver-2")]
    check(f"all {len(acknowledged)} writes acknowledged across the kills are on apiserver-2", not lost and len(acknowledged) > 20,
          f"lost {lost[:5]} of {len(acknowledged)}")
    etcd.restart("etcd0")
    start_apiserver("apiserver-1", ports, etcd.endpoints(["etcd0", "etcd1", "etcd2"]))
    lost = [n for n in acknowledged if n not in names("apiserver-1")]
    check("and on apiserver-1, restarted on etcd0 restarted", not lost, f"lost {lost[:5]}")
    code, out = kubectl("apiserver-1", "get", "hpa", "php-apache", "-o", "jsonpath={.spec.maxReplicas}")
    check("apiserver-1 shows the patch made on apiserver-2 while it was dead", out.strip() == "12", out)
    print(f"# kills at {time.strftime('%H:%M:%S', time.localtime(killed_at))} with the members' (min, max) at {at_kill}; "
          f"{len(acknowledged)} acknowledged writes")
except Exception:
    fed.failed += 1
    raise
finally:
    if fed.failed:
        for name in APISERVERS:
            path = os.path.join(fed.work, name + ".err")
            if os.path.exists(path):
                lines = [l for l in open(path, errors="replace").read().splitlines() if " debug " not in l and "[debug]" not in l]
                print(f"--- {name}.err (tail)\n" + "\n".join(lines[-40:]))
    if haproxy:
        haproxy.kill()
        haproxy.wait()
    fed.close()
    if etcd:
        etcd.close()
sys.exit(fed.summary())
