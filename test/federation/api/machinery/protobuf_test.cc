// The protobuf codec against bytes kube would produce: each fixture is assembled from
// generated.proto's field numbers (protobuf_fixture.h, not the codec under test), then decoded, and
// the codec's encoding compared with it byte for byte.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "federation/api/machinery/protobuf.h"
#include "federation/api/machinery/protobuf_schema.h"
#include "test/federation/api/machinery/protobuf_fixture.h"

namespace {

using nlohmann::json;
using namespace fedhpa::api::machinery;
using namespace fedhpa::api::machinery::fixture;

// IntOrString "25%": {1 type=1 (string), 2 intVal, 3 strVal}.
const std::string kQuarter = v(1, 1) + v(2, 0) + s(3, "25%");
// The container of `kubectl create deployment web --image=nginx`: every non-pointer Container field.
std::string nginxContainer(const std::string& pullPolicy, const std::string& messagePath, const std::string& messagePolicy) {
  return s(1, "nginx") + s(2, "nginx") + s(5, "") + s(8, "") + s(13, messagePath) + s(14, pullPolicy) + v(16, 0) +
         v(17, 0) + v(18, 0) + s(20, messagePolicy);
}
std::string podSpec(const std::string& container, const std::string& restart, const std::string& grace,
                    const std::string& dns) {
  return s(2, container) + s(3, restart) + grace + s(6, dns) + s(8, "") + s(9, "") + s(10, "") + v(11, 0) + v(12, 0) +
         v(13, 0) + s(16, "") + s(17, "") + s(19, "") + s(24, "");
}

TEST(ProtobufDeployment, DecodesKubectlCreateDeployment) {
  const std::string labels = entry(11, "app", "web");
  const std::string spec = v(1, 1) + s(2, entry(1, "app", "web")) +
                           s(3, s(1, newObjectMeta("", labels)) + s(2, podSpec(nginxContainer("", "", ""), "", "", ""))) +
                           s(4, s(1, "")) + v(5, 0) + v(7, 0);
  const std::string body = envelope("apps/v1", "Deployment", s(1, newObjectMeta("web", labels)) + s(2, spec) + s(3, v(1, 0)));
  EXPECT_EQ(decodeKubernetesProtobuf(body), json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","labels":{"app":"web"}},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
              "template":{"metadata":{"labels":{"app":"web"}},
                          "spec":{"containers":[{"name":"nginx","image":"nginx","resources":{}}]}},
              "strategy":{}},
      "status":{}})"));
}

json storedDeployment() {
  return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"default","uid":"u1","resourceVersion":"5","generation":1,
                  "creationTimestamp":"2026-11-22T10:00:00Z","labels":{"app":"web"}},
      "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
              "template":{"metadata":{"labels":{"app":"web"}},
                          "spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},"imagePullPolicy":"Always",
                                                 "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
                                  "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst"}},
              "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},
              "revisionHistoryLimit":10,"progressDeadlineSeconds":600},
      "status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2}})");
}

std::string storedDeploymentBytes() {
  const std::string labels = entry(11, "app", "web");
  const std::string container = nginxContainer("Always", "/dev/termination-log", "File");
  const std::string templateMeta = s(1, "") + s(2, "") + s(3, "") + s(4, "") + s(5, "") + s(6, "") + v(7, 0) + s(8, "") + labels;
  const std::string spec = v(1, 2) + s(2, entry(1, "app", "web")) +
                           s(3, s(1, templateMeta) + s(2, podSpec(container, "Always", v(4, 30), "ClusterFirst"))) +
                           s(4, s(1, "RollingUpdate") + s(2, s(1, kQuarter) + s(2, kQuarter))) + v(5, 0) + v(6, 10) +
                           v(7, 0) + v(9, 600);
  const std::string status = v(1, 1) + v(2, 2) + v(3, 2) + v(4, 2) + v(5, 0) + v(7, 2);
  return envelope("apps/v1", "Deployment",
                  s(1, objectMeta("web", "default", "u1", "5", 1, labels)) + s(2, spec) + s(3, status));
}

