#!/usr/bin/env python3
"""The controller killed (kill -9) in the middle of placing and rebalancing, with one member slow
(300 ms added to every request), and a new controller started in its place. An observer polls the
members throughout: no federated HPA's local maxima ever add up to more than its max, and once
the new controller has run every HPA is placed exactly. Usage: controller_restart.py FEDHPA"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedlib import Federation, SumObserver  # noqa: E402

MEMBERS = ["member1", "member2", "member3"]
HPAS = 60

fed = Federation(sys.argv[1], "fedhpa-restart.")
try:
    fed.start_member("member1")
    fed.start_member("member2", "--latency", "300ms")
    fed.start_member("member3")
    fed.start_apiserver()
    fed.join(MEMBERS)
    flags = ("--resync-period", "2s", "--leader-elect", "false")
    fed.start_controller("controller1", *flags)

    observer = SumObserver(fed, MEMBERS)
    observer.start()

    for i in range(HPAS):
        fed.create_hpa(f"web-{i:02d}", 12)
    time.sleep(1.5)  # the slow member is still being written to
    fed.signal("controller1", signal.SIGKILL)
    fed.ok("controller1 killed in the middle of placement")
    for i in range(0, HPAS, 3):
        fed.set_max(f"web-{i:02d}", 6)   # lowered while nobody is reconciling
    for i in range(1, HPAS, 3):
        fed.set_max(f"web-{i:02d}", 18)  # raised
    fed.start_controller("controller2", *flags)

    def placed_exactly():
        wanted = fed.federated_maxima()
        maxima = {m: fed.local_maxima(m) for m in MEMBERS}
        return all(sum(maxima[m].get(name, 0) for m in MEMBERS) == maximum for name, maximum in wanted.items())

    fed.wait_for("after the restart every federated HPA is placed exactly (Σ local max == federated max)",
                 placed_exactly, timeout=120)
    time.sleep(2)  # a few more observations of the settled state
    observer.stop()
    observer.report(fed)
finally:
    fed.close()
sys.exit(fed.summary())
