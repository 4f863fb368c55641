"""make bench's etcd rows (run_bench.py calls rows()), each against a reference from the same run:
  creates   HPAs created through fedhpa on etcd (8 clients, keep-alive) against raw etcd puts of the
            same bytes through the same JSON gateway from the same clients (goal >= 0.5), in five
            turns each, taken in alternation, after a warm-up turn each
  get/list  GET of one HPA and LIST of 1,000 through fedhpa on etcd against the same on SQLite
  watch     one create reaching 100 watchers on etcd against the same on SQLite (latency to the last)
Usage alone: etcd_bench.py BUILD_DIR [--smoke]"""
import base64
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from etcdlib import EtcdCluster  # noqa: E402

HPA_PATH = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
CLIENTS = 8
CREATE_ROUNDS = 5  # turns of raw puts and of creates, taken in alternation


def hpa(name):
    return json.dumps({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name},
                       "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                                "minReplicas": 1, "maxReplicas": 10,
                                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                                    "type": "Utilization", "averageUtilization": 50}}}]}})


def count(port, seconds, request, first=0):
    """Requests answered in `seconds` from CLIENTS keep-alive connections, and the time taken;
    request(i) -> (method, path, body, status) with i counted up from `first`."""
    done, stop, counter, lock = [0] * CLIENTS, time.monotonic() + seconds, [first], threading.Lock()

    def client(c):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            with lock:
                i = counter[0]
                counter[0] += 1
            method, path, body, want = request(i)
            connection.request(method, path, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.status != want:
                raise RuntimeError(f"{method} {path}: HTTP {response.status}")
            done[c] += 1

    threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done), time.monotonic() - started


def rate(port, seconds, request):
    """Requests per second from CLIENTS keep-alive connections; request(i) -> (method, path, body, status)."""
    done, elapsed = count(port, seconds, request)
    return done / elapsed


def interleaved_rates(sides, seconds, rounds):
    """Rates of several (port, request) sides, each measured for `seconds` in all, in `rounds`
    turns taken one side after the other, after a warm-up turn each that is not counted: load that
    comes and goes on a shared machine then weighs on every side alike, not on whichever ran while
    it lasted. Returns the rates and, per round, the second side's rate over the first's."""
    turn = seconds / rounds
    totals = [[0, 0.0] for _ in sides]
    issued = [0] * len(sides)
    per_round = []
    for round_ in range(rounds + 1):
        rates = []
        for s, (port, request) in enumerate(sides):
            done, elapsed = count(port, turn, request, issued[s])
            issued[s] += done
            rates.append(done / elapsed)
            if round_ > 0:
                totals[s][0] += done
                totals[s][1] += elapsed
        if round_ > 0:
            per_round.append(rates[1] / rates[0])
    return [done / elapsed for done, elapsed in totals], per_round


def watch_latency(port, watchers):
    """Seconds from a create to its event on the last of `watchers` open watches (best of 3)."""
    best = None
    for round_ in range(3):
        rv = json.loads(_get(port, HPA_PATH + "?limit=1"))["metadata"]["resourceVersion"]
        name = f"watched-{round_}-{time.monotonic_ns()}"
        arrived, streams = [], []
        for _ in range(watchers):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", f"{HPA_PATH}?watch=1&resourceVersion={rv}")
            streams.append(connection.getresponse())

        def read(stream):
            for line in stream:
                if name.encode() in line:
                    arrived.append(time.monotonic())
                    return

        threads = [threading.Thread(target=read, args=(s,), daemon=True) for s in streams]
        for t in threads:
            t.start()
        time.sleep(0.5)
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", port)
        connection.request("POST", HPA_PATH, hpa(name), {"Content-Type": "application/json"})
        connection.getresponse().read()
        for t in threads:
            t.join(timeout=30)
        if len(arrived) != watchers:
            raise RuntimeError(f"{len(arrived)} of {watchers} watchers saw the create")
        latency = max(arrived) - started
        best = latency if best is None else min(best, latency)
        for s in streams:
            s.close()
    return best


