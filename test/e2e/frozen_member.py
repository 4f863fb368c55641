#!/usr/bin/env python3
"""A member that stops answering in the middle of things (SIGSTOP, still Ready for a while), with
ten members and a hundred federated HPAs of max 20, every component its own process. An observer
polls every member the whole time and sums each HPA's local maxima: the sum must never exceed the
federated max, counting the frozen member's last limits until the controller has released its
share (NotReady past the grace). New and edited federated HPAs keep converging meanwhile; the
frozen member's share moves only after the grace; when it comes back it is lowered and the sum
is the federated max again. Usage: frozen_member.py FEDHPA"""
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

FEDHPA = sys.argv[1]
MEMBERS = [f"member{i}" for i in range(1, 11)]
FROZEN = "member5"
GRACE_S = 20
HPAS = 100
FED_MAX = 20
HPA_PATH = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"

work = tempfile.mkdtemp(prefix="fedhpa-frozen.")
processes = []
passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print(f"ok - {name}", flush=True)


def not_ok(name, detail=""):
    global failed
    failed += 1
    print(f"not ok - {name}\n    {detail}", flush=True)


def start(name, *args):
    out = open(os.path.join(work, name + ".out"), "w+")
    err = open(os.path.join(work, name + ".err"), "w")
    process = subprocess.Popen([FEDHPA, *args], stdout=out, stderr=err)
    processes.append(process)
    return process, out


def listening_url(out):
    for _ in range(200):
        out.seek(0)
        line = out.readline()
        if line.startswith("listening on "):
            return line.split()[-1]
        time.sleep(0.05)
    raise SystemExit("a server did not start")


def call(url, method="GET", body=None, timeout=5):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"{}")


def wait_for(name, predicate, timeout=90):
    started = time.time()
    while time.time() - started < timeout:
        try:
            if predicate():
                ok(f"{name} ({time.time() - started:.1f} s)")
                return True
        except Exception:
            pass
        time.sleep(0.5)
    not_ok(name, f"not within {timeout} s")
    return False


def local_maxima(url, timeout=5):
    return {item["metadata"]["name"]: item["spec"]["maxReplicas"] for item in call(url + HPA_PATH, timeout=timeout)["items"]}


def federated_maxima():
    return {item["metadata"]["name"]: item["spec"]["maxReplicas"] for item in call(api + HPA_PATH)["items"]}


