#include "federation/cmd/up_pki.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace fedhpa::cmd {

namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("certificate generation failed: ") + what);
}

Key newKey() {
  Key key(EVP_EC_gen("P-256"));
  check(key != nullptr, "EC key");
  return key;
}

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

PemPair toPem(X509* cert, EVP_PKEY* key) {
  Bio certBio(BIO_new(BIO_s_mem()));
  Bio keyBio(BIO_new(BIO_s_mem()));
  check(certBio && keyBio && PEM_write_bio_X509(certBio.get(), cert) == 1 &&
            PEM_write_bio_PrivateKey(keyBio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM encoding");
  return {bioText(certBio.get()), bioText(keyBio.get())};
}

Cert readCert(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  check(cert != nullptr, "reading the CA certificate");
  return cert;
}

Key readKey(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  check(key != nullptr, "reading the CA key");
  return key;
}

// subject: {{"O", ...}, {"CN", ...}}; extensions as openssl's config syntax, e.g. {NID_key_usage, "critical,..."}.
PemPair issue(const std::vector<std::pair<std::string, std::string>>& subject,
              const std::vector<std::pair<int, std::string>>& extensions, X509* issuer, EVP_PKEY* issuerKey) {
  Key key = newKey();
  Cert cert(X509_new());
  check(cert != nullptr, "X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial) == 1, "serial");
  serial[0] &= 0x7f;
  BIGNUM* number = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert.get()));
  BN_free(number);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60 * 60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 60 * 60);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& [field, value] : subject)
    check(X509_NAME_add_entry_by_txt(name, field.c_str(), MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1, 0) == 1,
          "subject");
  X509* signer = issuer ? issuer : cert.get();
  EVP_PKEY* signerKey = issuerKey ? issuerKey : key.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  X509_set_pubkey(cert.get(), key.get());
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, signer, cert.get(), nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
    check(extension != nullptr, "extension");
    X509_add_ext(cert.get(), extension, -1);
    X509_EXTENSION_free(extension);
  }
  check(X509_sign(cert.get(), signerKey, EVP_sha256()) > 0, "signing");
  return toPem(cert.get(), key.get());
}

}  // namespace

PemPair newCertificateAuthority(const std::string& commonName) {
  return issue({{"CN", commonName}},
               {{NID_basic_constraints, "critical,CA:TRUE"}, {NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"}},
               nullptr, nullptr);
}

PemPair issueServerCertificate(const PemPair& ca) {
  const Cert caCert = readCert(ca.certificate);
  const Key caKey = readKey(ca.privateKey);
  return issue({{"CN", "fedhpa-apiserver"}},
               {{NID_basic_constraints, "critical,CA:FALSE"},
                {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                {NID_ext_key_usage, "serverAuth"},
                {NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"}},
               caCert.get(), caKey.get());
}

PemPair issueClientCertificate(const PemPair& ca, const std::string& commonName, const std::string& organization) {
  const Cert caCert = readCert(ca.certificate);
  const Key caKey = readKey(ca.privateKey);
  std::vector<std::pair<std::string, std::string>> subject;
  if (!organization.empty()) subject.push_back({"O", organization});
  subject.push_back({"CN", commonName});
  return issue(subject,
               {{NID_basic_constraints, "critical,CA:FALSE"},
                {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                {NID_ext_key_usage, "clientAuth"}},
               caCert.get(), caKey.get());
}

}  // namespace fedhpa::cmd
