#include "federation/cmd/up_command.h"

#include <boost/algorithm/string/join.hpp>
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "clusters/client/join.h"
#include "clusters/client/kubeconfig.h"
#include "clusters/client/rest_client.h"
#include "clusters/sim/member_simulator.h"
#include "federation/api/machinery/base64.h"
#include "federation/apiserver/api_server.h"
#include "federation/apiserver/authz/bootstrap_policy.h"
#include "federation/cmd/controller_run.h"
#include "federation/cmd/flags.h"
#include "federation/cmd/member_model_flags.h"
#include "federation/cmd/serve.h"
#include "federation/cmd/storage_flags.h"
#include "federation/cmd/up_pki.h"
#include "federation/common/time_source.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

namespace {
constexpr std::chrono::seconds kUpMemberTokenLifetime = std::chrono::hours(24 * 365);
}

int upMain(int argc, char** argv) {
  StorageFlags storageFlags;
  std::string kubeconfigOut;
  int members = 3;
  int apiservers = 1;
  MemberModelFlags model;
  std::string auditLogPath;
  ControllerFlags flags;
  po::options_description options(
      "fedhpa up [--data-dir _output/data | --etcd-servers URL --apiservers N] [--kubeconfig-out _output/kubeconfig] [--members 3]\n"
      "    [--hpa-sync-period 5s] [--pod-startup-delay 0s] [--horizontal-pod-autoscaler-* as member-sim]");
  options.add_options()
      ("kubeconfig-out", po::value<std::string>(&kubeconfigOut)->default_value("_output/kubeconfig"), "where to write the kubeconfig")
      ("members", po::value<int>(&members)->default_value(3), "simulated member clusters")
      ("apiservers", po::value<int>(&apiservers)->default_value(1), "federation API servers, all on one storage (more than one needs --etcd-servers)")
      ("audit-log-path", po::value<std::string>(&auditLogPath), "the federation API's audit log (audit.k8s.io/v1 Events, one per line)");
  // The members' model, as member-sim takes it; a walkthrough's pace by default: syncs every 5 s,
  // pods ready at once.
  addMemberModelFlags(options, model, {"5s", "0s"});
  addStorageFlags(options, storageFlags, "_output/data");
  addControllerFlags(options, flags);
  po::variables_map vm;
  if (const auto exit = parseFlags(argc, argv, options, vm)) return *exit;
  const auto parsed = controllerOptions(flags);
  sim::MemberSimulatorOptions memberModel;
  const auto modelError = applyMemberModelFlags(vm, model, memberModel);
  if (const auto* error = std::get_if<std::string>(&parsed); error || modelError || members < 1) {
    std::cerr << "error: " << (error ? *error : modelError ? *modelError : "--members must be positive") << "\n";
    return kUsageError;
  }
  if (apiservers < 1 || (apiservers > 1 && storageFlags.etcdServers.empty())) {
    std::cerr << "error: --apiservers must be positive, and more than one share etcd (--etcd-servers)\n";
    return kUsageError;
  }
  blockSignals();
  clusters::initializeHttpClientPool(4);

  // The federation API servers, as one would expose them: HTTPS, client certificates, RBAC. The
  // operator is a system:master; the controller-manager has its own identity, bound to its role only.
  const auto pkiDir = std::filesystem::absolute(storageFlags.dataDir) / "pki";
  std::filesystem::create_directories(pkiDir);
  const PemPair ca = newCertificateAuthority("fedhpa-ca");
  const PemPair serving = issueServerCertificate(ca);
  const PemPair admin = issueClientCertificate(ca, "fedhpa-admin", "system:masters");
  const PemPair controllerIdentity = issueClientCertificate(ca, apiserver::authz::kControllerManagerUser, "");
  const auto writePrivate = [&](const std::string& name, const std::string& text) {
    const auto path = pkiDir / name;
    std::ofstream(path, std::ios::trunc) << text;
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    return path.string();
  };
  apiserver::ApiServerOptions serverOptions;
  serverOptions.http.threads = kFederationApiThreads;
  serverOptions.http.tls = apiserver::http::TlsOptions{writePrivate("apiserver.crt", serving.certificate),
                                                       writePrivate("apiserver.key", serving.privateKey)};
  serverOptions.http.clientCaFile = writePrivate("ca.crt", ca.certificate);
  serverOptions.security.mode = apiserver::authz::AuthorizationMode::Rbac;
  serverOptions.security.auditLogPath = auditLogPath;
  serverOptions.watchCache = watchCacheOptions(storageFlags);
  // One on SQLite, or several on one etcd, each with a storage of its own.
  std::vector<std::unique_ptr<apiserver::ApiServer>> federationServers;
  std::vector<std::string> federationUrls;
  for (int i = 0; i < apiservers; ++i) {
    auto storage = openStorage(storageFlags);
    if (const auto* error = std::get_if<std::string>(&storage)) {
      std::cerr << "error: " << *error << "\n";
      return 1;
    }
    federationServers.push_back(std::make_unique<apiserver::ApiServer>(
        std::move(std::get<std::unique_ptr<storage::Storage>>(storage)), api::federationResources(),
        serverOptions));
    federationUrls.push_back("https://127.0.0.1:" + std::to_string(federationServers.back()->start()));
  }
  const std::string& federationUrl = federationUrls.front();
  // The members.
  std::vector<std::unique_ptr<sim::MemberSimulator>> simulators;
  std::vector<std::pair<std::string, std::string>> memberUrls;
  // Each member as a real one is exposed: HTTPS, client certificates (the operator is a
  // system:master there too), service-account tokens and RBAC.
  for (int i = 1; i <= members; ++i) {
    sim::MemberSimulatorOptions memberOptions = memberModel;
    memberOptions.name = "member" + std::to_string(i);
    memberOptions.http.tls = serverOptions.http.tls;
    memberOptions.http.clientCaFile = serverOptions.http.clientCaFile;
    memberOptions.authorization = apiserver::authz::AuthorizationMode::Rbac;
    simulators.push_back(std::make_unique<sim::MemberSimulator>(memberOptions));
    memberUrls.push_back({memberOptions.name, "https://127.0.0.1:" + std::to_string(simulators.back()->start())});
  }
  // A kubeconfig with a context for each, as the walkthrough uses them: the federation and the
  // members as their admin.
  const auto data = [](const std::string& pem) { return api::machinery::encodeBase64(pem); };
  std::ostringstream config;
  // Several API servers: federation-cluster is the first, federation-apiserver-N each other one.
  std::vector<std::pair<std::string, std::string>> federationContexts = {{"federation-cluster", federationUrl}};
  for (std::size_t i = 1; i < federationUrls.size(); ++i)
    federationContexts.push_back({"federation-apiserver-" + std::to_string(i + 1), federationUrls[i]});
  config << "apiVersion: v1\nkind: Config\ncurrent-context: federation-cluster\nclusters:\n";
  for (const auto& [name, url] : federationContexts)
    config << "- name: " << name << "\n  cluster: {server: \"" << url
           << "\", certificate-authority-data: " << data(ca.certificate) << "}\n";
  for (const auto& [name, url] : memberUrls)
    config << "- name: " << name << "\n  cluster: {server: \"" << url
           << "\", certificate-authority-data: " << data(ca.certificate) << "}\n";
  config << "users:\n- name: admin\n  user: {client-certificate-data: " << data(admin.certificate)
         << ", client-key-data: " << data(admin.privateKey) << "}\ncontexts:\n";
  for (const auto& [name, url] : federationContexts)
    config << "- name: " << name << "\n  context: {cluster: " << name << ", user: admin, namespace: default}\n";
  for (const auto& [name, url] : memberUrls)
    config << "- name: " << name << "\n  context: {cluster: " << name << ", user: admin, namespace: default}\n";
  const auto kubeconfigPath = std::filesystem::absolute(kubeconfigOut);
  std::filesystem::create_directories(kubeconfigPath.parent_path());
  std::ofstream(kubeconfigPath) << config.str();
  std::filesystem::permissions(kubeconfigPath, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // The controller-manager's own kubeconfig, as kubeadm writes controller-manager.conf: its client
  // certificate (CN system:fedhpa-controller-manager, no group) for the first API server.
  std::ostringstream controllerConfig;
  controllerConfig << "apiVersion: v1\nkind: Config\ncurrent-context: controller-manager\nclusters:\n- name: federation-cluster\n"
                   << "  cluster: {server: \"" << federationUrl << "\", certificate-authority-data: " << data(ca.certificate)
                   << "}\nusers:\n- name: controller-manager\n  user: {client-certificate-data: "
                   << data(controllerIdentity.certificate) << ", client-key-data: " << data(controllerIdentity.privateKey)
                   << "}\ncontexts:\n- name: controller-manager\n  context: {cluster: federation-cluster, user: controller-manager}\n";
  const std::string controllerKubeconfig = writePrivate("controller-manager.kubeconfig", controllerConfig.str());

  // Every client from here on is read from those kubeconfigs, as `fedhpa join` and
  // `fedhpa controller-manager` read theirs.
  clusters::RestConfig adminConfig;
  std::vector<std::pair<std::string, clusters::RestConfig>> memberAdmins;
  clusters::RestConfig federationConfig;
  try {
    const clusters::Kubeconfig operatorKubeconfig = clusters::loadKubeconfig({kubeconfigPath});
    adminConfig = operatorKubeconfig.resolve("federation-cluster");
    for (const auto& [name, url] : memberUrls) memberAdmins.emplace_back(name, operatorKubeconfig.resolve(name));
    federationConfig = controllerFederationConfig({controllerKubeconfig}, "");
  } catch (const clusters::KubeconfigError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
  clusters::RestClient adminClient(adminConfig);
  for (const auto& [name, memberAdmin] : memberAdmins) {
    try {
      clusters::unjoinCluster(adminClient, name);  // from an earlier run, whose members are gone
    } catch (const clusters::ClientError&) {
    }
    // As `fedhpa join` does. The token lasts a year; the controller-manager renews it 24 hours
    // after it was issued, as any member's (token_rotator.h).
    clusters::joinMember(adminClient, name, memberAdmin, kUpMemberTokenLifetime);
  }
  clusters::RestClient federation(federationConfig, controllerClientOptions());
  RealTimeSource time;
  controller::ControllerManager manager(federation, memberClients(), std::get<controller::ControllerOptions>(parsed), time);
  std::cout << "federation up: API " << boost::algorithm::join(federationUrls, ", ") << ", " << members << " members\n"
            << "kubeconfig: " << kubeconfigPath.string() << "\n"
            << "Try (the walkthrough, in another terminal):\n"
            << "  export KUBECONFIG=" << kubeconfigPath.string() << "\n"
            << "  kubectl --context=federation-cluster get clusters\n"
            << "  kubectl --context=federation-cluster create -f manifests/php-apache-deployment.yaml\n"
            << "  kubectl --context=federation-cluster create -f manifests/php-apache-hpa.yaml\n"
            << "  kubectl --context=member1 get hpa php-apache\n"
            << "  kubectl --context=member1 annotate deploy php-apache sim.fedhpa.io/demand=8\n"
            << "  kubectl --context=federation-cluster describe hpa php-apache\n"
            << "Ctrl-C stops it." << std::endl;
  const int code = runManager(federationConfig, manager, flags.leaderElect, time);
  for (auto& simulator : simulators) simulator->stop();
  for (auto& server : federationServers) server->stop();
  return code;
}

}  // namespace fedhpa::cmd