try:
    urls = {}
    for member in MEMBERS:
        process, out = start(member, "member-sim", "--listen", "127.0.0.1:0", "--name", member, "--hpa-sync-period", "1s")
        urls[member] = listening_url(out)
    pids = {member: processes[i].pid for i, member in enumerate(MEMBERS)}
    _, out = start("apiserver", "apiserver", "--listen", "127.0.0.1:0", "--data-dir", os.path.join(work, "data"))
    api = listening_url(out)
    kubeconfig = os.path.join(work, "kubeconfig")
    with open(kubeconfig, "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: federation-cluster\nclusters:\n")
        f.write(f"- name: federation\n  cluster: {{server: \"{api}\"}}\n")
        for member, url in urls.items():
            f.write(f"- name: {member}\n  cluster: {{server: \"{url}\"}}\n")
        f.write("users:\n- name: admin\n  user: {}\ncontexts:\n")
        f.write("- name: federation-cluster\n  context: {cluster: federation, user: admin, namespace: default}\n")
        for member in urls:
            f.write(f"- name: {member}\n  context: {{cluster: {member}, user: admin, namespace: default}}\n")
    for member in MEMBERS:
        subprocess.run([FEDHPA, "join", member, "--cluster-context", member, "--kubeconfig", kubeconfig],
                       check=True, stdout=subprocess.DEVNULL)
    start("controller", "controller-manager", "--kubeconfig", kubeconfig, "--address", "127.0.0.1:0",
          "--cluster-probe-period", "500ms", "--resync-period", "5s", "--hpa-scale-forbidden-window", "0",
          "--cluster-unhealthy-grace", f"{GRACE_S}s")

    def hpa(name, maximum):
        return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                         "minReplicas": 1, "maxReplicas": maximum}}

    for i in range(HPAS):
        call(api + HPA_PATH, "POST", hpa(f"web-{i:03d}", FED_MAX))
    wait_for("100 federated HPAs of max 20 placed at 2 on each of 10 members",
             lambda: all(sorted(local_maxima(urls[m]).values()) == [2] * HPAS for m in MEMBERS), timeout=180)

    # The observer: every member, all the time; the frozen member counts with its last answer.
    last = {member: local_maxima(urls[member]) for member in MEMBERS}
    worst = {"excess": 0, "detail": ""}
    released = threading.Event()
    observing = threading.Event()
    observing.set()
    samples = [0]

    def controller_released(member):
        # NotReady for the grace, as the controller judges it (less a second for the two clocks' reads).
        cluster = call(api + f"/apis/federation/v1beta1/clusters/{member}")
        for condition in cluster.get("status", {}).get("conditions", []):
            if condition["type"] == "Ready" and condition["status"] == "False":
                since = datetime.datetime.strptime(condition["lastTransitionTime"], "%Y-%m-%dT%H:%M:%SZ")
                since = since.replace(tzinfo=datetime.timezone.utc).timestamp()
                return time.time() >= since + GRACE_S - 1
        return False

    def cluster_ready(member):
        cluster = call(api + f"/apis/federation/v1beta1/clusters/{member}")
        for condition in cluster.get("status", {}).get("conditions", []):
            if condition["type"] == "Ready":
                return condition["status"]
        return None

    def observe():
        while observing.is_set():
            for member in MEMBERS:
                if member == FROZEN and frozen_since is not None:
                    continue
                try:
                    last[member] = local_maxima(urls[member], timeout=2)
                except Exception:
                    pass
            try:
                federated = federated_maxima()
                if frozen_since is not None and not released.is_set() and controller_released(FROZEN):
                    released.set()
            except Exception:
                continue
            counted = [m for m in MEMBERS if not (m == FROZEN and released.is_set())]
            for name, maximum in federated.items():
                total = sum(last[m].get(name, 0) for m in counted)
                if total - maximum > worst["excess"]:
                    worst["excess"] = total - maximum
                    worst["detail"] = f"{name}: Σ local max {total} > federated max {maximum} " + \
                        str({m: last[m].get(name) for m in counted})
            samples[0] += 1

    frozen_since = None
    observer = threading.Thread(target=observe, daemon=True)
    observer.start()
    time.sleep(1)

    os.kill(pids[FROZEN], signal.SIGSTOP)
    frozen_since = time.time()

    # Edits and new HPAs that need no write to the frozen member converge meanwhile.
    for i in range(10):
        federated = call(api + HPA_PATH + f"/web-{i:03d}")
        federated["spec"]["maxReplicas"] = 30
        call(api + HPA_PATH + f"/web-{i:03d}", "PUT", federated)
    for i in range(10):
        call(api + HPA_PATH, "POST", hpa(f"late-{i:02d}", FED_MAX))

    others = [m for m in MEMBERS if m != FROZEN]

    def others_sum(name):
        return sum(local_maxima(urls[m]).get(name, 0) for m in others)

    wait_for("while member5 is frozen, raised HPAs converge on the others (28 of 30, member5 keeps its 2)",
             lambda: all(others_sum(f"web-{i:03d}") == 28 for i in range(10)), timeout=GRACE_S + 10)
    wait_for("while member5 is frozen, new HPAs are placed on the other nine (Σ 20)",
             lambda: all(others_sum(f"late-{i:02d}") == 20 for i in range(10)), timeout=GRACE_S + 10)
    untouched = [f"web-{i:03d}" for i in range(10, HPAS)]
    if time.time() - frozen_since < GRACE_S:
        sums = {others_sum(name) for name in untouched[:20]}
        if sums == {18}:
            ok("before the grace, member5's share of untouched HPAs has not moved (the others hold 18 of 20)")
        else:
            not_ok("before the grace, member5's share must not move", f"the others hold {sums}")
    else:
        not_ok("the checks above took longer than the grace", f"{time.time() - frozen_since:.1f} s")
    wait_for("member5 turns NotReady", lambda: cluster_ready(FROZEN) == "False", timeout=GRACE_S + 30)

    def released_after_grace():
        return all(others_sum(name) == FED_MAX for name in untouched[:20])

    wait_for("after the grace, member5's share moves to the others (they hold 20 of 20)", released_after_grace,
             timeout=GRACE_S + 60)
    moved_after = time.time() - frozen_since
    if moved_after >= GRACE_S:
        ok(f"the share moved {moved_after:.1f} s after the freeze, not before the {GRACE_S} s grace")
    else:
        not_ok("the share moved before the grace", f"{moved_after:.1f} s")
    observing.clear()
    observer.join()
    if worst["excess"] == 0 and samples[0] > 3:
        ok(f"Σ local max never exceeded the federated max ({samples[0]} observations of every member)")
    else:
        not_ok("Σ local max exceeded the federated max", worst["detail"] or f"{samples[0]} observations")

    os.kill(pids[FROZEN], signal.SIGCONT)
    wait_for("member5 is Ready again", lambda: cluster_ready(FROZEN) == "True", timeout=60)
    wait_for("every HPA is back to Σ local max == federated max over all ten",
             lambda: (lambda fed: all(sum(local_maxima(urls[m]).get(n, 0) for m in MEMBERS) == x for n, x in fed.items()))(
                 federated_maxima()), timeout=120)
finally:
    for process in processes:
        try:
            os.kill(process.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        process.kill()
        process.wait()
    if failed:
        for name in ("controller",):
            print(open(os.path.join(work, name + ".err")).read()[-4000:])
    subprocess.run(["rm", "-rf", work])

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
