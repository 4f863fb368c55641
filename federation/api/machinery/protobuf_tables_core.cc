// core/v1 (k8s.io/api/core/v1/generated.proto): Namespace, Secret, ConfigMap, ServiceAccount, Event, and the
// pod template a Deployment carries.
#include "federation/api/machinery/protobuf_schema.h"

namespace fedhpa::api::machinery {

using namespace proto;

namespace {

void addPodTemplateTables(ProtoRegistry& registry) {
  registry.add("core.PodTemplateSpec", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "core.PodSpec")});
  registry.add("core.PodSpec",
               {msgs(1, "volumes", "core.Volume"), msgs(2, "containers", "core.Container"), str(3, "restartPolicy"),
                i64(4, "terminationGracePeriodSeconds", kPointer), i64(5, "activeDeadlineSeconds", kPointer),
                str(6, "dnsPolicy"), map(7, "nodeSelector"), str(8, "serviceAccountName"), str(9, "serviceAccount"),
                str(10, "nodeName"), boolean(11, "hostNetwork"), boolean(12, "hostPID"), boolean(13, "hostIPC"),
                msg(14, "securityContext", "core.PodSecurityContext", kPointer),
                msgs(15, "imagePullSecrets", "core.LocalObjectReference"), str(16, "hostname"), str(17, "subdomain"),
                str(19, "schedulerName"), msgs(20, "initContainers", "core.Container"),
                boolean(21, "automountServiceAccountToken", kPointer), msgs(22, "tolerations", "core.Toleration"),
                str(24, "priorityClassName"), i32(25, "priority", kPointer), boolean(27, "shareProcessNamespace", kPointer),
                str(29, "runtimeClassName", kPointer), boolean(30, "enableServiceLinks", kPointer),
                str(31, "preemptionPolicy", kPointer), boolean(35, "setHostnameAsFQDN", kPointer),
                boolean(37, "hostUsers", kPointer)});
  registry.add("core.Container",
               {str(1, "name", kAlways), str(2, "image"), strs(3, "command"), strs(4, "args"), str(5, "workingDir"),
                msgs(6, "ports", "core.ContainerPort"), msgs(7, "env", "core.EnvVar"),
                msg(8, "resources", "core.ResourceRequirements"), msgs(9, "volumeMounts", "core.VolumeMount"),
                msg(10, "livenessProbe", "core.Probe", kPointer), msg(11, "readinessProbe", "core.Probe", kPointer),
                str(13, "terminationMessagePath"), str(14, "imagePullPolicy"),
                msg(15, "securityContext", "core.SecurityContext", kPointer), boolean(16, "stdin"), boolean(17, "stdinOnce"),
                boolean(18, "tty"), msgs(19, "envFrom", "core.EnvFromSource"), str(20, "terminationMessagePolicy"),
                msg(22, "startupProbe", "core.Probe", kPointer), str(24, "restartPolicy", kPointer)});
  registry.add("core.ContainerPort", {str(1, "name"), i32(2, "hostPort"), i32(3, "containerPort", kAlways),
                                      str(4, "protocol"), str(5, "hostIP")});
  registry.add("core.EnvVar", {str(1, "name", kAlways), str(2, "value"), msg(3, "valueFrom", "core.EnvVarSource", kPointer)});
  registry.add("core.EnvVarSource", {msg(1, "fieldRef", "core.ObjectFieldSelector", kPointer),
                                     msg(2, "resourceFieldRef", "core.ResourceFieldSelector", kPointer),
                                     msg(3, "configMapKeyRef", "core.KeySelector", kPointer),
                                     msg(4, "secretKeyRef", "core.KeySelector", kPointer)});
  registry.add("core.ObjectFieldSelector", {str(1, "apiVersion"), str(2, "fieldPath", kAlways)});
  registry.add("core.ResourceFieldSelector", {str(1, "containerName"), str(2, "resource", kAlways), quantity(3, "divisor")});
  // ConfigMapKeySelector and SecretKeySelector: the same fields.
  registry.add("core.KeySelector", {inlined(1, "core.LocalObjectReference"), str(2, "key", kAlways),
                                    boolean(3, "optional", kPointer)});
  registry.add("core.EnvFromSource", {str(1, "prefix"), msg(2, "configMapRef", "core.EnvSource", kPointer),
                                      msg(3, "secretRef", "core.EnvSource", kPointer)});
  registry.add("core.EnvSource", {inlined(1, "core.LocalObjectReference"), boolean(2, "optional", kPointer)});
  registry.add("core.LocalObjectReference", {str(1, "name")});
  registry.add("core.ResourceRequirements", {map(1, "limits", ProtoKind::QuantityMap), map(2, "requests", ProtoKind::QuantityMap)});
  registry.add("core.VolumeMount", {str(1, "name", kAlways), boolean(2, "readOnly"), str(3, "mountPath", kAlways),
                                    str(4, "subPath"), str(5, "mountPropagation", kPointer), str(6, "subPathExpr")});
  registry.add("core.Probe", {inlined(1, "core.ProbeHandler"), i32(2, "initialDelaySeconds"), i32(3, "timeoutSeconds"),
                              i32(4, "periodSeconds"), i32(5, "successThreshold"), i32(6, "failureThreshold"),
                              i64(7, "terminationGracePeriodSeconds", kPointer)});
  registry.add("core.ProbeHandler", {msg(1, "exec", "core.ExecAction", kPointer), msg(2, "httpGet", "core.HTTPGetAction", kPointer),
                                     msg(3, "tcpSocket", "core.TCPSocketAction", kPointer)});
  registry.add("core.ExecAction", {strs(1, "command")});
  registry.add("core.HTTPGetAction", {str(1, "path"), intOrString(2, "port", kAlways), str(3, "host"), str(4, "scheme"),
                                      msgs(5, "httpHeaders", "core.HTTPHeader")});
  registry.add("core.HTTPHeader", {str(1, "name", kAlways), str(2, "value", kAlways)});
  registry.add("core.TCPSocketAction", {intOrString(1, "port", kAlways), str(2, "host")});
  registry.add("core.SecurityContext",
               {msg(1, "capabilities", "core.Capabilities", kPointer), boolean(2, "privileged", kPointer),
                i64(4, "runAsUser", kPointer), boolean(5, "runAsNonRoot", kPointer),
                boolean(6, "readOnlyRootFilesystem", kPointer), boolean(7, "allowPrivilegeEscalation", kPointer),
                i64(8, "runAsGroup", kPointer), msg(11, "seccompProfile", "core.SeccompProfile", kPointer)});
  registry.add("core.Capabilities", {strs(1, "add"), strs(2, "drop")});
  registry.add("core.SeccompProfile", {str(1, "type", kAlways), str(2, "localhostProfile", kPointer)});
  registry.add("core.PodSecurityContext",
               {i64(2, "runAsUser", kPointer), boolean(3, "runAsNonRoot", kPointer), i64(5, "fsGroup", kPointer),
                i64(6, "runAsGroup", kPointer), msg(10, "seccompProfile", "core.SeccompProfile", kPointer)});
  registry.add("core.Toleration", {str(1, "key"), str(2, "operator"), str(3, "value"), str(4, "effect"),
                                   i64(5, "tolerationSeconds", kPointer)});
  registry.add("core.Volume", {str(1, "name", kAlways), inlined(2, "core.VolumeSource")});
  registry.add("core.VolumeSource", {msg(1, "hostPath", "core.HostPathVolumeSource", kPointer),
                                     msg(2, "emptyDir", "core.EmptyDirVolumeSource", kPointer),
                                     msg(6, "secret", "core.SecretVolumeSource", kPointer),
                                     msg(10, "persistentVolumeClaim", "core.PersistentVolumeClaimVolumeSource", kPointer),
                                     msg(19, "configMap", "core.ConfigMapVolumeSource", kPointer)});
  registry.add("core.HostPathVolumeSource", {str(1, "path", kAlways), str(2, "type", kPointer)});
  registry.add("core.EmptyDirVolumeSource", {str(1, "medium"), quantity(2, "sizeLimit", kPointer)});
  registry.add("core.SecretVolumeSource", {str(1, "secretName"), msgs(2, "items", "core.KeyToPath"),
                                           i32(3, "defaultMode", kPointer), boolean(4, "optional", kPointer)});
  registry.add("core.ConfigMapVolumeSource", {inlined(1, "core.LocalObjectReference"), msgs(2, "items", "core.KeyToPath"),
                                              i32(3, "defaultMode", kPointer), boolean(4, "optional", kPointer)});
  registry.add("core.KeyToPath", {str(1, "key", kAlways), str(2, "path", kAlways), i32(3, "mode", kPointer)});
  registry.add("core.PersistentVolumeClaimVolumeSource", {str(1, "claimName", kAlways), boolean(2, "readOnly")});
}

}  // namespace

