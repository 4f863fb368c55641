// The certificates `fedhpa up` serves the federation API with: a throwaway CA, the server's
// certificate (127.0.0.1, localhost), and one client certificate per identity, as kubeadm issues
// them: the operator's (O=system:masters) and the controller-manager's own (not a master).
#pragma once

#include <string>

namespace fedhpa::cmd {

struct PemPair {
  std::string certificate;
  std::string privateKey;
};

// A client certificate's identity: user = CN, groups = O.
PemPair issueClientCertificate(const PemPair& ca, const std::string& commonName, const std::string& organization);
PemPair issueServerCertificate(const PemPair& ca);
PemPair newCertificateAuthority(const std::string& commonName);

}  // namespace fedhpa::cmd
