// Token files as client-go reads them: again once the last read is a minute old (a projected
// service-account token rotates hourly), again at once after a 401, and the last good token kept
// while the file cannot be read.
#include "clusters/client/credential_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test/federation/common/fake_time_source.h"

namespace fedhpa::clusters {
namespace {

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("fedhpa-token-" + std::to_string(::getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void write(const std::string& token) { std::ofstream(path_) << token << "\n"; }
  std::filesystem::path path_;
  std::shared_ptr<testing::FakeTimeSource> time_ = std::make_shared<testing::FakeTimeSource>();
};

TEST_F(TokenFileTest, ARotatedTokenIsReadAfterAMinute) {
  write("first");
  RestConfig config;
  config.tokenFile = path_.string();
  auto source = credentialSourceFor(config, time_);
  EXPECT_EQ(source->current().bearerToken, "first");
  write("second");
  time_->advance(std::chrono::seconds(59));
  EXPECT_EQ(source->current().bearerToken, "first") << "read at most once a minute";
  time_->advance(std::chrono::seconds(1));
  EXPECT_EQ(source->current().bearerToken, "second");
}

TEST_F(TokenFileTest, A401ReadsTheFileAtOnce) {
  write("first");
  TokenFileCredentials source(path_.string(), {}, time_);
  const Credential sent = source.current();
  write("rotated");
  EXPECT_TRUE(source.rejected(sent)) << "a different token is worth one more try";
  EXPECT_EQ(source.current().bearerToken, "rotated");
  EXPECT_FALSE(source.rejected(source.current())) << "the file still holds the rejected token: nothing new to try";
}

TEST_F(TokenFileTest, AnUnreadableFileKeepsTheLastToken) {
  write("kept");
  TokenFileCredentials source(path_.string(), {}, time_);
  std::filesystem::remove(path_);
  time_->advance(std::chrono::minutes(2));
  EXPECT_EQ(source.current().bearerToken, "kept");
  EXPECT_THROW(TokenFileCredentials(path_.string(), {}, time_).current(), CredentialError) << "but without any token, no request goes out";
}

TEST_F(TokenFileTest, TheFileWinsOverAnInlineTokenAsInClientGo) {
  write("from-file");
  RestConfig config;
  config.bearerToken = "inline";
  config.tokenFile = path_.string();
  auto source = credentialSourceFor(config, time_);
  EXPECT_EQ(source->current().bearerToken, "from-file");
}

TEST(StaticCredentialsTest, A401IsFinal) {
  RestConfig config;
  config.bearerToken = "t";
  auto source = credentialSourceFor(config, std::make_shared<testing::FakeTimeSource>());
  EXPECT_EQ(source->current().bearerToken, "t");
  EXPECT_FALSE(source->rejected(source->current()));
}

}  // namespace
}  // namespace fedhpa::clusters
