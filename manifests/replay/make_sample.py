#!/usr/bin/env python3
"""Writes answer.json: what Prometheus' /api/v1/query_range answers for

    sum by (cluster) (rate(http_requests_total[5m]))

over one day at step 60 for three clusters, with a fixed seed so the file is reproducible:
each cluster's requests per second follow a daily sine peaking at its region's early afternoon,
with noise and a few bursts (2-3x for 5-20 minutes); ap-south misses 12 minutes of samples (a
Prometheus restart), and us-east's series starts 40 minutes late (its exporter was deployed
then). Values are strings, as Prometheus writes them.

    python3 manifests/replay/make_sample.py > manifests/replay/answer.json
"""
import json
import math
import random

START = 1764201600  # 2025-11-27T00:00:00Z
STEP = 60
POINTS = 24 * 60 + 1  # start and end inclusive, as query_range returns them

# cluster: (mean requests/s, amplitude, UTC hour of the daily peak)
CLUSTERS = {
    "eu-west": (420.0, 300.0, 13.0),
    "us-east": (480.0, 340.0, 19.0),
    "ap-south": (300.0, 220.0, 8.0),
}
GAP = ("ap-south", 16 * 60, 16 * 60 + 12)  # minutes without samples
LATE_START = ("us-east", 40)  # the first sample is 40 minutes in


def main():
    rng = random.Random(29)
    result = []
    for cluster, (mean, amplitude, peak_hour) in CLUSTERS.items():
        bursts = []
        for _ in range(3):
            begin = rng.randrange(0, POINTS - 30)
            bursts.append((begin, begin + rng.randrange(5, 21), rng.uniform(2.0, 3.0)))
        values = []
        for i in range(POINTS):
            if cluster == GAP[0] and GAP[1] <= i < GAP[2]:
                continue
            if cluster == LATE_START[0] and i < LATE_START[1]:
                continue
            hours = i * STEP / 3600.0
            rps = mean + amplitude * math.cos(2 * math.pi * (hours - peak_hour) / 24.0)
            rps *= 1.0 + rng.gauss(0, 0.04)
            for begin, end, factor in bursts:
                if begin <= i < end:
                    rps *= factor
            values.append([START + i * STEP, repr(max(rps, 0.0))])
        result.append({"metric": {"cluster": cluster}, "values": values})
    answer = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    print(json.dumps(answer, separators=(",", ":")))


if __name__ == "__main__":
    main()
