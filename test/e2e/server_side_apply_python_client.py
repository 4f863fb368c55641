#!/usr/bin/python3
"""Server-side apply from the official Python client (Debian python3-kubernetes 22.6) against
`fedhpa apiserver`: its DynamicClient.server_side_apply sends PATCH application/apply-patch+yaml
with ?fieldManager= and ?force=. That version's REST layer serialises only JSON content types, so
the configuration is handed over already serialised (a dict body fails inside the client, before
any request). Usage: server_side_apply_python_client.py path/to/fedhpa"""
import json
import os
import sys
import tempfile

from kubernetes import client, dynamic
from kubernetes.client.rest import ApiException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyclient_lib import check, start_server, summary  # noqa: E402


def config(max_replicas):
    return json.dumps({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "php-apache", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "php-apache"},
                 "minReplicas": 1, "maxReplicas": max_replicas,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                     "type": "Utilization", "averageUtilization": 50}}}]}})


def managers(obj):
    return sorted((entry["manager"], entry["operation"]) for entry in obj["metadata"]["managedFields"])


def main():
    with tempfile.TemporaryDirectory() as data_dir:
        server, url = start_server(sys.argv[1], data_dir)
        try:
            configuration = client.Configuration()
            configuration.host = url
            dyn = dynamic.DynamicClient(client.ApiClient(configuration))
            hpas = dyn.resources.get(api_version="autoscaling/v2", kind="HorizontalPodAutoscaler")

            def apply(body, manager, force=None):
                return dyn.server_side_apply(hpas, body=body, name="php-apache", namespace="default",
                                             field_manager=manager, force_conflicts=force).to_dict()

            created = apply(config(10), "python-gitops")
            check("server-side apply creates the HPA", created["spec"]["maxReplicas"] == 10, created)
            check("the applier is recorded", managers(created) == [("python-gitops", "Apply")], managers(created))
            again = apply(config(10), "python-gitops")
            check("an identical apply leaves the resourceVersion",
                  again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"], again["metadata"])
            try:
                apply(config(20), "python-other")
                check("a second manager changing maxReplicas conflicts", False, "no error")
            except ApiException as error:
                status = json.loads(error.body)
                check("a second manager changing maxReplicas conflicts",
                      error.status == 409 and status["details"]["causes"][0]["field"] == ".spec.maxReplicas" and
                      'conflict with "python-gitops"' in status["message"], error.body)
            forced = apply(config(20), "python-other", force=True)
            check("force_conflicts takes the field over", forced["spec"]["maxReplicas"] == 20, forced["spec"])
            check("both managers are listed", managers(forced) == [("python-gitops", "Apply"), ("python-other", "Apply")],
                  managers(forced))
            try:
                dyn.server_side_apply(hpas, body=config(10), name="php-apache", namespace="default")
                check("apply without a field manager is refused", False, "no error")
            except ApiException as error:
                check("apply without a field manager is refused", error.status == 422 and b"fieldManager" in error.body,
                      error.body)
        finally:
            server.terminate()
            server.wait()
    sys.exit(summary())


if __name__ == "__main__":
    main()
