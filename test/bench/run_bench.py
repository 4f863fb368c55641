#!/usr/bin/env python3
"""`make bench`: every benchmark in one table.

Each figure is measured in this run next to its reference, and the ratio is printed with it:
  partition   Google Benchmark, ns per call with maxReplicas 2e9 against the same clusters with
              small counts (the cost must not depend on replica counts: ratio ~1); and `demand`
              on the same shape against kubefed v1's own scheduling code (the Go peer in
              ../shared/peers/kubefed-v1-hpa, built by its build.sh when missing; wall time and
              heap allocations per call for both; goal: ratio <= 0.1)
  tracking    fedhpa simulate on the standard scenarios: replica-seconds served against one
              shared pool (the ratio is the tracking figure)
  control     control_plane_bench: convergence, reaction, apiserver, memory, and at member latency
              50 ms: latency (10 members), reaction-latency (3 members, idle requests), scale
              (10,000 federated HPAs x 20 members: convergence, RSS per cached object); the API
              server's memory: watchers (RSS per watcher that never reads), apiserver-memory
              (RSS with 10,000 HPAs in the watch cache); at 200 ms: recovery (10 members: reaction
              p50/p99, a member restored after an outage) (real processes)
  kubectl     `kubectl get hpa` over 10,000 HPAs against the same responses replayed by a trivial
              server (kubectl's own floor; goal <= 1.1)
  etcd        etcd_bench.py: creates through fedhpa on etcd against raw etcd puts through the same
              gateway (goal >= 0.5), GET/LIST/watch fan-out on etcd against SQLite (real processes)
Usage: run_bench.py BUILD_DIR [--smoke] [--only PHASE[,PHASE...]] [--scale-hpas N] [--scale-members M]
  --only: only these control_plane_bench phases (convergence, reaction, apiserver, memory,
          latency, reaction-latency, watchers, apiserver-memory, scale, recovery), none of the other benchmarks
  --scale-hpas, --scale-members: the size of the scale phase (default 10000 and 20)"""
import glob
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
smoke = "--smoke" in sys.argv
only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv[:-1] else None
here = os.path.dirname(os.path.abspath(__file__))
rows = []


def run(args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True).stdout


def partition_rows():
    args = [os.path.join(build, "test/bench/partition_bench"), "--benchmark_format=json"]
    if smoke:
        args += ["--benchmark_filter=/3/", "--benchmark_min_time=0.001"]
    else:
        # The median of 5 repetitions, as the Go peer reports its own: on a shared machine one
        # preempted repetition moves a mean, not a median.
        args += ["--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"]
    report = json.loads(run(args))
    report["benchmarks"] = [b for b in report["benchmarks"]
                            if b.get("run_type") != "aggregate" or b.get("aggregate_name") == "median"]
    for b in report["benchmarks"]:
        b["name"] = b.get("run_name", b["name"])  # an aggregate's name ends in "_median"
    by_key = {}
    for b in report["benchmarks"]:
        # BM_Partition/demand/1000/2000000000
        _, policy, clusters, max_replicas = b["name"].split("/")[:4]
        by_key[(policy, int(clusters), int(max_replicas))] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
    for (policy, clusters, max_replicas), huge in sorted(by_key.items()):
        if max_replicas != 2_000_000_000:
            continue
        small = by_key.get((policy, clusters, 10 * clusters))
        if small is None:
            continue
        rows.append((f"partition {policy}, {clusters} clusters", f"{huge / 1e3:.2f} us/call at max 2e9",
                     f"{small / 1e3:.2f} us/call at max {10 * clusters}", f"{huge / small:.2f}"))
    if not smoke:
        peer_rows(report)