TEST(ProtobufDeployment, EncodesAsKubeApiserverDoes) {
  EXPECT_EQ(encodeKubernetesProtobuf(storedDeployment()), storedDeploymentBytes());
  EXPECT_EQ(decodeKubernetesProtobuf(storedDeploymentBytes()), storedDeployment());
}

json storedHpa() {
  return json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
      "metadata":{"name":"php","namespace":"default","uid":"u2","resourceVersion":"7","generation":1,
                  "creationTimestamp":"2026-11-22T10:00:00Z"},
      "spec":{"scaleTargetRef":{"kind":"Deployment","name":"php","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":10,
              "metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]},
      "status":{"currentReplicas":1,"desiredReplicas":1,
                "currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageValue":"120m","averageUtilization":12}}}],
                "conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-11-22T10:00:00Z","reason":"ReadyForNewScale"}]}})");
}

std::string storedHpaBytes() {
  const std::string metric = s(1, "Resource") + s(4, s(1, "cpu") + s(2, s(1, "Utilization") + v(4, 50)) + s(3, ""));
  const std::string spec = s(1, s(1, "Deployment") + s(2, "php") + s(3, "apps/v1")) + v(2, 1) + v(3, 10) + s(4, metric);
  const std::string current = s(1, "Resource") + s(4, s(1, "cpu") + s(2, s(2, s(1, "120m")) + v(3, 12)) + s(3, ""));
  const std::string condition = s(1, "AbleToScale") + s(2, "True") + s(3, kNov22) + s(4, "ReadyForNewScale") + s(5, "");
  const std::string status = v(3, 1) + v(4, 1) + s(5, current) + s(6, condition);
  return envelope("autoscaling/v2", "HorizontalPodAutoscaler",
                  s(1, objectMeta("php", "default", "u2", "7", 1)) + s(2, spec) + s(3, status));
}

TEST(ProtobufHpa, V2EncodesAsKubeApiserverDoesAndReadsBack) {
  EXPECT_EQ(encodeKubernetesProtobuf(storedHpa()), storedHpaBytes());
  EXPECT_EQ(decodeKubernetesProtobuf(storedHpaBytes()), storedHpa());
}

// HPAScalingRules numbers its fields out of JSON order: selectPolicy 1, policies 2,
// stabilizationWindowSeconds 3 (added later). kubectl describe reads v2 HPAs in protobuf.
TEST(ProtobufHpa, BehaviorRulesUseKubesFieldNumbers) {
  json hpa = storedHpa();
  hpa["spec"]["behavior"] = json::parse(R"({"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max",
      "policies":[{"type":"Pods","value":4,"periodSeconds":15}]},"scaleDown":{"selectPolicy":"Min"}})");
  const std::string metric = s(1, "Resource") + s(4, s(1, "cpu") + s(2, s(1, "Utilization") + v(4, 50)) + s(3, ""));
  const std::string scaleUp = s(1, "Max") + s(2, s(1, "Pods") + v(2, 4) + v(3, 15)) + v(3, 0);
  const std::string behavior = s(1, scaleUp) + s(2, s(1, "Min"));
  const std::string spec =
      s(1, s(1, "Deployment") + s(2, "php") + s(3, "apps/v1")) + v(2, 1) + v(3, 10) + s(4, metric) + s(5, behavior);
  const std::string encoded = encodeKubernetesProtobuf(hpa);
  EXPECT_NE(encoded.find(s(2, spec)), std::string::npos) << "the spec as kube writes it";
  EXPECT_EQ(decodeKubernetesProtobuf(encoded), hpa);
}

TEST(ProtobufScale, DecodesClientGoScaleUpdate) {
  const std::string raw = s(1, objectMeta("web", "default", "u1", "5", 0)) + s(2, v(1, 0)) + s(3, v(1, 2) + s(2, "app=web"));
  const json scale = decodeKubernetesProtobuf(envelope("autoscaling/v1", "Scale", raw));
  EXPECT_EQ(scale["spec"], json::parse(R"({"replicas":0})")) << "a scale to zero stays a scale to zero";
  EXPECT_EQ(scale["status"], json::parse(R"({"replicas":2,"selector":"app=web"})"));
  EXPECT_EQ(scale["metadata"]["resourceVersion"], "5");
}

