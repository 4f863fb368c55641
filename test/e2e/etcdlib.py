"""A real etcd cluster (Debian's etcd-server) for the end-to-end tests: N members on free
loopback ports, data under a work directory, each member killable and restartable on its data."""
import json
import os
import socket
import subprocess
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EtcdCluster:
    def __init__(self, work, members=1):
        self.work = work
        self.names = [f"etcd{i}" for i in range(members)]
        self.client = {n: f"http://127.0.0.1:{free_port()}" for n in self.names}
        self.peer = {n: f"http://127.0.0.1:{free_port()}" for n in self.names}
        self.processes = {}
        for name in self.names:
            self._start(name)
        for name in self.names:
            self.wait_serving(name)

    def endpoints(self, names=None):
        return ",".join(self.client[n] for n in (names or self.names))

    def _start(self, name):
        cluster = ",".join(f"{n}={self.peer[n]}" for n in self.names)
        log = open(os.path.join(self.work, name + ".log"), "a")
        self.processes[name] = subprocess.Popen(
            ["etcd", "--name", name, "--data-dir", os.path.join(self.work, name + ".data"),
             "--listen-client-urls", self.client[name], "--advertise-client-urls", self.client[name],
             "--listen-peer-urls", self.peer[name], "--initial-advertise-peer-urls", self.peer[name],
             "--initial-cluster", cluster, "--initial-cluster-state", "new",
             "--experimental-watch-progress-notify-interval", "5s", "--log-level", "warn"],
            stdout=log, stderr=log)

    def wait_serving(self, name, timeout=30):
        started = time.time()
        while time.time() - started < timeout:
            try:
                request = urllib.request.Request(self.client[name] + "/v3/kv/range", data=b'{"key":"Lw=="}', method="POST")
                with urllib.request.urlopen(request, timeout=2) as response:
                    if response.status == 200:
                        return
            except Exception:
                pass
            if self.processes[name].poll() is not None:
                raise SystemExit(f"{name} exited: " + open(os.path.join(self.work, name + ".log")).read()[-2000:])
            time.sleep(0.1)
        raise SystemExit(f"{name} did not serve within {timeout} s")

    def leader(self):
        """The name of the member that leads now (asked of any member that answers)."""
        names = {}
        leader = None
        for name in self.names:
            try:
                request = urllib.request.Request(self.client[name] + "/v3/maintenance/status", data=b"{}", method="POST")
                with urllib.request.urlopen(request, timeout=2) as response:
                    status = json.loads(response.read())
            except Exception:
                continue
            names[status["header"]["member_id"]] = name
            leader = status.get("leader", leader)
        return names.get(leader)

    def kill(self, name):
        self.processes[name].kill()
        self.processes[name].wait()

    def restart(self, name):
        self._start(name)
        self.wait_serving(name)

    def close(self):
        for process in self.processes.values():
            process.kill()
            process.wait()
