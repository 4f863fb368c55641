#include "federation/cmd/join_command.h"

#include <boost/algorithm/string/join.hpp>
#include <functional>
#include <iostream>
#include <sstream>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/join.h"
#include "clusters/client/rest_client.h"
#include "federation/cmd/flags.h"
#include "federation/common/duration.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/object_propagation.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

using clusters::json;

namespace {

struct JoinFlags {
  std::string name;
  std::string clusterContext;
  std::string kubeconfig;
  std::string hostContext = "federation-cluster";
  std::string tokenLifetime = "24h";
  bool dryRun = false;
};

enum class Command { Join, Unjoin };

// The flags join and unjoin share, NAME as the first argument; an exit code when parsing ends the command.
std::optional<int> parseJoinFlags(int argc, char** argv, const char* usage, Command command, JoinFlags& flags) {
  po::options_description options(usage);
  options.add_options()
      ("name", po::value<std::string>(&flags.name)->required(), "the member's name in the federation")
      ("kubeconfig", po::value<std::string>(&flags.kubeconfig), "kubeconfig file(s), ':'-separated (default $KUBECONFIG or ~/.kube/config)")
      ("host-context", po::value<std::string>(&flags.hostContext)->default_value("federation-cluster"), "the federation API's context");
  if (command == Command::Join)
    options.add_options()
        ("cluster-context", po::value<std::string>(&flags.clusterContext)->required(),
         "the member's context: a credential that may create the federation's identity there (namespace, ServiceAccount, RBAC)")
        ("token-lifetime", po::value<std::string>(&flags.tokenLifetime)->default_value("24h"),
         "how long the federation's token for the member lasts (the member may cut it; kube's minimum is 10m)")
        ("dry-run", po::bool_switch(&flags.dryRun), "print (YAML) what join would create, and write nothing");
  else
    options.add_options()
        ("cluster-context", po::value<std::string>(&flags.clusterContext),
         "the member's context, to delete the federation's identity there (default: NAME, when the kubeconfig has it)");
  po::positional_options_description positional;
  positional.add("name", 1);
  po::variables_map values;
  return parseFlags(argc, argv, options, values, &positional);
}

std::vector<std::filesystem::path> kubeconfigFiles(const std::string& flag) {
  if (flag.empty()) return clusters::defaultKubeconfigFiles();
  std::vector<std::filesystem::path> files;
  std::stringstream list(flag);
  std::string item;
  while (std::getline(list, item, ':'))
    if (!item.empty()) files.emplace_back(item);
  return files;
}

// An error as kubectl's StandardErrorMessage words it: "Error from server (Reason): ..." for what a
// server answered, kubectl's own line for a 401, a plain "error: ..." when no server answered (a
// connection that failed, a credential plugin that did).
std::string kubectlStyle(const clusters::ClientError& error) {
  if (error.code() == 0) return std::string("error: ") + error.what();
  if (error.code() == 401) return std::string("error: You must be logged in to the server (") + error.what() + ")";
  return "Error from server" + (error.reason().empty() ? "" : " (" + error.reason() + ")") + ": " + error.what();
}

// Runs one join/unjoin: errors as kubectl prints them, exit 1.
int run(const JoinFlags& flags, const std::function<std::string(clusters::KubeClient&, const clusters::Kubeconfig&)>& action) {
  clusters::initializeHttpClientPool(2);
  try {
    const auto config = clusters::loadKubeconfig(kubeconfigFiles(flags.kubeconfig));
    clusters::RestClient federation(config.resolve(flags.hostContext));
    std::cout << action(federation, config) << "\n";
    return 0;
  } catch (const clusters::KubeconfigError& error) {
    std::cerr << "error: " << error.what() << "\n";
  } catch (const clusters::ClientError& error) {
    std::cerr << kubectlStyle(error) << "\n";
  }
  return 1;
}

std::string joinDryRun(const JoinFlags& flags, const clusters::RestConfig& member) {
  std::vector<json> objects;
  for (const auto& planned : clusters::memberIdentityPlan()) objects.push_back(planned.object);
  const std::string placeholder = "<token of system:serviceaccount:" + std::string(clusters::kMemberNamespace) + ":" +
                                  clusters::kMemberServiceAccount + ", " + flags.tokenLifetime + ">";
  objects.push_back(clusters::kubeconfigSecret(flags.name, clusters::storedConfig(member, placeholder),
                                               {{clusters::kTokenExpirationAnnotation, "<when the token expires>"}}));
  objects.push_back(clusters::clusterObject(flags.name, member.server));
  return "# in the member (context " + flags.clusterContext + "): the first " + std::to_string(objects.size() - 2) +
         "; in the federation (context " + flags.hostContext + "): the Secret (its kubeconfig shown decoded below) and the Cluster\n" +
         clusters::yamlDocuments(objects) + "# kubeconfig in the Secret:\n" +
         clusters::flattenedKubeconfig(flags.name, clusters::storedConfig(member, placeholder)) + "\n";
}

}  // namespace

