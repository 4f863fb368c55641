"""Shared by the Python end-to-end tests: fedhpa processes (member-sims, an apiserver, controller-
managers) started on free loopback ports, a kubeconfig with a context each, plain HTTP calls, TAP-
style checks and bounded waits. Everything started is killed by close()."""
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

HPA_PATH = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"


class Federation:
    def __init__(self, fedhpa, prefix):
        self.fedhpa = fedhpa
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.processes = {}
        self.urls = {}
        self.passed = self.failed = 0
        self.kubeconfig = os.path.join(self.work, "kubeconfig")

    # -- processes ------------------------------------------------------------------------------
    def start(self, name, *args):
        out = open(os.path.join(self.work, name + ".out"), "w+")
        err = open(os.path.join(self.work, name + ".err"), "a")
        self.processes[name] = subprocess.Popen([self.fedhpa, *args], stdout=out, stderr=err)
        return out

    def start_serving(self, name, *args):
        out = self.start(name, *args)
        for _ in range(200):
            out.seek(0)
            line = out.readline()
            if line.startswith("listening on "):
                self.urls[name] = line.split()[-1]
                return self.urls[name]
            time.sleep(0.05)
        raise SystemExit(f"{name} did not start: " + open(os.path.join(self.work, name + ".err")).read()[-2000:])

    def start_member(self, name, *flags):
        return self.start_serving(name, "member-sim", "--listen", "127.0.0.1:0", "--name", name, "--hpa-sync-period", "1s",
                                  "--pod-startup-delay", "0s", *flags)

    def start_apiserver(self):
        self.api = self.start_serving("apiserver", "apiserver", "--listen", "127.0.0.1:0", "--data-dir",
                                      os.path.join(self.work, "data"))
        return self.api

    def join(self, members):
        with open(self.kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: federation-cluster\nclusters:\n")
            f.write(f"- name: federation\n  cluster: {{server: \"{self.api}\"}}\n")
            for member in members:
                f.write(f"- name: {member}\n  cluster: {{server: \"{self.urls[member]}\"}}\n")
            f.write("users:\n- name: admin\n  user: {}\ncontexts:\n")
            f.write("- name: federation-cluster\n  context: {cluster: federation, user: admin, namespace: default}\n")
            for member in members:
                f.write(f"- name: {member}\n  context: {{cluster: {member}, user: admin, namespace: default}}\n")
        for member in members:
            subprocess.run([self.fedhpa, "join", member, "--cluster-context", member, "--kubeconfig", self.kubeconfig],
                           check=True, stdout=subprocess.DEVNULL)

    def start_controller(self, name, *flags):
        self.start(name, "controller-manager", "--kubeconfig", self.kubeconfig, "--address", "127.0.0.1:0",
                   "--cluster-probe-period", "500ms", "--hpa-scale-forbidden-window", "0", *flags)

    def signal(self, name, sig):
        os.kill(self.processes[name].pid, sig)

    def close(self):
        for name, process in self.processes.items():
            try:
                os.kill(process.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            process.kill()
            process.wait()
        if self.failed:
            for name in self.processes:
                if name.startswith("controller"):
                    print(f"--- {name}.err (tail)\n" + open(os.path.join(self.work, name + ".err")).read()[-3000:])
        subprocess.run(["rm", "-rf", self.work])

    # -- the API --------------------------------------------------------------------------------
    @staticmethod
    def call(url, method="GET", body=None, timeout=5):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read() or b"{}")

    def local_maxima(self, member, timeout=5):
        items = self.call(self.urls[member] + HPA_PATH, timeout=timeout)["items"]
        return {item["metadata"]["name"]: item["spec"]["maxReplicas"] for item in items}

    def federated_maxima(self):
        return {item["metadata"]["name"]: item["spec"]["maxReplicas"] for item in self.call(self.api + HPA_PATH)["items"]}

    def create_hpa(self, name, maximum, minimum=1):
        self.call(self.api + HPA_PATH, "POST",
                  {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name},
                   "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                            "minReplicas": minimum, "maxReplicas": maximum}})

    def set_max(self, name, maximum):
        # Read, change, write with the version read; a 409 (the controller wrote status or an
        # annotation meanwhile) means read again, as client-go's RetryOnConflict does.
        for attempt in range(10):
            federated = self.call(self.api + HPA_PATH + "/" + name)
            federated["spec"]["maxReplicas"] = maximum
            try:
                self.call(self.api + HPA_PATH + "/" + name, "PUT", federated)
                return
            except urllib.error.HTTPError as error:
                if error.code != 409 or attempt == 9:
                    raise

    def cluster_ready(self, member):
        cluster = self.call(self.api + f"/apis/federation/v1beta1/clusters/{member}")
        for condition in cluster.get("status", {}).get("conditions", []):
            if condition["type"] == "Ready":
                return condition
        return None

    # -- checks ---------------------------------------------------------------------------------
    def ok(self, name):
        self.passed += 1
        print(f"ok - {name}", flush=True)

    def not_ok(self, name, detail=""):
        self.failed += 1
        print(f"not ok - {name}\n    {detail}", flush=True)

    def wait_for(self, name, predicate, timeout=90):
        started = time.time()
        while time.time() - started < timeout:
            try:
                if predicate():
                    self.ok(f"{name} ({time.time() - started:.1f} s)")
                    return True
            except Exception:
                pass
            time.sleep(0.5)
        self.not_ok(name, f"not within {timeout} s")
        return False

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


class SumObserver:
    """Polls every member, over and over, and checks each federated HPA's sum of local maxima.

    The members are read one after another, so one pass can catch a move half-way (a member read
    before it was lowered, another after it was raised) and count it twice. A pass therefore only
    counts where every member showed the same limits for that HPA in the pass before (a state that
    stood), and a violation is such a state whose sum is above the federated max *and* above the
    last state that stood: a federated max lowered by a user is above the members until the
    controller lowers them, which is no fault; and a write that was on its way when the user
    lowered the max may still land, so the max counted is the largest of the last RACE_S seconds.
    `silent(member)` names members to skip (their last
    answer stands: a frozen member); `excluded(member)` members no longer counted at all."""

    RACE_S = 10

    def __init__(self, federation, members, silent=lambda m: False, excluded=lambda m: False):
        import threading
        self.fed, self.members, self.silent, self.excluded = federation, members, silent, excluded
        self.last = {m: {} for m in members}
        self.previous = {}
        self.standing = {}
        self.maxima_seen = {}  # name -> [(time, federated max)]
        self.passes = 0
        self.worst = (0, "")
        self._running = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        for member in self.members:
            self.last[member] = self.fed.local_maxima(member)
        self._running.set()
        self._thread.start()

    def stop(self):
        self._running.clear()
        self._thread.join()

    def _run(self):
        while self._running.is_set():
            for member in self.members:
                if not self.silent(member):
                    try:
                        self.last[member] = self.fed.local_maxima(member, timeout=3)
                    except Exception:
                        pass
            try:
                federated = self.fed.federated_maxima()
            except Exception:
                continue
            counted = [m for m in self.members if not self.excluded(m)]
            now = time.time()
            for name, current in federated.items():
                seen = [(t, x) for t, x in self.maxima_seen.get(name, []) if now - t < self.RACE_S] + [(now, current)]
                self.maxima_seen[name] = seen
                maximum = max(x for _, x in seen)
                limits = tuple(self.last[m].get(name, 0) for m in counted)
                if self.previous.get(name) == limits:
                    total = sum(limits)
                    if total > maximum and total > self.standing.get(name, 0) and total - maximum > self.worst[0]:
                        self.worst = (total - maximum, f"{name}: Σ local max {total} > federated max {maximum} {dict(zip(counted, limits))}")
                    self.standing[name] = total
                self.previous[name] = limits
            self.passes += 1

    def report(self, fed):
        if self.worst[0] == 0 and self.passes > 3:
            fed.ok(f"Σ local max never exceeded the federated max ({self.passes} passes over every member)")
        else:
            fed.not_ok("Σ local max exceeded the federated max", self.worst[1] or f"{self.passes} passes")
