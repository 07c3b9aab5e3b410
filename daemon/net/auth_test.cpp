#include "daemon/net/auth.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace psched::daemon {
namespace {

TEST(Auth, MacVerifiesOnlyWithTheSameSecretNonceAndNode) {
  auto a = Secret::Generate();
  auto b = Secret::Generate();
  ASSERT_TRUE(a && b);
  std::string nonce = a->Nonce();
  std::string mac = a->Mac(nonce, 3);
  EXPECT_TRUE(a->Verify(mac, nonce, 3));
  EXPECT_FALSE(a->Verify(mac, nonce, 4));
  EXPECT_FALSE(a->Verify(mac, a->Nonce(), 3));
  EXPECT_FALSE(b->Verify(mac, nonce, 3));
  EXPECT_FALSE(a->Verify("short", nonce, 3));
}

TEST(Auth, HexRoundTripAndBadHex) {
  auto a = Secret::Generate();
  auto b = Secret::FromHex(a->Hex());
  ASSERT_TRUE(b);
  std::string nonce = a->Nonce();
  EXPECT_TRUE(b->Verify(a->Mac(nonce, 1), nonce, 1));
  EXPECT_FALSE(Secret::FromHex("abc"));
  EXPECT_FALSE(Secret::FromHex(std::string(64, 'z')));
}

TEST(Auth, SecretFileMustBePrivate) {
  char dir[] = "/tmp/psched-auth-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/secret";
  auto a = Secret::Generate();
  ASSERT_TRUE(a->WriteFile(path));
  EXPECT_TRUE(Secret::FromFile(path));
  chmod(path.c_str(), 0644);
  auto bad = Secret::FromFile(path);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("0600"), std::string::npos);
  auto missing = Secret::FromFile(std::string(dir) + "/missing");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("No such file"), std::string::npos)
      << missing.error().ToString();
  // A directory is not taken for a file with the wrong contents.
  auto directory = Secret::FromFile(dir);
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message().find("is not a regular file"), std::string::npos)
      << directory.error().message();
  unlink(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace psched::daemon