def _get(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path)
    return connection.getresponse().read()


def start_apiserver(build, storage_flags):
    server = subprocess.Popen([os.path.join(build, "fedhpa"), "apiserver", "--listen", "127.0.0.1:0", *storage_flags],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return server, int(server.stdout.readline().strip().rsplit(":", 1)[1])


def rows(build, smoke):
    seconds = 2 if smoke else 10
    listed = 50 if smoke else 1000
    watchers = 10 if smoke else 100
    work = tempfile.mkdtemp(prefix="fedhpa-bench-etcd-")
    etcd = EtcdCluster(work)
    servers = []
    out = []
    try:
        etcd_port = int(etcd.client["etcd0"].rsplit(":", 1)[1])
        on_etcd, etcd_api = start_apiserver(build, ["--etcd-servers", etcd.endpoints()])
        on_sqlite, sqlite_api = start_apiserver(build, ["--data-dir", os.path.join(work, "sqlite")])
        servers += [on_etcd, on_sqlite]

        value = base64.b64encode(hpa("x" * 12).encode()).decode()
        (puts, creates), per_round = interleaved_rates(
            [(etcd_port, lambda i: ("POST", "/v3/kv/put", json.dumps(
                {"key": base64.b64encode(f"/bench/raw/{i}".encode()).decode(), "value": value}), 200)),
             (etcd_api, lambda i: ("POST", HPA_PATH, hpa(f"c-{i}"), 201))],
            seconds, CREATE_ROUNDS)
        out.append(("creates through fedhpa on etcd", f"{creates:.0f}/s ({CLIENTS} clients)",
                    f"raw etcd puts {puts:.0f}/s (same gateway)",
                    f"{creates / puts:.2f} (rounds {min(per_round):.2f}-{max(per_round):.2f})"))

        for port in (etcd_api, sqlite_api):
            connection = http.client.HTTPConnection("127.0.0.1", port)
            connection.request("POST", "/api/v1/namespaces", json.dumps({"metadata": {"name": "listed"}}),
                               {"Content-Type": "application/json"})
            connection.getresponse().read()
            for i in range(listed):
                connection.request("POST", HPA_PATH.replace("/default/", "/listed/"), hpa(f"l-{i}"),
                                   {"Content-Type": "application/json"})
                connection.getresponse().read()
        get_path = HPA_PATH.replace("/default/", "/listed/") + "/l-0"
        list_path = HPA_PATH.replace("/default/", "/listed/")
        gets = {p: rate(p, seconds, lambda i: ("GET", get_path, None, 200)) for p in (etcd_api, sqlite_api)}
        out.append(("GET one HPA on etcd", f"{gets[etcd_api]:.0f}/s", f"{gets[sqlite_api]:.0f}/s on SQLite",
                    f"{gets[etcd_api] / gets[sqlite_api]:.2f}"))
        lists = {p: rate(p, seconds, lambda i: ("GET", list_path, None, 200)) for p in (etcd_api, sqlite_api)}
        out.append((f"LIST {listed} HPAs on etcd", f"{lists[etcd_api]:.1f}/s", f"{lists[sqlite_api]:.1f}/s on SQLite",
                    f"{lists[etcd_api] / lists[sqlite_api]:.2f}"))
        latency = {p: watch_latency(p, watchers) for p in (etcd_api, sqlite_api)}
        out.append((f"watch fan-out on etcd, {watchers} watchers", f"{latency[etcd_api] * 1e3:.1f} ms to the last",
                    f"{latency[sqlite_api] * 1e3:.1f} ms on SQLite", f"{latency[etcd_api] / latency[sqlite_api]:.2f}"))
    finally:
        for server in servers:
            server.kill()
            server.wait()
        etcd.close()
        shutil.rmtree(work, ignore_errors=True)
    return out


if __name__ == "__main__":
    for row in rows(sys.argv[1], "--smoke" in sys.argv):
        print("\t".join(row))
