// core/v1's tables against bytes kube would produce (protobuf_fixture.h): Service as kubectl's
// typed commands send it and as kube-apiserver answers it, and the pod template's scheduling,
// lifecycle, security and volume fields.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "federation/api/machinery/protobuf.h"
#include "test/federation/api/machinery/protobuf_fixture.h"

namespace fedhpa::api::machinery {
namespace {

using nlohmann::json;
using namespace fixture;

// IntOrString as a number: {1 type=0, 2 intVal, 3 strVal}.
std::string intPort(std::uint64_t port) { return v(1, 0) + v(2, port) + s(3, ""); }

// A ServicePort with every non-pointer field: name, protocol, port, targetPort, nodePort.
std::string servicePort(const std::string& name, std::uint64_t port, std::uint64_t target, std::uint64_t nodePort) {
  return s(1, name) + s(2, "TCP") + v(3, port) + s(4, intPort(target)) + v(5, nodePort);
}

// ServiceSpec's non-pointer fields after ports and selector: clusterIP 3, type 4, sessionAffinity 7,
// loadBalancerIP 8, externalName 10, externalTrafficPolicy 11, healthCheckNodePort 12,
// publishNotReadyAddresses 13.
std::string serviceScalars(const std::string& type, const std::string& affinity, const std::string& externalPolicy = "") {
  return s(3, "") + s(4, type) + s(7, affinity) + s(8, "") + s(10, "") + s(11, externalPolicy) + v(12, 0) + v(13, 0);
}

// ServiceStatus{loadBalancer: {}}: a struct Go always writes.
const std::string kEmptyServiceStatus = s(1, "");

TEST(ProtobufService, DecodesKubectlCreateServiceClusterIP) {
  // `kubectl create service clusterip web --tcp=80:8080`.
  const std::string labels = entry(11, "app", "web");
  const std::string spec = s(1, servicePort("80-8080", 80, 8080, 0)) + entry(2, "app", "web") + serviceScalars("ClusterIP", "");
  const std::string body = envelope("v1", "Service", s(1, newObjectMeta("web", labels)) + s(2, spec) + s(3, kEmptyServiceStatus));
  EXPECT_EQ(decodeKubernetesProtobuf(body), json::parse(R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","labels":{"app":"web"}},
      "spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web"},
              "type":"ClusterIP"},
      "status":{"loadBalancer":{}}})"));
}

json storedNodePortService() {
  return json::parse(R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","namespace":"default","uid":"u5","resourceVersion":"11","generation":0,
                  "creationTimestamp":"2026-11-22T10:00:00Z","labels":{"app":"web"}},
      "spec":{"ports":[{"name":"http","protocol":"TCP","appProtocol":"http","port":80,"targetPort":"web","nodePort":30080}],
              "selector":{"app":"web"},"type":"NodePort","sessionAffinity":"ClientIP",
              "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"externalTrafficPolicy":"Local",
              "ipFamilyPolicy":"SingleStack","clusterIPs":["None"],"ipFamilies":["IPv4"],"internalTrafficPolicy":"Cluster",
              "trafficDistribution":"PreferClose","clusterIP":"None"},
      "status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.7","ipMode":"VIP","ports":[{"port":80,"protocol":"TCP","error":"Pending"}]}]},
                "conditions":[{"type":"LoadBalancerPortsError","status":"False","observedGeneration":1,
                               "lastTransitionTime":"2026-11-22T10:00:00Z","reason":"Ok","message":""}]}})");
}

std::string storedNodePortServiceBytes() {
  const std::string port = s(1, "http") + s(2, "TCP") + v(3, 80) + s(4, v(1, 1) + v(2, 0) + s(3, "web")) + v(5, 30080) +
                           s(6, "http");
  const std::string spec = s(1, port) + entry(2, "app", "web") + s(3, "None") + s(4, "NodePort") + s(7, "ClientIP") + s(8, "") +
                           s(10, "") + s(11, "Local") + v(12, 0) + v(13, 0) + s(14, s(1, v(1, 10800))) +
                           s(17, "SingleStack") + s(18, "None") + s(19, "IPv4") + s(22, "Cluster") + s(23, "PreferClose");
  const std::string ingress = s(1, "192.0.2.7") + s(2, "") + s(3, "VIP") + s(4, v(1, 80) + s(2, "TCP") + s(3, "Pending"));
  const std::string condition =
      s(1, "LoadBalancerPortsError") + s(2, "False") + v(3, 1) + s(4, kNov22) + s(5, "Ok") + s(6, "");
  return envelope("v1", "Service",
                  s(1, objectMeta("web", "default", "u5", "11", 0, entry(11, "app", "web"))) + s(2, spec) +
                      s(3, s(1, s(1, ingress)) + s(2, condition)));
}

