#!/usr/bin/python3
"""The official Python Kubernetes client (Debian python3-kubernetes) against `fedhpa apiserver`:
create, list, get, patch, watch and delete an HPA. Usage: apiserver_python_client.py path/to/fedhpa"""
import os
import sys
import tempfile
import threading

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyclient_lib import check, start_server, summary  # noqa: E402


# python3-kubernetes 22 (Debian 12) knows autoscaling/v1, so this also exercises the v1 view of
# objects stored as v2.
def hpa(name, max_replicas):
    return client.V1HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V1CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name=name),
            max_replicas=max_replicas, target_cpu_utilization_percentage=50))


def main():
    with tempfile.TemporaryDirectory() as data_dir:
        server, url = start_server(sys.argv[1], data_dir)
        try:
            configuration = client.Configuration()
            configuration.host = url
            api = client.AutoscalingV1Api(client.ApiClient(configuration))

            created = api.create_namespaced_horizontal_pod_autoscaler("default", hpa("php-apache", 10))
            check("create returns the stored, defaulted object", bool(created.metadata.uid) and created.spec.min_replicas == 1,
                  str(created.metadata))
            api.create_namespaced_horizontal_pod_autoscaler("default", hpa("other", 3))
            listed = api.list_namespaced_horizontal_pod_autoscaler("default")
            check("list shows both", sorted(i.metadata.name for i in listed.items) == ["other", "php-apache"],
                  str([i.metadata.name for i in listed.items]))
            got = api.read_namespaced_horizontal_pod_autoscaler("php-apache", "default")
            check("get reads the CPU target", got.spec.target_cpu_utilization_percentage == 50)

            events = []
            seen_first = threading.Event()
            seen_delete = threading.Event()

            def watch_hpas():
                for event in watch.Watch().stream(api.list_namespaced_horizontal_pod_autoscaler, "default",
                                                  field_selector="metadata.name=php-apache", timeout_seconds=20):
                    events.append((event["type"], event["object"].spec.max_replicas))
                    seen_first.set()
                    if event["type"] == "DELETED":
                        seen_delete.set()
                        return

            watcher = threading.Thread(target=watch_hpas)
            watcher.start()
            check("the watch starts with the current object", seen_first.wait(15), str(events))
            patched = api.patch_namespaced_horizontal_pod_autoscaler("php-apache", "default", {"spec": {"maxReplicas": 12}})
            check("patch changes maxReplicas", patched.spec.max_replicas == 12)
            check("patch bumps the generation", patched.metadata.generation == 2, str(patched.metadata.generation))
            api.delete_namespaced_horizontal_pod_autoscaler("php-apache", "default")
            check("the watch sees the delete", seen_delete.wait(15), str(events))
            watcher.join(5)
            types = [t for t, _ in events]
            check("the watch stream is ADDED, MODIFIED, DELETED", types[:1] == ["ADDED"] and "MODIFIED" in types
                  and types[-1] == "DELETED", str(events))
            check("the MODIFIED event carries the patch", ("MODIFIED", 12) in events, str(events))
            try:
                api.read_namespaced_horizontal_pod_autoscaler("php-apache", "default")
                check("get after delete is NotFound", False)
            except ApiException as error:
                check("get after delete is NotFound", error.status == 404 and "NotFound" in error.body, error.body)
            try:
                bad = hpa("bad", 2)
                bad.spec.min_replicas = 5
                api.create_namespaced_horizontal_pod_autoscaler("default", bad)
                check("an invalid HPA is refused", False)
            except ApiException as error:
                check("an invalid HPA is refused with 422", error.status == 422 and "minReplicas" in error.body, error.body)
        finally:
            server.terminate()
            server.wait(10)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
