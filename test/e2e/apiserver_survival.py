#!/usr/bin/env python3
"""The API server survives hostile clients (issue 11's done-when), run against whichever build
make test gives it (the ASan one first): 200 slow clients sending one byte a second while other
clients keep being answered within 100 ms; 2,000 idle connections; a watcher that never reads
while 10,000 events are written (the watcher is cut off and memory stays bounded).

usage: apiserver_survival.py FEDHPA"""
import json
import re
import os
import resource
import socket
import statistics
import sys
import threading
import time
import http.client

sys.path.insert(0, os.path.dirname(__file__))
from fedlib import Federation, HPA_PATH  # noqa: E402

SLOW_CLIENTS = 200
IDLE_CONNECTIONS = 2000
EVENTS = 10000
WRITERS = 8


def raise_fd_limit(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))  # the apiserver inherits it
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def open_watches(host, port):
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request("GET", "/metrics")
    for line in connection.getresponse().read().decode().splitlines():
        if line.startswith("apiserver_longrunning_requests"):
            return int(float(line.split()[-1]))
    return -1


def latencies(host, port, seconds):
    """GET /healthz and an HPA list on one kept-alive connection each, for `seconds`."""
    samples = []
    health = http.client.HTTPConnection(host, port, timeout=10)
    api = http.client.HTTPConnection(host, port, timeout=10)
    deadline = time.time() + seconds
    while time.time() < deadline:
        for connection, path in ((health, "/healthz"), (api, HPA_PATH + "?limit=10")):
            started = time.time()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            samples.append((time.time() - started, response.status))
        time.sleep(0.05)
    return samples


def check_latencies(fed, name, samples):
    statuses = {status for _, status in samples}
    times = sorted(t for t, _ in samples)
    p95 = times[int(len(times) * 0.95) - 1]
    detail = f"{len(times)} answers, median {statistics.median(times) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms"
    if statuses == {200} and p95 < 0.1:
        fed.ok(f"{name}: {detail}")
    else:
        fed.not_ok(name, f"{detail}, statuses {statuses}")


def main():
    fedhpa = sys.argv[1]
    fd_limit = raise_fd_limit(8192)
    if os.path.isdir("/dev/shm"):
        os.environ["TMPDIR"] = "/dev/shm"  # 10,000 durable writes: fsync on tmpfs is cheap
    # ASan keeps freed memory in quarantine (256 MB by default), which would hide what is really held.
    os.environ["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16").lstrip(":")
    fed = Federation(fedhpa, "fedhpa-survival-")
    try:
        url = fed.start_apiserver()
        host, port = url.split("//")[1].split(":")
        port = int(port)
        pid = fed.processes["apiserver"].pid
        print(f"# file-descriptor limit {fd_limit}", flush=True)

        # 1. Slowloris: 200 connections each sending its request one byte a second.
        slow = []
        for _ in range(SLOW_CLIENTS):
            s = socket.create_connection((host, port))
            slow.append(s)
        stop = threading.Event()
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"p" * 200 + b"\r\n\r\n"

        def drip():
            for i in range(len(request)):
                if stop.is_set():
                    return
                for s in slow:
                    try:
                        s.send(request[i:i + 1])
                    except OSError:
                        pass
                stop.wait(1)

        dripper = threading.Thread(target=drip)
        dripper.start()
        time.sleep(1)
        check_latencies(fed, f"{SLOW_CLIENTS} slow clients: others answered within 100 ms", latencies(host, port, 8))
        stop.set()
        dripper.join()
        for s in slow:
            s.close()

        # 2. 2,000 idle connections that never send a byte.
        idle = []
        for _ in range(IDLE_CONNECTIONS):
            idle.append(socket.create_connection((host, port)))
        time.sleep(1)
        check_latencies(fed, f"{IDLE_CONNECTIONS} idle connections: others answered within 100 ms", latencies(host, port, 4))
        for s in idle:
            s.close()

        # 3. A watcher that never reads while 10,000 events are written.
        annotation = "x" * 1024  # each event carries the object: ~20 MB of events in all
        fed.call(url + HPA_PATH, "POST",
                 {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "churn"},
                  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "churn"},
                           "maxReplicas": 3}})
        watcher = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        watcher.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        watcher.connect((host, port))
        watcher.sendall(f"GET {HPA_PATH}?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        fed.wait_for("the watch is open", lambda: open_watches(host, port) == 1, timeout=20)
        before = rss_mb(pid)
        peak = before
        counter = iter(range(EVENTS))
        lock = threading.Lock()

        def write():
            connection = http.client.HTTPConnection(host, port, timeout=30)
            while True:
                with lock:
                    n = next(counter, None)
                if n is None:
                    return
                patch = {"metadata": {"annotations": {"churn": f"{n}-{annotation}"}}}
                connection.request("PATCH", HPA_PATH + "/churn", json.dumps(patch),
                                   {"Content-Type": "application/merge-patch+json"})
                response = connection.getresponse()
                response.read()

        started = time.time()
        writers = [threading.Thread(target=write) for _ in range(WRITERS)]
        for thread in writers:
            thread.start()
        while any(thread.is_alive() for thread in writers):
            peak = max(peak, rss_mb(pid))
            time.sleep(0.2)
        print(f"# {EVENTS} events written in {time.time() - started:.1f} s; RSS {before:.0f} MB before, peak {peak:.0f} MB",
              flush=True)
        fed.wait_for("the watcher that never reads is cut off", lambda: open_watches(host, port) == 0, timeout=30)
        growth = peak - before
        if growth < 64:
            fed.ok(f"memory stays bounded while it is not read ({growth:.0f} MB growth)")
        else:
            fed.not_ok("memory stays bounded while it is not read", f"RSS grew by {growth:.0f} MB")
        # Cut off means gone: what was queued for it must not keep trickling out after the cut.
        received = b""
        ended = False
        watcher.settimeout(10)
        deadline = time.time() + 20
        try:
            while time.time() < deadline:
                data = watcher.recv(1 << 20)
                if not data:
                    ended = True
                    break
                received += data
        except OSError:
            ended = True
        events = len(re.findall(rb'"type":"(?:ADDED|MODIFIED)"}', received))
        if not ended:
            fed.not_ok("its connection ended", f"data still arriving after 20 s ({events} events so far)")
        elif events < EVENTS:
            fed.ok(f"its connection ended after {events} of {EVENTS + 1} events")
        else:
            fed.not_ok("its connection ended early", f"it received all {events} events")
        watcher.close()
        check_latencies(fed, "afterwards others are answered within 100 ms", latencies(host, port, 2))
        if fed.processes["apiserver"].poll() is None:
            fed.ok("the apiserver is still running")
        else:
            fed.not_ok("the apiserver is still running", f"exit code {fed.processes['apiserver'].returncode}")
    finally:
        fed.close()
    return fed.summary()


if __name__ == "__main__":
    sys.exit(main())