int joinMain(int argc, char** argv) {
  JoinFlags flags;
  if (const auto exit = parseJoinFlags(
          argc, argv,
          "fedhpa join NAME --cluster-context CTX [--kubeconfig K] [--host-context federation-cluster] [--token-lifetime 24h] [--dry-run]",
          Command::Join, flags))
    return *exit;
  const auto lifetime = parseDurationFlag(flags.tokenLifetime);
  if (!lifetime || *lifetime < std::chrono::seconds(1)) {
    std::cerr << "error: --token-lifetime: want a duration of at least 1s (" << kDurationSyntax << "), got " << flags.tokenLifetime << "\n";
    return kUsageError;
  }
  if (flags.dryRun) {
    try {
      const auto config = clusters::loadKubeconfig(kubeconfigFiles(flags.kubeconfig));
      std::cout << joinDryRun(flags, config.resolve(flags.clusterContext));
      return 0;
    } catch (const clusters::KubeconfigError& error) {
      std::cerr << "error: " << error.what() << "\n";
      return 1;
    }
  }
  return run(flags, [&](clusters::KubeClient& federation, const clusters::Kubeconfig& config) {
    const clusters::IssuedToken issued = clusters::joinMember(
        federation, flags.name, config.resolve(flags.clusterContext), std::chrono::duration_cast<std::chrono::seconds>(*lifetime));
    return "cluster.federation/" + flags.name + " joined as system:serviceaccount:" + clusters::kMemberNamespace + ":" +
           clusters::kMemberServiceAccount + (issued.expirationTimestamp.empty() ? "" : ", token until " + issued.expirationTimestamp);
  });
}

