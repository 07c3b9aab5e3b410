// The per-allocation secret and the HMAC challenge/response every peer link runs.
//
// The secret is 32 random bytes made at bootstrap (psched-alloc, the Slurm
// launcher or the embedded daemon), stored hex-encoded in a 0600 file or passed in
// PSCHED_SECRET; never on a command line. A parent sends a nonce, the child answers
// crypto_auth(nonce || node id) with its own nonce, the parent proves itself back.
#pragma once

#include <string>

#include "common/error.hpp"

namespace psched::daemon {

class Secret {
 public:
  static Result<Secret> Generate();
  // Reads the hex secret from a file that must be private (no group/other bits).
  static Result<Secret> FromFile(const std::string& path);
  static Result<Secret> FromHex(const std::string& hex);
  // Writes the secret to `path` with mode 0600 (fails if it exists).
  Result<void> WriteFile(const std::string& path) const;
  std::string Hex() const;

  std::string Nonce() const;  // a fresh random challenge
  std::string Mac(const std::string& nonce, int node) const;
  bool Verify(const std::string& mac, const std::string& nonce, int node) const;

 private:
  std::string key_;  // raw bytes
};

}  // namespace psched::daemon
