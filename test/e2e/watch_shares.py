"""Watches a federation while its members' tokens rotate: every 0.2 s, the local maxima of one
federated HPA on each member (read with the members' admin token), the Clusters' Ready conditions
and the token in each member's Secret (read from the federation with the same token, which must be
an admin's there too: a read that fails would leave nothing to find); until the time given and, after it, until every member's
Secret has shown TOKENS different tokens (at most 30 s more). From the first look at which the
local maxima add up to the federated max, every look must. Prints "looks N", "seconds S", then
"over ..." (the looks where they did not), "not-ready ..." and "tokens NAME COUNT".
Usage: watch_shares.py FEDERATION_URL CA_FILE ADMIN_TOKEN NAMESPACE/HPA FEDERATED_MAX UNTIL_EPOCH
TOKENS MEMBER=URL...
"""
import base64
import json
import re
import ssl
import sys
import time
import urllib.request

federation, ca, admin, hpa, federated_max, until, want_tokens, *members = sys.argv[1:]
federated_max, until, want_tokens = int(federated_max), float(until), int(want_tokens)
started = time.time()
namespace, name = hpa.split("/")
members = dict(m.split("=", 1) for m in members)
tls = ssl.create_default_context(cafile=ca)


def get(url, token=None):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, context=tls if url.startswith("https") else None, timeout=5) as answer:
            return json.load(answer)
    except Exception:  # a look that fails to read is no finding; the next one reads again
        return None


looks, placed, over, not_ready, tokens = 0, False, [], [], {m: set() for m in members}
def done():
    now = time.time()
    return now >= until + 30 or (now >= until and all(len(seen) >= want_tokens for seen in tokens.values()))


while not done():
    now = time.strftime("%H:%M:%S")
    maxes = {}
    for m, url in members.items():
        answer = get(f"{url}/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers/{name}", admin)
        maxes[m] = answer["spec"]["maxReplicas"] if answer and "spec" in answer else None
    total = sum(v for v in maxes.values() if v is not None)
    complete = all(v is not None for v in maxes.values())
    placed = placed or (complete and total == federated_max)
    if placed:
        looks += 1
        if total != federated_max or not complete:
            over.append(f"{now} {maxes}")
    clusters = get(f"{federation}/apis/federation/v1beta1/clusters", admin) or {"items": []}
    for cluster in clusters["items"]:
        ready = [c for c in cluster.get("status", {}).get("conditions", []) if c["type"] == "Ready"]
        if placed and (not ready or ready[0]["status"] != "True"):
            not_ready.append(f"{now} {cluster['metadata']['name']} {ready[0]['reason'] if ready else '-'}")
    secrets = get(f"{federation}/api/v1/namespaces/federation-system/secrets", admin) or {"items": []}
    for secret in secrets["items"]:
        text = base64.b64decode(secret["data"]["kubeconfig"]).decode()
        token = re.search(r"token: *\"?([^\"\n]*)", text)
        if token and secret["metadata"]["name"] in tokens:
            tokens[secret["metadata"]["name"]].add(token.group(1))
    time.sleep(0.2)
print(f"looks {looks}")
print(f"seconds {time.time() - started:.0f}")
for finding in over:
    print(f"over {finding}")
for finding in not_ready:
    print(f"not-ready {finding}")
for m, seen in tokens.items():
    print(f"tokens {m} {len(seen)}")
