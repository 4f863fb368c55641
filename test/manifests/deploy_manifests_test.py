#!/usr/bin/env python3
"""manifests/deploy/ is what an operator applies to a host cluster, so every document in it must
be the Kubernetes type it claims (read through python3-kubernetes' models: a field the type does not
have, or a value of the wrong shape, does not survive the round trip), and every flag a container
passes to fedhpa (or etcd) must be one that binary accepts (read from its --help).
Usage: deploy_manifests_test.py path/to/fedhpa path/to/manifests/deploy"""
import os
import re
import subprocess
import sys

import yaml
from kubernetes import client

FEDHPA, DEPLOY = sys.argv[1], sys.argv[2]
api = client.ApiClient()
passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print(f"ok - {name}")


def not_ok(name, detail):
    global failed
    failed += 1
    print(f"not ok - {name}\n    {detail}")


def model_name(document):
    group_version = document["apiVersion"]
    group, _, version = group_version.rpartition("/")
    prefix = {"": "", "apps": "", "batch": "", "rbac.authorization.k8s.io": "", "policy": ""}.get(group, None)
    if prefix is None:
        raise ValueError(f"no model for {group_version}")
    return f"{version.capitalize()}{document['kind']}"


def without_nones(value):
    if isinstance(value, dict):
        return {k: without_nones(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nones(v) for v in value]
    return value


def differences(original, round_trip, path=""):
    """Where the model's round trip lost or changed something the manifest said."""
    if isinstance(original, dict) and isinstance(round_trip, dict):
        out = []
        for key, value in original.items():
            if key not in round_trip:
                out.append(f"{path}.{key} (not a field of the type)")
            else:
                out += differences(value, round_trip[key], f"{path}.{key}")
        return out
    if isinstance(original, list) and isinstance(round_trip, list) and len(original) == len(round_trip):
        return [d for i, (a, b) in enumerate(zip(original, round_trip)) for d in differences(a, b, f"{path}[{i}]")]
    return [] if original == round_trip or str(original) == str(round_trip) else [f"{path}: {original!r} became {round_trip!r}"]


def accepted_flags(command):
    text = subprocess.run(command + ["--help"], capture_output=True, text=True, timeout=30)
    return set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", text.stdout + text.stderr))


flag_cache = {}


def check_flags(where, container):
    command = container.get("command", [])
    args = container.get("args", [])
    binary = os.path.basename(command[0]) if command else ""
    if binary == "fedhpa":
        subcommand, flags = args[0], args[1:]
        key = ("fedhpa", subcommand)
        invocation = [FEDHPA, subcommand]
    elif binary == "etcd":
        flags, key, invocation = args, ("etcd",), ["etcd"]
    else:
        not_ok(f"{where}: runs fedhpa or etcd", f"command {command}")
        return
    if key not in flag_cache:
        flag_cache[key] = accepted_flags(invocation)
    unknown = [f for f in flags if f.split("=", 1)[0] not in flag_cache[key]]
    if flag_cache[key] and not unknown:
        ok(f"{where}: {len(flags)} flags, every one accepted by {' '.join(key)}")
    else:
        not_ok(f"{where}: flags accepted by {' '.join(key)}", f"unknown {unknown}")


files = sorted(f for f in os.listdir(DEPLOY) if f.endswith(".yaml"))
kinds = []
for name in files:
    with open(os.path.join(DEPLOY, name)) as f:
        documents = [d for d in yaml.safe_load_all(f) if d]
    for document in documents:
        where = f"{name}: {document.get('kind')}/{document.get('metadata', {}).get('name')}"
        kinds.append(document.get("kind"))
        try:
            model = api._ApiClient__deserialize(document, model_name(document))
        except Exception as error:  # noqa: BLE001: any failure to read it is the finding
            not_ok(f"{where} reads as its type", repr(error))
            continue
        lost = differences(without_nones(document), without_nones(api.sanitize_for_serialization(model)))
        if lost:
            not_ok(f"{where} is a valid {document['kind']}", "; ".join(lost[:5]))
        else:
            ok(f"{where} is a valid {document['kind']}")
        spec = document.get("spec", {})
        template = spec.get("template", {}).get("spec", {})
        for container in template.get("containers", []):
            check_flags(f"{where} container {container['name']}", container)
            for probe in ("readinessProbe", "livenessProbe"):
                if probe not in container:
                    not_ok(f"{where} container {container['name']} has a {probe}", "missing")
            if "requests" not in container.get("resources", {}):
                not_ok(f"{where} container {container['name']} requests resources", "missing")

for wanted in ("Namespace", "StatefulSet", "Deployment", "Service", "Secret"):
    if wanted in kinds:
        ok(f"manifests/deploy has a {wanted}")
    else:
        not_ok(f"manifests/deploy has a {wanted}", f"kinds: {kinds}")
if os.path.exists(os.path.join(DEPLOY, "Containerfile")):
    ok("manifests/deploy has a Containerfile")
else:
    not_ok("manifests/deploy has a Containerfile", "missing")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