def peer_rows(report):
    """demand against kubefed v1 on the issue's shape (a third saturated, a third idle, a third
    new, federated max 10 x clusters), wall time per call as Go's testing measures it, the median
    of 5 repetitions on both sides."""
    peer_dir = os.environ.get("FEDHPA_PEER_DIR", os.path.join(here, "..", "..", "..", "shared", "peers", "kubefed-v1-hpa"))
    peer = "/tmp/peer/bin/hpapeer"
    if not os.path.exists(peer) and os.path.exists(os.path.join(peer_dir, "build.sh")):
        subprocess.run(["bash", os.path.join(peer_dir, "build.sh")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not os.path.exists(peer):
        rows.append(("partition vs kubefed v1", "peer not built", peer_dir, "-"))
        return
    ours = {}
    for b in report["benchmarks"]:
        _, policy, clusters, max_replicas = b["name"].split("/")[:4]
        if policy == "demand" and int(max_replicas) == 10 * int(clusters):
            ours[int(clusters)] = (b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]], b.get("allocs", 0))
    for line in run([peer, "-bench"]).splitlines():
        theirs = json.loads(line)
        clusters = theirs["clusters"]
        if clusters not in ours:
            continue
        ns, allocs = ours[clusters]
        rows.append((f"demand vs kubefed v1, {clusters} clusters", f"{ns / 1e3:.2f} us/call, {allocs:.0f} allocs",
                     f"kubefed v1 {theirs['ns_per_op'] / 1e3:.2f} us, {theirs['allocs_per_op']:.0f} allocs",
                     f"{ns / theirs['ns_per_op']:.3f}"))


def tracking_rows():
    scenarios = sorted(glob.glob(os.path.join(here, "scenarios", "*.json")))
    if smoke:
        scenarios = [s for s in scenarios if os.path.basename(s) == "spike.json"]
    args = [os.path.join(build, "fedhpa"), "simulate", "--json"]
    for s in scenarios:
        args += ["-f", s]
    report = json.loads(run(args))
    results = report["scenarios"] if "scenarios" in report else {os.path.basename(scenarios[0])[:-5]: report}
    for name, result in results.items():
        for policy in ("demand", "legacy"):
            p = result["policies"][policy]
            rows.append((f"tracking {name}, {policy}", f"{p['servedReplicaSeconds']:.0f} replica-s served",
                         f"shared pool {p['referenceReplicaSeconds']:.0f} replica-s", f"{p['tracking']:.3f}"))


def control_plane_rows():
    args = [os.path.join(build, "test/bench/control_plane_bench"), "--tsv"]
    if smoke:
        args.append("--smoke")
    if only:
        args += ["--only", only]
    for flag in ("--scale-hpas", "--scale-members"):
        if flag in sys.argv[:-1]:
            args += [flag, sys.argv[sys.argv.index(flag) + 1]]
    for line in run(args).splitlines():
        fields = line.split("\t")
        if len(fields) == 4:
            rows.append(tuple(fields))