namespace {

// The member's client, from its Cluster and Secret, while they still exist; nullptr (and why) when
// it cannot be built.
std::unique_ptr<clusters::RestClient> memberClient(clusters::KubeClient& federation, const std::string& name, std::string& why) {
  try {
    const json cluster = federation.get(clusters::kClusters, "", name);
    const std::string secretName = cluster.value("spec", json::object()).value("secretRef", json::object()).value("name", name);
    const json secret = federation.get(clusters::kSecrets, clusters::kFederationNamespace, secretName);
    clusters::RestClientOptions options;
    options.requestTimeout = std::chrono::seconds(5);
    options.retry.attempts = 1;
    return std::make_unique<clusters::RestClient>(clusters::memberRestConfig(cluster, secret), options);
  } catch (const std::exception& error) {
    why = error.what();
    return nullptr;
  }
}

// The operator's client of the member (its --cluster-context, or the context named like it);
// nullptr (and why) when the kubeconfig has no such context.
std::unique_ptr<clusters::RestClient> adminClient(const clusters::Kubeconfig& config, const JoinFlags& flags, std::string& why) {
  const std::string context = flags.clusterContext.empty() ? flags.name : flags.clusterContext;
  try {
    return std::make_unique<clusters::RestClient>(config.resolve(context));
  } catch (const clusters::KubeconfigError& error) {
    why = std::string(error.what()) + "; pass --cluster-context";
    return nullptr;
  }
}

std::size_t releaseWith(clusters::KubeClient& member) {
  std::size_t released = 0;
  clusters::ListOptions managed;
  managed.labelSelector = std::string(controller::kManagedByLabel) + "=" + controller::kManagedByValue;
  std::vector<clusters::Resource> placed = {controller::kHpas, controller::kDeployments};
  for (const auto& resource : controller::propagatedObjects()) placed.push_back(resource);
  for (const auto& resource : placed) {
    for (json copy : member.list(resource, "", managed).value("items", json::array())) {
      copy["metadata"]["labels"].erase(controller::kManagedByLabel);
      member.update(resource, copy);  // with the resourceVersion just listed
      ++released;
    }
  }
  return released;
}

// What fedhpa placed on a member it no longer manages: the managed-by label comes off every copy,
// so the member's owners see them as theirs. Done after the unjoin, so that the controller has
// stopped watching the member and does not place a copy there again. With the federation's own
// credential; when the member refuses that (a token that expired while no controller renewed it),
// with the operator's. Best effort: an unreachable member is reported, and the unjoin stands.
std::string releaseCopies(clusters::RestClient* member, const std::string& why, clusters::RestClient* admin) {
  if (!member && !admin) return "; its copies could not be released (" + why + ")";
  try {
    try {
      return "; " + std::to_string(releaseWith(member ? *member : *admin)) + " copies released (no longer managed by fedhpa)";
    } catch (const clusters::ClientError& error) {
      if (!member || !admin || error.kind() != clusters::ClientError::Kind::Unauthorized) throw;
    }
    return "; " + std::to_string(releaseWith(*admin)) +
           " copies released with the operator's credential (the federation's was refused; no longer managed by fedhpa)";
  } catch (const std::exception& error) {
    return "; its copies could not all be released: " + std::string(error.what());
  }
}

// Deletes what join created in the member, with the operator's credential: the federation's own
// may not delete its roles (and must stop working). Best effort, like the release of the copies.
std::string removeIdentity(clusters::RestClient* admin, const std::string& why) {
  if (!admin) return "; its identity in the member is left in place (" + why + ")";
  try {
    const auto removal = clusters::removeMemberIdentity(*admin, clusters::memberIdentityPlan());
    std::string text = "; its identity in the member removed (" + std::to_string(removal.removed) + " objects)";
    if (!removal.kept.empty())
      text += "; kept, not created by fedhpa (no " + std::string(clusters::kIdentityManagedByLabel) + "=" +
              clusters::kIdentityManagedByValue + " label): " + boost::algorithm::join(removal.kept, ", ");
    return text;
  } catch (const std::exception& error) {
    return "; its identity in the member could not be removed: " + std::string(error.what());
  }
}

}  // namespace

int unjoinMain(int argc, char** argv) {
  JoinFlags flags;
  if (const auto exit = parseJoinFlags(argc, argv, "fedhpa unjoin NAME [--cluster-context CTX] [--kubeconfig K] [--host-context federation-cluster]",
                                       Command::Unjoin, flags))
    return *exit;
  return run(flags, [&](clusters::KubeClient& federation, const clusters::Kubeconfig& config) {
    std::string why, adminWhy;
    const auto member = memberClient(federation, flags.name, why);
    const auto admin = adminClient(config, flags, adminWhy);
    clusters::unjoinCluster(federation, flags.name);
    // In this order: the copies are released (with the federation's credential where it still
    // works), then the identity's removal ends that credential.
    const std::string released = releaseCopies(member.get(), why, admin.get());
    return "cluster.federation/" + flags.name + " unjoined" + released + removeIdentity(admin.get(), adminWhy);
  });
}

}  // namespace fedhpa::cmd
