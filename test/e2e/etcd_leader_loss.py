#!/usr/bin/env python3
"""Creates made right after etcd's leader is killed are acknowledged within seconds, and stored.
The API server talks to two followers; when the leader dies, the txn a follower forwarded to it is
lost, and etcd answers it only at its own request timeout (7 s, "request timed out"): the API
server must send the create again through another member once a new leader is up, and know its own
earlier try when that one applied after all. Usage: etcd_leader_loss.py path/to/fedhpa"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etcdlib import EtcdCluster  # noqa: E402
from fedlib import HPA_PATH, Federation  # noqa: E402

fed = Federation(sys.argv[1], "fedhpa-leader-loss.")
etcd = None
try:
    etcd = EtcdCluster(fed.work, members=3)
    fed.wait_for("etcd elects a leader", lambda: etcd.leader() is not None, timeout=20)
    leader = etcd.leader()
    followers = [name for name in etcd.names if name != leader]
    fed.api = fed.start_serving("api", "apiserver", "--listen", "127.0.0.1:0", "--etcd-servers", etcd.endpoints(followers))
    fed.create_hpa("before", 3)

    etcd.kill(leader)
    acknowledged = ["before"]
    for name in [f"after-leader-loss-{i}" for i in range(3)]:
        started = time.monotonic()
        try:
            fed.create_hpa(name, 3)  # fedlib's client gives up after 5 s
            acknowledged.append(name)
            fed.ok(f"{name} is acknowledged {time.monotonic() - started:.1f} s after it was sent, the leader gone")
        except Exception as error:  # noqa: BLE001
            fed.not_ok(f"{name} is acknowledged within 5 s of the leader's loss", repr(error))
    stored = [item["metadata"]["name"] for item in fed.call(fed.api + HPA_PATH)["items"]]
    if set(acknowledged) <= set(stored):
        fed.ok("every acknowledged create is stored")
    else:
        fed.not_ok("every acknowledged create is stored", f"acknowledged {acknowledged}, stored {stored}")
finally:
    fed.close()
    if etcd:
        etcd.close()
sys.exit(fed.summary())