def kubectl_rows():
    count = 50 if smoke else 10_000
    data = tempfile.mkdtemp(prefix="fedhpa-bench-kubectl-")
    server = subprocess.Popen([os.path.join(build, "fedhpa"), "apiserver", "--listen", "127.0.0.1:0", "--data-dir", data],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
        kubeconfig = os.path.join(data, "kubeconfig")
        with open(kubeconfig, "w") as f:
            f.write(f"apiVersion: v1\nkind: Config\nclusters:\n- name: f\n  cluster: {{server: 'http://127.0.0.1:{port}'}}\n"
                    "users:\n- name: u\n  user: {}\ncontexts:\n- name: f\n  context: {cluster: f, user: u}\ncurrent-context: f\n")
        connection = http.client.HTTPConnection("127.0.0.1", port)

        def create(namespace, name):
            body = json.dumps({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                               "metadata": {"name": name, "namespace": namespace},
                               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                                        "minReplicas": 1, "maxReplicas": 10,
                                        "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                                            "type": "Utilization", "averageUtilization": 50}}}]}})
            connection.request("POST", f"/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers", body,
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.status != 201:
                raise RuntimeError(f"create {namespace}/{name}: HTTP {response.status}")

        connection.request("POST", "/api/v1/namespaces", json.dumps({"metadata": {"name": "many"}}),
                           {"Content-Type": "application/json"})
        connection.getresponse().read()
        for i in range(count):
            create("many", f"hpa-{i:05d}")

        def timed(config, namespace, rows_wanted):
            best = None
            for _ in range(3):
                started = time.monotonic()
                out = run(["kubectl", "--kubeconfig", config, "--cache-dir", os.path.join(data, "cache"), "-n", namespace,
                           "get", "hpa", "--no-headers"])
                elapsed = time.monotonic() - started
                if len(out.splitlines()) != rows_wanted:
                    raise RuntimeError(f"kubectl get hpa -n {namespace}: {len(out.splitlines())} rows, not {rows_wanted}")
                best = elapsed if best is None else min(best, elapsed)
            return best

        def kubeconfig_for(replay_port):
            path = os.path.join(data, f"kubeconfig-replay-{replay_port}")
            with open(kubeconfig) as original, open(path, "w") as f:
                f.write(original.read().replace(f"127.0.0.1:{port}", f"127.0.0.1:{replay_port}"))
            return path

        # kubectl's own floor: every response kubectl got from fedhpa for `get hpa -n many`, served
        # again as stored bytes by a server that does nothing else.
        recorder = ReplayServer(upstream_port=port)
        run(["kubectl", "--kubeconfig", kubeconfig_for(recorder.port), "--cache-dir", os.path.join(data, "cache"), "-n", "many",
             "get", "hpa", "--no-headers"])
        recorder.stop()
        replayer = ReplayServer(recorded=recorder.recorded)
        try:
            floor = timed(kubeconfig_for(replayer.port), "many", count)
        finally:
            replayer.stop()
        many = timed(kubeconfig, "many", count)
        rows.append((f"kubectl get hpa, {count} HPAs (goal <= 1.1)", f"{many:.2f} s (best of 3)",
                     f"{floor:.2f} s, same responses replayed", f"{many / floor:.2f}"))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(data, ignore_errors=True)


class ReplayServer:
    """A trivial HTTP server on loopback. Given upstream_port, it forwards each request there and
    records the answer's status, headers and body bytes as they came (still compressed, if they
    were); given `recorded`, it answers each request it has seen with exactly those bytes."""

    def __init__(self, upstream_port=None, recorded=None):
        import http.server
        import threading
        self.recorded = recorded if recorded is not None else {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                key = (self.path, self.headers.get("Accept", ""))
                if upstream_port is not None:
                    upstream = http.client.HTTPConnection("127.0.0.1", upstream_port)
                    forwarded = {h: self.headers[h] for h in ("Accept", "Accept-Encoding", "User-Agent") if h in self.headers}
                    upstream.request("GET", self.path, headers=forwarded)
                    response = upstream.getresponse()
                    headers = [(h, v) for h, v in response.getheaders()
                               if h.lower() not in ("content-length", "transfer-encoding", "connection", "date")]
                    outer.recorded[key] = (response.status, headers, response.read())
                    upstream.close()
                status, headers, body = outer.recorded.get(key, (404, [], b""))
                self.send_response(status)
                for h, v in headers:
                    self.send_header(h, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def etcd_rows():
    sys.path.insert(0, here)
    import etcd_bench
    rows.extend(etcd_bench.rows(build, smoke))


if not only:
    partition_rows()
    tracking_rows()
    kubectl_rows()
    etcd_rows()
control_plane_rows()
widths = [max(len(r[i]) for r in rows + [("BENCHMARK", "VALUE", "REFERENCE (same run)", "RATIO")]) + 2 for i in range(4)]
print("".join(h.ljust(w) for h, w in zip(("BENCHMARK", "VALUE", "REFERENCE (same run)", "RATIO"), widths)).rstrip())
for r in rows:
    print("".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