TEST(ProtobufEvent, CoreEventRoundTripsWithMicroTime) {
  const std::string raw = s(1, objectMeta("php.1", "default", "u3", "9", 0)) +
                          s(2, s(1, "HorizontalPodAutoscaler") + s(2, "default") + s(3, "php") + s(4, "u2") +
                                   s(5, "autoscaling/v2") + s(6, "") + s(7, "")) +
                          s(3, "SuccessfulRescale") + s(4, "New size: 3") + s(5, s(1, "horizontal-pod-autoscaler") + s(2, "")) +
                          s(6, kNov22) + s(7, kNov22) + v(8, 2) + s(9, "Normal") + s(10, v(1, 1795341600) + v(2, 123456000)) +
                          s(12, "") + s(14, "fedhpa") + s(15, "");
  const json event = decodeKubernetesProtobuf(envelope("v1", "Event", raw));
  EXPECT_EQ(event["eventTime"], "2026-11-22T10:00:00.123456Z");
  EXPECT_EQ(event["firstTimestamp"], "2026-11-22T10:00:00Z");
  EXPECT_EQ(event["count"], 2);
  EXPECT_EQ(event["reportingInstance"], "") << "reportingInstance has no omitempty in Go";
  EXPECT_EQ(event["source"], json::parse(R"({"component":"horizontal-pod-autoscaler"})"));
  EXPECT_EQ(encodeKubernetesProtobuf(event), envelope("v1", "Event", raw));
}

TEST(ProtobufLease, PointerFieldsAppearOnlyWhenSet) {
  const json lease = json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
      "metadata":{"name":"fedhpa","namespace":"kube-system","uid":"u4","resourceVersion":"3","generation":0,
                  "creationTimestamp":"2026-11-22T10:00:00Z"},
      "spec":{"holderIdentity":"a","leaseDurationSeconds":15,"renewTime":"2026-11-22T10:00:00.500000Z","leaseTransitions":0}})");
  const std::string raw = s(1, objectMeta("fedhpa", "kube-system", "u4", "3", 0)) +
                          s(2, s(1, "a") + v(2, 15) + s(4, v(1, 1795341600) + v(2, 500000000)) + v(5, 0));
  EXPECT_EQ(encodeKubernetesProtobuf(lease), envelope("coordination.k8s.io/v1", "Lease", raw));
  json expected = lease;
  expected["metadata"].erase("generation");  // zero: omitempty
  EXPECT_EQ(decodeKubernetesProtobuf(envelope("coordination.k8s.io/v1", "Lease", raw)), expected);
}