void addCoreTables(ProtoRegistry& registry) {
  addPodTemplateTables(registry);
  registry.add("core.Namespace", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "core.NamespaceSpec"),
                                  msg(3, "status", "core.NamespaceStatus")});
  registry.add("core.NamespaceSpec", {strs(1, "finalizers")});
  registry.add("core.NamespaceStatus", {str(1, "phase"), msgs(2, "conditions", "core.NamespaceCondition")});
  registry.add("core.NamespaceCondition", {str(1, "type", kAlways), str(2, "status", kAlways),
                                           time(4, "lastTransitionTime"), str(5, "reason"), str(6, "message")});
  registry.add("core.Secret", {msg(1, "metadata", "meta.ObjectMeta"), map(2, "data", ProtoKind::BytesMap), str(3, "type"),
                               map(4, "stringData"), boolean(5, "immutable", kPointer)});
  registry.add("core.ConfigMap", {msg(1, "metadata", "meta.ObjectMeta"), map(2, "data"),
                                  map(3, "binaryData", ProtoKind::BytesMap), boolean(4, "immutable", kPointer)});
  registry.add("core.ServiceAccount", {msg(1, "metadata", "meta.ObjectMeta"), msgs(2, "secrets", "core.ObjectReference"),
                                       msgs(3, "imagePullSecrets", "core.LocalObjectReference"),
                                       boolean(4, "automountServiceAccountToken", kPointer)});
  registry.add("core.ObjectReference", {str(1, "kind"), str(2, "namespace"), str(3, "name"), str(4, "uid"),
                                        str(5, "apiVersion"), str(6, "resourceVersion"), str(7, "fieldPath")});
  registry.add("core.Event",
               {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "involvedObject", "core.ObjectReference"), str(3, "reason"),
                str(4, "message"), msg(5, "source", "core.EventSource"), time(6, "firstTimestamp"),
                time(7, "lastTimestamp"), i32(8, "count"), str(9, "type"), microTime(10, "eventTime"),
                msg(11, "series", "core.EventSeries", kPointer), str(12, "action"),
                msg(13, "related", "core.ObjectReference", kPointer), str(14, "reportingComponent", kAlways),
                str(15, "reportingInstance", kAlways)});
  registry.add("core.EventSource", {str(1, "component"), str(2, "host")});
  registry.add("core.EventSeries", {i32(1, "count"), microTime(2, "lastObservedTime")});
  registry.addKind("v1", "Namespace", "core.Namespace");
  registry.addKind("v1", "Secret", "core.Secret");
  registry.addKind("v1", "ConfigMap", "core.ConfigMap");
  registry.addKind("v1", "ServiceAccount", "core.ServiceAccount");
  registry.addKind("v1", "Event", "core.Event");
}

}  // namespace fedhpa::api::machinery
