#!/usr/bin/env python3
"""A watch whose etcd stream breaks, and whose resume revision is compacted before it can reopen,
ends with kube-apiserver's 410 Expired ERROR event rather than hanging silent or skipping events.
An apiserver talks to one etcd member (of three); a watch is open on it; that member is killed;
meanwhile writes go through the other members and etcd is compacted past them; the member comes
back; the watch must end with 410. Usage: etcd_watch_compacted.py path/to/fedhpa"""
import base64
import json
import os
import queue
import sys
import threading
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etcdlib import EtcdCluster  # noqa: E402
from fedlib import HPA_PATH, Federation  # noqa: E402

fed = Federation(sys.argv[1], "fedhpa-watch-compacted.")
etcd = None
try:
    etcd = EtcdCluster(fed.work, members=3)
    watched = fed.start_serving("watched", "apiserver", "--listen", "127.0.0.1:0", "--etcd-servers", etcd.endpoints(["etcd0"]))
    writer = fed.start_serving("writer", "apiserver", "--listen", "127.0.0.1:0", "--etcd-servers", etcd.endpoints(["etcd1", "etcd2"]))
    fed.api = writer
    fed.create_hpa("before", 3)
    # A LIST is served from the watched server's cache, which shows a write made through another
    # server once its etcd watch has delivered it (kube's resourceVersion=0 semantics, see docs/storage.md):
    # start the watch from a list that includes "before", so that its first event is the next write.
    listed = {}

    def lists_before():
        listed.update(fed.call(watched + HPA_PATH))
        return any(item["metadata"]["name"] == "before" for item in listed["items"])

    fed.wait_for("the apiserver using etcd0 lists a create made through the other members", lists_before, timeout=20)
    rv = listed["metadata"]["resourceVersion"]
    events = queue.Queue()

    def watch():
        try:
            with urllib.request.urlopen(watched + HPA_PATH + "?watch=1&resourceVersion=" + rv, timeout=60) as response:
                for line in response:
                    events.put(json.loads(line))
        except Exception as error:  # noqa: BLE001
            events.put({"type": "CLOSED", "error": repr(error)})
        events.put({"type": "CLOSED"})

    threading.Thread(target=watch, daemon=True).start()
    fed.create_hpa("seen", 3)
    first = events.get(timeout=10)
    if first["type"] == "ADDED" and first["object"]["metadata"]["name"] == "seen":
        fed.ok("the watch on the apiserver using etcd0 sees a create made through the other members")
    else:
        fed.not_ok("the watch sees the create", str(first))

    etcd.kill("etcd0")
    for i in range(5):
        fed.create_hpa(f"while-down-{i}", 3)
    # Compact etcd past everything the watch has not seen (through a member that is up).
    header = json.loads(urllib.request.urlopen(urllib.request.Request(
        etcd.client["etcd1"] + "/v3/kv/range", data=json.dumps({"key": base64.b64encode(b"/").decode()}).encode(),
        method="POST"), timeout=5).read())["header"]
    urllib.request.urlopen(urllib.request.Request(
        etcd.client["etcd1"] + "/v3/kv/compaction", data=json.dumps({"revision": header["revision"]}).encode(),
        method="POST"), timeout=5).read()
    etcd.restart("etcd0")
    got = []
    while True:
        try:
            event = events.get(timeout=30)
        except queue.Empty:
            break
        got.append(event)
        if event["type"] in ("ERROR", "CLOSED"):
            break
    errors = [e for e in got if e["type"] == "ERROR"]
    if errors and errors[0]["object"].get("code") == 410 and errors[0]["object"].get("reason") == "Expired":
        fed.ok("once etcd0 is back, the watch ends with 410 Expired (its resume revision is compacted)")
    else:
        fed.not_ok("the watch ends with 410 Expired", str(got)[:500])
    if not [e for e in got if e["type"] in ("ADDED", "MODIFIED")]:
        fed.ok("and delivers none of the compacted events out of order")
    else:
        fed.not_ok("no events after the gap", str(got)[:500])
finally:
    fed.close()
    if etcd:
        etcd.close()
sys.exit(fed.summary())
