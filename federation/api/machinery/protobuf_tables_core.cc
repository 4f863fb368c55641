// core/v1 (k8s.io/api/core/v1/generated.proto): Namespace, Secret, ConfigMap, ServiceAccount, Event, Service,
// and the pod template a Deployment carries.
#include "federation/api/machinery/protobuf_schema.h"

namespace fedhpa::api::machinery {

using namespace proto;

namespace {

// Where a pod may run: affinity, spread and DNS (PodSpec fields 18, 23, 26, 28, 33, 36, 38).
void addSchedulingTables(ProtoRegistry& registry) {
  registry.add("core.Affinity", {msg(1, "nodeAffinity", "core.NodeAffinity", kPointer),
                                 msg(2, "podAffinity", "core.PodAffinity", kPointer),
                                 msg(3, "podAntiAffinity", "core.PodAffinity", kPointer)});
  registry.add("core.NodeAffinity",
               {msg(1, "requiredDuringSchedulingIgnoredDuringExecution", "core.NodeSelector", kPointer),
                msgs(2, "preferredDuringSchedulingIgnoredDuringExecution", "core.PreferredSchedulingTerm")});
  registry.add("core.NodeSelector", {msgs(1, "nodeSelectorTerms", "core.NodeSelectorTerm")});
  registry.add("core.NodeSelectorTerm", {msgs(1, "matchExpressions", "core.NodeSelectorRequirement"),
                                         msgs(2, "matchFields", "core.NodeSelectorRequirement")});
  registry.add("core.NodeSelectorRequirement", {str(1, "key", kAlways), str(2, "operator", kAlways), strs(3, "values")});
  registry.add("core.PreferredSchedulingTerm", {i32(1, "weight", kAlways), msg(2, "preference", "core.NodeSelectorTerm", kAlways)});
  // PodAffinity and PodAntiAffinity: the same fields.
  registry.add("core.PodAffinity", {msgs(1, "requiredDuringSchedulingIgnoredDuringExecution", "core.PodAffinityTerm"),
                                    msgs(2, "preferredDuringSchedulingIgnoredDuringExecution", "core.WeightedPodAffinityTerm")});
  registry.add("core.PodAffinityTerm",
               {msg(1, "labelSelector", "meta.LabelSelector", kPointer), strs(2, "namespaces"), str(3, "topologyKey", kAlways),
                msg(4, "namespaceSelector", "meta.LabelSelector", kPointer), strs(5, "matchLabelKeys"),
                strs(6, "mismatchLabelKeys")});
  registry.add("core.WeightedPodAffinityTerm", {i32(1, "weight", kAlways), msg(2, "podAffinityTerm", "core.PodAffinityTerm", kAlways)});
  registry.add("core.TopologySpreadConstraint",
               {i32(1, "maxSkew", kAlways), str(2, "topologyKey", kAlways), str(3, "whenUnsatisfiable", kAlways),
                msg(4, "labelSelector", "meta.LabelSelector", kPointer), i32(5, "minDomains", kPointer),
                str(6, "nodeAffinityPolicy", kPointer), str(7, "nodeTaintsPolicy", kPointer), strs(8, "matchLabelKeys")});
  registry.add("core.HostAlias", {str(1, "ip", kAlways), strs(2, "hostnames")});
  registry.add("core.PodDNSConfig", {strs(1, "nameservers"), strs(2, "searches"), msgs(3, "options", "core.PodDNSConfigOption")});
  registry.add("core.PodDNSConfigOption", {str(1, "name"), str(2, "value", kPointer)});
  registry.add("core.PodReadinessGate", {str(1, "conditionType", kAlways)});
  registry.add("core.PodOS", {str(1, "name", kAlways)});
  registry.add("core.PodSchedulingGate", {str(1, "name", kAlways)});
}

void addPodTemplateTables(ProtoRegistry& registry) {
  registry.add("core.PodTemplateSpec", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "core.PodSpec")});
  registry.add("core.PodSpec",
               {msgs(1, "volumes", "core.Volume"), msgs(2, "containers", "core.Container"), str(3, "restartPolicy"),
                i64(4, "terminationGracePeriodSeconds", kPointer), i64(5, "activeDeadlineSeconds", kPointer),
                str(6, "dnsPolicy"), map(7, "nodeSelector"), str(8, "serviceAccountName"), str(9, "serviceAccount"),
                str(10, "nodeName"), boolean(11, "hostNetwork"), boolean(12, "hostPID"), boolean(13, "hostIPC"),
                msg(14, "securityContext", "core.PodSecurityContext", kPointer),
                msgs(15, "imagePullSecrets", "core.LocalObjectReference"), str(16, "hostname"), str(17, "subdomain"),
                msg(18, "affinity", "core.Affinity", kPointer), str(19, "schedulerName"),
                msgs(20, "initContainers", "core.Container"), boolean(21, "automountServiceAccountToken", kPointer),
                msgs(22, "tolerations", "core.Toleration"), msgs(23, "hostAliases", "core.HostAlias"),
                str(24, "priorityClassName"), i32(25, "priority", kPointer), msg(26, "dnsConfig", "core.PodDNSConfig", kPointer),
                boolean(27, "shareProcessNamespace", kPointer), msgs(28, "readinessGates", "core.PodReadinessGate"),
                str(29, "runtimeClassName", kPointer), boolean(30, "enableServiceLinks", kPointer),
                str(31, "preemptionPolicy", kPointer), map(32, "overhead", ProtoKind::QuantityMap),
                msgs(33, "topologySpreadConstraints", "core.TopologySpreadConstraint"),
                boolean(35, "setHostnameAsFQDN", kPointer), msg(36, "os", "core.PodOS", kPointer),
                boolean(37, "hostUsers", kPointer), msgs(38, "schedulingGates", "core.PodSchedulingGate"),
                msg(40, "resources", "core.ResourceRequirements", kPointer)});
  addSchedulingTables(registry);
  registry.add("core.Container",
               {str(1, "name", kAlways), str(2, "image"), strs(3, "command"), strs(4, "args"), str(5, "workingDir"),
                msgs(6, "ports", "core.ContainerPort"), msgs(7, "env", "core.EnvVar"),
                msg(8, "resources", "core.ResourceRequirements"), msgs(9, "volumeMounts", "core.VolumeMount"),
                msg(10, "livenessProbe", "core.Probe", kPointer), msg(11, "readinessProbe", "core.Probe", kPointer),
                msg(12, "lifecycle", "core.Lifecycle", kPointer), str(13, "terminationMessagePath"), str(14, "imagePullPolicy"),
                msg(15, "securityContext", "core.SecurityContext", kPointer), boolean(16, "stdin"), boolean(17, "stdinOnce"),
                boolean(18, "tty"), msgs(19, "envFrom", "core.EnvFromSource"), str(20, "terminationMessagePolicy"),
                msgs(21, "volumeDevices", "core.VolumeDevice"), msg(22, "startupProbe", "core.Probe", kPointer),
                msgs(23, "resizePolicy", "core.ContainerResizePolicy"), str(24, "restartPolicy", kPointer)});
  registry.add("core.VolumeDevice", {str(1, "name", kAlways), str(2, "devicePath", kAlways)});
  registry.add("core.ContainerResizePolicy", {str(1, "resourceName", kAlways), str(2, "restartPolicy", kAlways)});
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
                                    str(4, "subPath"), str(5, "mountPropagation", kPointer), str(6, "subPathExpr"),
                                    str(7, "recursiveReadOnly", kPointer)});
  registry.add("core.Probe", {inlined(1, "core.ProbeHandler"), i32(2, "initialDelaySeconds"), i32(3, "timeoutSeconds"),
                              i32(4, "periodSeconds"), i32(5, "successThreshold"), i32(6, "failureThreshold"),
                              i64(7, "terminationGracePeriodSeconds", kPointer)});
  registry.add("core.ProbeHandler", {msg(1, "exec", "core.ExecAction", kPointer), msg(2, "httpGet", "core.HTTPGetAction", kPointer),
                                     msg(3, "tcpSocket", "core.TCPSocketAction", kPointer),
                                     msg(4, "grpc", "core.GRPCAction", kPointer)});
  registry.add("core.GRPCAction", {i32(1, "port", kAlways), str(2, "service", kPointer)});
  registry.add("core.Lifecycle", {msg(1, "postStart", "core.LifecycleHandler", kPointer),
                                  msg(2, "preStop", "core.LifecycleHandler", kPointer), str(3, "stopSignal", kPointer)});
  registry.add("core.LifecycleHandler", {msg(1, "exec", "core.ExecAction", kPointer), msg(2, "httpGet", "core.HTTPGetAction", kPointer),
                                         msg(3, "tcpSocket", "core.TCPSocketAction", kPointer),
                                         msg(4, "sleep", "core.SleepAction", kPointer)});
  registry.add("core.SleepAction", {i64(1, "seconds", kAlways)});
  registry.add("core.ExecAction", {strs(1, "command")});
  registry.add("core.HTTPGetAction", {str(1, "path"), intOrString(2, "port", kAlways), str(3, "host"), str(4, "scheme"),
                                      msgs(5, "httpHeaders", "core.HTTPHeader")});
  registry.add("core.HTTPHeader", {str(1, "name", kAlways), str(2, "value", kAlways)});
  registry.add("core.TCPSocketAction", {intOrString(1, "port", kAlways), str(2, "host")});
  registry.add("core.SecurityContext",
               {msg(1, "capabilities", "core.Capabilities", kPointer), boolean(2, "privileged", kPointer),
                msg(3, "seLinuxOptions", "core.SELinuxOptions", kPointer), i64(4, "runAsUser", kPointer),
                boolean(5, "runAsNonRoot", kPointer), boolean(6, "readOnlyRootFilesystem", kPointer),
                boolean(7, "allowPrivilegeEscalation", kPointer), i64(8, "runAsGroup", kPointer), str(9, "procMount", kPointer),
                msg(10, "windowsOptions", "core.WindowsSecurityContextOptions", kPointer),
                msg(11, "seccompProfile", "core.SeccompProfile", kPointer)});
  registry.add("core.SELinuxOptions", {str(1, "user"), str(2, "role"), str(3, "type"), str(4, "level")});
  registry.add("core.WindowsSecurityContextOptions",
               {str(1, "gmsaCredentialSpecName", kPointer), str(2, "gmsaCredentialSpec", kPointer),
                str(3, "runAsUserName", kPointer), boolean(4, "hostProcess", kPointer)});
  registry.add("core.Capabilities", {strs(1, "add"), strs(2, "drop")});
  registry.add("core.SeccompProfile", {str(1, "type", kAlways), str(2, "localhostProfile", kPointer)});
  registry.add("core.PodSecurityContext",
               {msg(1, "seLinuxOptions", "core.SELinuxOptions", kPointer), i64(2, "runAsUser", kPointer),
                boolean(3, "runAsNonRoot", kPointer), i64s(4, "supplementalGroups"), i64(5, "fsGroup", kPointer),
                i64(6, "runAsGroup", kPointer), msgs(7, "sysctls", "core.Sysctl"),
                msg(8, "windowsOptions", "core.WindowsSecurityContextOptions", kPointer),
                str(9, "fsGroupChangePolicy", kPointer), msg(10, "seccompProfile", "core.SeccompProfile", kPointer),
                str(12, "supplementalGroupsPolicy", kPointer), str(13, "seLinuxChangePolicy", kPointer)});
  registry.add("core.Sysctl", {str(1, "name", kAlways), str(2, "value", kAlways)});
  registry.add("core.Toleration", {str(1, "key"), str(2, "operator"), str(3, "value"), str(4, "effect"),
                                   i64(5, "tolerationSeconds", kPointer)});
  registry.add("core.Volume", {str(1, "name", kAlways), inlined(2, "core.VolumeSource")});
  registry.add("core.VolumeSource", {msg(1, "hostPath", "core.HostPathVolumeSource", kPointer),
                                     msg(2, "emptyDir", "core.EmptyDirVolumeSource", kPointer),
                                     msg(6, "secret", "core.SecretVolumeSource", kPointer),
                                     msg(10, "persistentVolumeClaim", "core.PersistentVolumeClaimVolumeSource", kPointer),
                                     msg(16, "downwardAPI", "core.DownwardAPIVolumeSource", kPointer),
                                     msg(19, "configMap", "core.ConfigMapVolumeSource", kPointer),
                                     msg(26, "projected", "core.ProjectedVolumeSource", kPointer),
                                     msg(28, "csi", "core.CSIVolumeSource", kPointer)});
  registry.add("core.HostPathVolumeSource", {str(1, "path", kAlways), str(2, "type", kPointer)});
  registry.add("core.EmptyDirVolumeSource", {str(1, "medium"), quantity(2, "sizeLimit", kPointer)});
  registry.add("core.SecretVolumeSource", {str(1, "secretName"), msgs(2, "items", "core.KeyToPath"),
                                           i32(3, "defaultMode", kPointer), boolean(4, "optional", kPointer)});
  registry.add("core.ConfigMapVolumeSource", {inlined(1, "core.LocalObjectReference"), msgs(2, "items", "core.KeyToPath"),
                                              i32(3, "defaultMode", kPointer), boolean(4, "optional", kPointer)});
  registry.add("core.KeyToPath", {str(1, "key", kAlways), str(2, "path", kAlways), i32(3, "mode", kPointer)});
  registry.add("core.PersistentVolumeClaimVolumeSource", {str(1, "claimName", kAlways), boolean(2, "readOnly")});
  registry.add("core.DownwardAPIVolumeSource", {msgs(1, "items", "core.DownwardAPIVolumeFile"), i32(2, "defaultMode", kPointer)});
  registry.add("core.DownwardAPIVolumeFile",
               {str(1, "path", kAlways), msg(2, "fieldRef", "core.ObjectFieldSelector", kPointer),
                msg(3, "resourceFieldRef", "core.ResourceFieldSelector", kPointer), i32(4, "mode", kPointer)});
  registry.add("core.CSIVolumeSource", {str(1, "driver", kAlways), boolean(2, "readOnly", kPointer), str(3, "fsType", kPointer),
                                        map(4, "volumeAttributes"),
                                        msg(5, "nodePublishSecretRef", "core.LocalObjectReference", kPointer)});
  registry.add("core.ProjectedVolumeSource", {msgs(1, "sources", "core.VolumeProjection"), i32(2, "defaultMode", kPointer)});
  registry.add("core.VolumeProjection",
               {msg(1, "secret", "core.KeyProjection", kPointer), msg(2, "downwardAPI", "core.DownwardAPIProjection", kPointer),
                msg(3, "configMap", "core.KeyProjection", kPointer),
                msg(4, "serviceAccountToken", "core.ServiceAccountTokenProjection", kPointer),
                msg(5, "clusterTrustBundle", "core.ClusterTrustBundleProjection", kPointer)});
  // SecretProjection and ConfigMapProjection: the same fields (3, defaultMode, is the volume's).
  registry.add("core.KeyProjection", {inlined(1, "core.LocalObjectReference"), msgs(2, "items", "core.KeyToPath"),
                                      boolean(4, "optional", kPointer)});
  registry.add("core.DownwardAPIProjection", {msgs(1, "items", "core.DownwardAPIVolumeFile")});
  registry.add("core.ServiceAccountTokenProjection",
               {str(1, "audience"), i64(2, "expirationSeconds", kPointer), str(3, "path", kAlways)});
  registry.add("core.ClusterTrustBundleProjection",
               {str(1, "name", kPointer), str(2, "signerName", kPointer), msg(3, "labelSelector", "meta.LabelSelector", kPointer),
                str(4, "path", kAlways), boolean(5, "optional", kPointer)});
}

