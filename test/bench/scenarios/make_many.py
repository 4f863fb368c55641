#!/usr/bin/env python3
"""Writes many.json: 50 clusters whose demand is a random walk (seed 20261122), one point a minute.

The walk is generated once and committed, so the scenario is the same on every machine."""
import json
import random

rng = random.Random(20261122)
clusters = [f"member{i:02d}" for i in range(1, 51)]
demand = {}
for name in clusters:
    value = rng.uniform(2, 8)
    points = []
    for t in range(0, 3600 + 1, 60):
        points.append([t, round(value, 2)])
        value = min(12.0, max(0.5, value + rng.gauss(0, 0.8)))
    demand[name] = points
doc = {
    "description": "many: 50 clusters whose demand is a random walk (fixed seed, see make_many.py), one hour",
    "federated": {"minReplicas": 50, "maxReplicas": 400, "targetCPUUtilizationPercentage": 50},
    "clusters": clusters,
    "durationSeconds": 3600, "stepSeconds": 5, "horizontalPodAutoscalerSyncPeriodSeconds": 15, "reconcileSeconds": 15,
    "scaleForbiddenWindowSeconds": 120,
    "demand": demand,
}
with open("many.json", "w") as out:
    json.dump(doc, out)
    out.write("\n")