TEST(ProtobufService, EncodesAsKubeApiserverDoesAndReadsBack) {
  EXPECT_EQ(encodeKubernetesProtobuf(storedNodePortService()), storedNodePortServiceBytes());
  json expected = storedNodePortService();
  expected["metadata"].erase("generation");  // zero: omitempty
  EXPECT_EQ(decodeKubernetesProtobuf(storedNodePortServiceBytes()), expected);
}

TEST(ProtobufService, AnExternalNameServiceAndALoadBalancerRoundTrip) {
  const char* objects[] = {
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"ext","namespace":"default"},
          "spec":{"type":"ExternalName","externalName":"db.example.com","sessionAffinity":"None"},"status":{"loadBalancer":{}}})",
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"lb","namespace":"default"},
          "spec":{"ports":[{"name":"a","protocol":"UDP","port":53,"targetPort":53},{"name":"b","protocol":"TCP","port":443,"targetPort":8443}],
                  "type":"LoadBalancer","externalIPs":["198.51.100.1"],"loadBalancerIP":"198.51.100.2",
                  "loadBalancerSourceRanges":["10.0.0.0/8"],"healthCheckNodePort":31000,"publishNotReadyAddresses":true,
                  "allocateLoadBalancerNodePorts":false,"loadBalancerClass":"example.com/lb","externalTrafficPolicy":"Local"},
          "status":{"loadBalancer":{"ingress":[{"hostname":"lb.example.com"}]}}})",
  };
  for (const char* text : objects) {
    const json object = json::parse(text);
    EXPECT_EQ(decodeKubernetesProtobuf(encodeKubernetesProtobuf(object)), object) << text;
  }
}