void addServiceTables(ProtoRegistry& registry) {
  registry.add("core.Service", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "core.ServiceSpec"),
                                msg(3, "status", "core.ServiceStatus")});
  // Numbered as fields were added: clusterIPs (18) and ipFamilies (19) follow ipFamilyPolicy (17);
  // 15 and 16 (ipFamily, topologyKeys) were removed and are not reused.
  registry.add("core.ServiceSpec",
               {msgs(1, "ports", "core.ServicePort"), map(2, "selector"), str(3, "clusterIP"), str(4, "type"),
                strs(5, "externalIPs"), str(7, "sessionAffinity"), str(8, "loadBalancerIP"),
                strs(9, "loadBalancerSourceRanges"), str(10, "externalName"), str(11, "externalTrafficPolicy"),
                i32(12, "healthCheckNodePort"), boolean(13, "publishNotReadyAddresses"),
                msg(14, "sessionAffinityConfig", "core.SessionAffinityConfig", kPointer), str(17, "ipFamilyPolicy", kPointer),
                strs(18, "clusterIPs"), strs(19, "ipFamilies"), boolean(20, "allocateLoadBalancerNodePorts", kPointer),
                str(21, "loadBalancerClass", kPointer), str(22, "internalTrafficPolicy", kPointer),
                str(23, "trafficDistribution", kPointer)});
  registry.add("core.ServicePort", {str(1, "name"), str(2, "protocol"), i32(3, "port", kAlways), intOrString(4, "targetPort"),
                                    i32(5, "nodePort"), str(6, "appProtocol", kPointer)});
  registry.add("core.SessionAffinityConfig", {msg(1, "clientIP", "core.ClientIPConfig", kPointer)});
  registry.add("core.ClientIPConfig", {i32(1, "timeoutSeconds", kPointer)});
  registry.add("core.ServiceStatus", {msg(1, "loadBalancer", "core.LoadBalancerStatus"), msgs(2, "conditions", "meta.Condition")});
  registry.add("core.LoadBalancerStatus", {msgs(1, "ingress", "core.LoadBalancerIngress")});
  registry.add("core.LoadBalancerIngress", {str(1, "ip"), str(2, "hostname"), str(3, "ipMode", kPointer),
                                            msgs(4, "ports", "core.PortStatus")});
  registry.add("core.PortStatus", {i32(1, "port", kAlways), str(2, "protocol", kAlways), str(3, "error", kPointer)});
  registry.addKind("v1", "Service", "core.Service");
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
  addServiceTables(registry);
  registry.addKind("v1", "Namespace", "core.Namespace");
  registry.addKind("v1", "Secret", "core.Secret");
  registry.addKind("v1", "ConfigMap", "core.ConfigMap");
  registry.addKind("v1", "ServiceAccount", "core.ServiceAccount");
  registry.addKind("v1", "Event", "core.Event");
}

}  // namespace fedhpa::api::machinery