// Every other built-in kind: JSON -> protobuf -> the same JSON.
TEST(ProtobufRoundTrip, EveryBuiltInKind) {
  const char* objects[] = {
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","labels":{"a":"b"}},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})",
      R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"default"},"data":{"k":"dmFsdWU="},"type":"Opaque","immutable":false})",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"data":{"app.conf":"x=1"},"binaryData":{"b":"AAE="},"immutable":true})",
      R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"fed","namespace":"default"},"imagePullSecrets":[{"name":"reg"}],"automountServiceAccountToken":false})",
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"name":"fed","namespace":"default"},"spec":{"audiences":["https://kubernetes.default.svc"],"expirationSeconds":3600},"status":{"token":"abc","expirationTimestamp":"2026-11-22T10:00:00Z"}})",
      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r","namespace":"default"},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})",
      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"b"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}})",
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{},"spec":{"resourceAttributes":{"verb":"get","resource":"pods"},"user":"alice","groups":["g"],"extra":{"scopes":["a","b"]}},"status":{"allowed":true,"reason":"RBAC"}})",
      R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","namespace":"default"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":4,"targetCPUUtilizationPercentage":50},"status":{"currentReplicas":1,"desiredReplicas":1,"lastScaleTime":"2026-11-22T10:00:00Z"}})",
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"v1","kind":"Namespace","name":"n","uid":"u","controller":true}],"finalizers":["f"],
          "managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1","time":"2026-11-22T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},
          "spec":{"replicas":0,"selector":{"matchExpressions":[{"key":"app","operator":"In","values":["d"]}]},"template":{"metadata":{"labels":{"app":"d"}},"spec":{
            "containers":[{"name":"c","image":"i:1","args":["-v"],"ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}],
                           "resources":{"limits":{"cpu":"500m"},"requests":{"cpu":"200m","memory":"64Mi"}},"volumeMounts":[{"name":"v","mountPath":"/data"}],
                           "readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5},"livenessProbe":{"tcpSocket":{"port":"http"}},
                           "securityContext":{"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}}}],
            "volumes":[{"name":"v","emptyDir":{}},{"name":"cfg","configMap":{"name":"c","defaultMode":420}}],
            "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],"nodeSelector":{"zone":"a"}}},
          "strategy":{"type":"Recreate"},"minReadySeconds":5,"paused":true},"status":{}})",
  };
  for (const char* text : objects) {
    const json object = json::parse(text);
    EXPECT_EQ(decodeKubernetesProtobuf(encodeKubernetesProtobuf(object)), object) << text;
  }
}

TEST(ProtobufStatus, EncodesAStatusError) {
  const json status = json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"deployments.apps \"x\" not found","reason":"NotFound","code":404,
      "details":{"name":"x","group":"apps","kind":"deployments"}})");
  const std::string raw = s(1, s(1, "") + s(2, "") + s(3, "")) + s(2, "Failure") + s(3, "deployments.apps \"x\" not found") +
                          s(4, "NotFound") + s(5, s(1, "x") + s(2, "apps") + s(3, "deployments") + v(5, 0) + s(6, "")) + v(6, 404);
  EXPECT_EQ(encodeKubernetesProtobuf(status), envelope("v1", "Status", raw));
  EXPECT_THROW(decodeKubernetesProtobuf(envelope("v1", "Status", raw)), ProtobufError) << "a Status is no request body";
}

TEST(ProtobufList, ItemsAreTheObjectsOwnMessages) {
  const std::string item = encodeKubernetesProtobuf(storedHpa());
  ProtobufListWriter writer("autoscaling/v2", "HorizontalPodAutoscalerList", json{{"resourceVersion", "12"}});
  const std::string prefix = writer.itemPrefix(protobufRawMessage(item));
  const std::string body = writer.head() + prefix + std::string(protobufRawMessage(item)) + std::string(ProtobufListWriter::tail());
  const std::string listRaw = s(1, s(1, "") + s(2, "12") + s(3, "")) + s(2, std::string(protobufRawMessage(storedHpaBytes())));
  EXPECT_EQ(body, envelope("autoscaling/v2", "HorizontalPodAutoscalerList", listRaw));
}

TEST(ProtobufWatch, FrameIsALengthAndABareWatchEvent) {
  const std::string object = storedDeploymentBytes();
  const std::string event = s(1, "MODIFIED") + s(2, s(1, object));
  const std::uint32_t size = static_cast<std::uint32_t>(event.size());
  const std::string length{static_cast<char>(size >> 24), static_cast<char>(size >> 16), static_cast<char>(size >> 8),
                           static_cast<char>(size)};
  EXPECT_EQ(protobufWatchFrame("MODIFIED", object), length + event);
}

TEST(ProtobufErrors, WrongWireTypesAndUnknownKindsAreErrors) {
  EXPECT_THROW(decodeKubernetesProtobuf(envelope("apps/v1", "Deployment", v(1, 3))), ProtobufError);
  EXPECT_THROW(decodeKubernetesProtobuf(envelope("apps/v1", "Deployment", s(1, s(8, v(1, 1ULL << 62))))),
               ProtobufError);  // a creationTimestamp no RFC 3339 time can hold
  EXPECT_THROW(decodeKubernetesProtobuf(envelope("federation/v1beta1", "Cluster", "")), ProtobufError);
  EXPECT_THROW(encodeKubernetesProtobuf(json{{"apiVersion", "federation/v1beta1"}, {"kind", "Cluster"}}), ProtobufError);
  // Unknown field numbers are skipped, as Go's unmarshallers skip them.
  EXPECT_EQ(decodeKubernetesProtobuf(envelope("v1", "Namespace", s(1, s(1, "n")) + s(99, "future"))),
            json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}})"));
}

}  // namespace