// A Deployment whose pod template uses the scheduling, lifecycle, probe, security and volume fields
// kubectl users write: JSON -> protobuf -> the same JSON, nothing dropped.
json richDeployment() {
  return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"strategy":{},"template":{"metadata":{"labels":{"app":"web"}},"spec":{
        "affinity":{
          "nodeAffinity":{
            "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
              {"matchExpressions":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64","arm64"]}],
               "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution":[
              {"weight":10,"preference":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}}]},
          "podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
              {"labelSelector":{"matchLabels":{"app":"cache"}},"topologyKey":"kubernetes.io/hostname","namespaces":["other"],
               "namespaceSelector":{},"matchLabelKeys":["pod-template-hash"]}]},
          "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
              {"weight":100,"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]},
                                               "topologyKey":"topology.kubernetes.io/zone","mismatchLabelKeys":["x"]}}]}},
        "tolerations":[{"key":"dedicated","operator":"Equal","value":"web","effect":"NoExecute","tolerationSeconds":300}],
        "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway",
                                      "labelSelector":{"matchLabels":{"app":"web"}},"minDomains":2,"nodeAffinityPolicy":"Honor",
                                      "nodeTaintsPolicy":"Ignore","matchLabelKeys":["pod-template-hash"]}],
        "hostAliases":[{"ip":"127.0.0.1","hostnames":["foo.local","bar.local"]}],
        "dnsConfig":{"nameservers":["1.1.1.1"],"searches":["svc.example"],"options":[{"name":"ndots","value":"2"},{"name":"edns0"}]},
        "readinessGates":[{"conditionType":"example.com/ready"}],"os":{"name":"linux"},
        "schedulingGates":[{"name":"example.com/gate"}],"overhead":{"cpu":"250m"},
        "securityContext":{"runAsUser":1000,"runAsGroup":3000,"fsGroup":2000,"supplementalGroups":[4000,5000],
                           "sysctls":[{"name":"net.core.somaxconn","value":"1024"}],"fsGroupChangePolicy":"OnRootMismatch",
                           "seLinuxOptions":{"level":"s0:c123,c456"},"seccompProfile":{"type":"RuntimeDefault"},
                           "supplementalGroupsPolicy":"Strict","seLinuxChangePolicy":"Recursive"},
        "containers":[{"name":"web","image":"nginx:1.27",
          "livenessProbe":{"grpc":{"port":9000,"service":"health"},"initialDelaySeconds":3,"failureThreshold":5},
          "readinessProbe":{"exec":{"command":["cat","/tmp/ready"]},"periodSeconds":5,"successThreshold":1,"timeoutSeconds":2},
          "startupProbe":{"httpGet":{"path":"/started","port":"http","scheme":"HTTPS","httpHeaders":[{"name":"X-A","value":"b"}]},
                          "terminationGracePeriodSeconds":10},
          "lifecycle":{"postStart":{"exec":{"command":["/bin/warm"]}},"preStop":{"sleep":{"seconds":5}},"stopSignal":"SIGTERM"},
          "securityContext":{"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,"privileged":false,
                             "capabilities":{"add":["NET_BIND_SERVICE"],"drop":["ALL"]},"procMount":"Default",
                             "seLinuxOptions":{"user":"u","role":"r","type":"t","level":"s0"},
                             "windowsOptions":{"runAsUserName":"ContainerUser","hostProcess":false}},
          "resources":{"limits":{"cpu":"1","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},
          "resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],
          "volumeDevices":[{"name":"raw","devicePath":"/dev/xvda"}],
          "volumeMounts":[{"name":"tmp","mountPath":"/tmp"},{"name":"creds","mountPath":"/etc/creds","readOnly":true,
                           "recursiveReadOnly":"IfPossible"}]}],
        "volumes":[
          {"name":"tmp","emptyDir":{"medium":"Memory","sizeLimit":"64Mi"}},
          {"name":"creds","secret":{"secretName":"creds","items":[{"key":"user","path":"user.txt","mode":256}],"defaultMode":292,"optional":true}},
          {"name":"cfg","configMap":{"name":"settings","optional":false}},
          {"name":"data","persistentVolumeClaim":{"claimName":"data","readOnly":true}},
          {"name":"info","downwardAPI":{"items":[{"path":"labels","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.labels"}}],"defaultMode":420}},
          {"name":"inline","csi":{"driver":"csi.example.com","readOnly":true,"volumeAttributes":{"a":"b"},"nodePublishSecretRef":{"name":"s"}}},
          {"name":"all","projected":{"defaultMode":420,"sources":[
            {"secret":{"name":"creds","items":[{"key":"k","path":"p"}]}},
            {"configMap":{"name":"settings","optional":true}},
            {"downwardAPI":{"items":[{"path":"cpu","resourceFieldRef":{"containerName":"web","resource":"limits.cpu","divisor":"1m"}}]}},
            {"serviceAccountToken":{"audience":"vault","expirationSeconds":3600,"path":"token"}},
            {"clusterTrustBundle":{"signerName":"example.com/signer","labelSelector":{},"path":"ca.pem","optional":true}}]}}]}}},
      "status":{}})");
}

TEST(ProtobufPodTemplate, ADeploymentWithEveryCommonPodFieldRoundTrips) {
  const json deployment = richDeployment();
  const json back = decodeKubernetesProtobuf(encodeKubernetesProtobuf(deployment));
  EXPECT_EQ(back["spec"]["template"]["spec"]["affinity"], deployment["spec"]["template"]["spec"]["affinity"]);
  EXPECT_EQ(back["spec"]["template"]["spec"]["volumes"], deployment["spec"]["template"]["spec"]["volumes"]);
  EXPECT_EQ(back["spec"]["template"]["spec"]["containers"], deployment["spec"]["template"]["spec"]["containers"]);
  EXPECT_EQ(back, deployment);
}

