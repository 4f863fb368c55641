#!/usr/bin/env python3
"""Crash durability of the API server on both storage backends: clients create 1,000 HPAs while the
apiserver is killed with SIGKILL twice in the middle (and once after); after each restart every
create that was acknowledged (201) is there. On etcd the storage outlives the apiserver anyway;
what is checked there is that nothing the apiserver acknowledged was still only in its memory.
Usage: apiserver_crash_durability.py path/to/fedhpa"""
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etcdlib import EtcdCluster  # noqa: E402
from fedlib import HPA_PATH, Federation  # noqa: E402

CREATES = 1000
KILL_AT = (300, 700)
WRITERS = 4


def hpa(name):
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                     "minReplicas": 1, "maxReplicas": 3}}


def run(fed, backend, storage_flags):
    name = "apiserver-" + backend
    start = lambda: fed.start_serving(name, "apiserver", "--listen", "127.0.0.1:0", *storage_flags)  # noqa: E731
    url = [start()]
    acknowledged, lock, next_id = [], threading.Lock(), [0]

    def writer():
        while True:
            with lock:
                if len(acknowledged) >= CREATES:
                    return
                n = next_id[0]
                next_id[0] += 1
                target = url[0]
            try:
                fed.call(target + HPA_PATH, "POST", hpa(f"{backend}-{n}"), timeout=10)
            except Exception:
                time.sleep(0.05)  # killed mid-request: not acknowledged; the next name goes to the new server
                continue
            with lock:
                acknowledged.append(f"{backend}-{n}")

    threads = [threading.Thread(target=writer) for _ in range(WRITERS)]
    for t in threads:
        t.start()
    kills = 0
    for at in KILL_AT:
        while True:
            with lock:
                if len(acknowledged) >= at:
                    break
            time.sleep(0.005)
        fed.signal(name, signal.SIGKILL)
        fed.processes[name].wait()
        kills += 1
        restarted = start()
        with lock:
            url[0] = restarted
    for t in threads:
        t.join()
    fed.signal(name, signal.SIGKILL)
    fed.processes[name].wait()
    url[0] = start()
    present = {item["metadata"]["name"] for item in fed.call(url[0] + HPA_PATH, timeout=30)["items"]}
    lost = [n for n in acknowledged if n not in present]
    if len(acknowledged) >= CREATES and kills == len(KILL_AT) and not lost:
        fed.ok(f"{backend}: all {len(acknowledged)} acknowledged creates survive {kills + 1} SIGKILLs "
               f"({len(present)} present, {next_id[0]} attempted)")
    else:
        fed.not_ok(f"{backend}: acknowledged creates lost after SIGKILL",
                   f"{len(lost)} lost of {len(acknowledged)} (e.g. {lost[:5]}), {kills} kills")
    fed.signal(name, signal.SIGKILL)


def main():
    fed = Federation(sys.argv[1], "fedhpa-crash-")
    etcd = None
    try:
        run(fed, "sqlite", ["--data-dir", os.path.join(fed.work, "data")])
        etcd = EtcdCluster(fed.work)
        run(fed, "etcd", ["--etcd-servers", etcd.endpoints()])
    finally:
        if etcd:
            etcd.close()
        code = fed.summary()
        fed.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
