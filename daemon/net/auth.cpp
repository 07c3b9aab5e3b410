#include "daemon/net/auth.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/read_file.hpp"

namespace psched::daemon {
namespace {

Result<void> InitSodium() {
  if (sodium_init() < 0) return Fail(ErrorCode::kSystem, "libsodium failed to initialise");
  return {};
}

std::string Message(const std::string& nonce, int node) {
  return nonce + ":" + std::to_string(node);
}

}  // namespace

Result<Secret> Secret::Generate() {
  if (auto ok = InitSodium(); !ok) return Fail(ok.error());
  Secret s;
  s.key_.resize(crypto_auth_KEYBYTES);
  crypto_auth_keygen(reinterpret_cast<unsigned char*>(s.key_.data()));
  return s;
}

Result<Secret> Secret::FromHex(const std::string& hex) {
  if (auto ok = InitSodium(); !ok) return Fail(ok.error());
  Secret s;
  s.key_.resize(crypto_auth_KEYBYTES);
  size_t len = 0;
  if (sodium_hex2bin(reinterpret_cast<unsigned char*>(s.key_.data()), s.key_.size(), hex.data(),
                     hex.size(), " \n", &len, nullptr) != 0 ||
      len != crypto_auth_KEYBYTES) {
    return Fail(
        ErrorCode::kInvalidArgument,
        "allocation secret must be " + std::to_string(2 * crypto_auth_KEYBYTES) + " hex digits");
  }
  return s;
}

Result<Secret> Secret::FromFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return Fail(Error::FromErrno("stat", "secret file '" + path + "'"));
  if (!S_ISREG(st.st_mode))
    return Fail(ErrorCode::kInvalidArgument, "secret file '" + path + "' is not a regular file");
  if ((st.st_mode & 077) != 0) {
    return Fail(ErrorCode::kPermissionDenied,
                "secret file '" + path + "' is readable by others (must be mode 0600)");
  }
  auto text = ReadWholeFile(path, "secret file '" + path + "'");
  if (!text) return Fail(text.error());
  auto s = FromHex(*text);
  if (!s) return Fail(s.error().Wrap("secret file '" + path + "'"));
  return s;
}

Result<void> Secret::WriteFile(const std::string& path) const {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Fail(Error::FromErrno("open", "writing secret file '" + path + "'"));
  std::string hex = Hex() + "\n";
  ssize_t n = write(fd, hex.data(), hex.size());
  close(fd);
  if (n != static_cast<ssize_t>(hex.size()))
    return Fail(Error::FromErrno("write", "writing secret file '" + path + "'"));
  return {};
}

std::string Secret::Hex() const {
  std::string hex(key_.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(key_.data()),
                 key_.size());
  hex.pop_back();
  return hex;
}

std::string Secret::Nonce() const {
  std::string nonce(32, '\0');
  randombytes_buf(nonce.data(), nonce.size());
  return nonce;
}

std::string Secret::Mac(const std::string& nonce, int node) const {
  std::string msg = Message(nonce, node);
  std::string mac(crypto_auth_BYTES, '\0');
  crypto_auth(reinterpret_cast<unsigned char*>(mac.data()),
              reinterpret_cast<const unsigned char*>(msg.data()), msg.size(),
              reinterpret_cast<const unsigned char*>(key_.data()));
  return mac;
}

bool Secret::Verify(const std::string& mac, const std::string& nonce, int node) const {
  if (mac.size() != crypto_auth_BYTES) return false;
  std::string msg = Message(nonce, node);
  return crypto_auth_verify(reinterpret_cast<const unsigned char*>(mac.data()),
                            reinterpret_cast<const unsigned char*>(msg.data()), msg.size(),
                            reinterpret_cast<const unsigned char*>(key_.data())) == 0;
}

}  // namespace psched::daemon