// The numbers themselves, where a wrong one would still round-trip: each piece as kube writes it.
TEST(ProtobufPodTemplate, SchedulingLifecycleAndSecurityUseKubesFieldNumbers) {
  const std::string encoded = encodeKubernetesProtobuf(richDeployment());
  const auto holds = [&](const std::string& bytes) { return encoded.find(bytes) != std::string::npos; };
  // PodSpec.affinity (18) -> Affinity.nodeAffinity (1) -> NodeAffinity.required (1) -> NodeSelector.nodeSelectorTerms (1).
  const std::string archTerm = s(1, s(1, "kubernetes.io/arch") + s(2, "In") + s(3, "amd64") + s(3, "arm64")) +
                               s(2, s(1, "metadata.name") + s(2, "NotIn") + s(3, "n1"));
  EXPECT_TRUE(holds(s(1, s(1, archTerm)))) << "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  // Affinity.podAntiAffinity (3) -> preferred (2) -> WeightedPodAffinityTerm {1 weight, 2 podAffinityTerm}, whose
  // PodAffinityTerm is {1 labelSelector, 3 topologyKey, 6 mismatchLabelKeys} here.
  const std::string antiTerm = s(1, s(2, s(1, "app") + s(2, "In") + s(3, "web"))) + s(3, "topology.kubernetes.io/zone") + s(6, "x");
  EXPECT_TRUE(holds(s(3, s(2, v(1, 100) + s(2, antiTerm)))));
  // Lifecycle {1 postStart, 2 preStop, 3 stopSignal}; LifecycleHandler.sleep is 4, SleepAction.seconds 1.
  EXPECT_TRUE(holds(s(12, s(1, s(1, s(1, "/bin/warm"))) + s(2, s(4, v(1, 5))) + s(3, "SIGTERM"))));
  // Probe {1 handler (inline), 2 initialDelaySeconds, 3 timeout, 4 period, 5 success, 6 failure}; ProbeHandler.grpc 4.
  EXPECT_TRUE(holds(s(10, s(1, s(4, v(1, 9000) + s(2, "health"))) + v(2, 3) + v(3, 0) + v(4, 0) + v(5, 0) + v(6, 5))));
  // PodSecurityContext.supplementalGroups (4): one varint field per element, as Go's proto2 marshaller writes them.
  EXPECT_TRUE(holds(v(4, 4000) + v(4, 5000) + v(5, 2000) + v(6, 3000) + s(7, s(1, "net.core.somaxconn") + s(2, "1024"))));
  // TopologySpreadConstraint {1 maxSkew, 2 topologyKey, 3 whenUnsatisfiable, 4 labelSelector, 5 minDomains,
  // 6 nodeAffinityPolicy, 7 nodeTaintsPolicy, 8 matchLabelKeys}.
  EXPECT_TRUE(holds(s(33, v(1, 1) + s(2, "topology.kubernetes.io/zone") + s(3, "ScheduleAnyway") +
                              s(4, entry(1, "app", "web")) + v(5, 2) + s(6, "Honor") + s(7, "Ignore") + s(8, "pod-template-hash"))));
  // VolumeSource.projected (26): sources (1) of VolumeProjection {1 secret, 2 downwardAPI, 3 configMap,
  // 4 serviceAccountToken, 5 clusterTrustBundle}, then defaultMode (2).
  const std::string secret = s(1, s(1, s(1, "creds")) + s(2, s(1, "k") + s(2, "p")));
  const std::string configMap = s(3, s(1, s(1, "settings")) + v(4, 1));
  const std::string downward = s(2, s(1, s(1, "cpu") + s(3, s(1, "web") + s(2, "limits.cpu") + s(3, s(1, "1m")))));
  const std::string token = s(4, s(1, "vault") + v(2, 3600) + s(3, "token"));
  const std::string bundle = s(5, s(2, "example.com/signer") + s(3, "") + s(4, "ca.pem") + v(5, 1));
  const std::string projected = s(1, secret) + s(1, configMap) + s(1, downward) + s(1, token) + s(1, bundle) + v(2, 420);
  EXPECT_TRUE(holds(s(1, "all") + s(2, s(26, projected))));
}

TEST(ProtobufPodTemplate, PackedRepeatedIntegersAreReadAsGoReadsThem) {
  // supplementalGroups as a packed field: key 4 length-delimited, then the varints back to back.
  const std::string packed = s(4, varint(4000) + varint(5000));
  const std::string podSpec = s(14, packed);
  const std::string raw = s(1, newObjectMeta("web")) + s(2, s(3, s(2, podSpec)));
  const json decoded = decodeKubernetesProtobuf(envelope("apps/v1", "Deployment", raw));
  EXPECT_EQ(decoded["spec"]["template"]["spec"]["securityContext"]["supplementalGroups"], json::parse("[4000,5000]"));
  EXPECT_THROW(decodeKubernetesProtobuf(envelope("apps/v1", "Deployment", s(2, s(3, s(2, s(14, s(4, "\xff"))))))), ProtobufError)
      << "a packed varint cut short";
}

}  // namespace
}  // namespace fedhpa::api::machinery
