#include "daemon/net/contact_file.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/read_file.hpp"
#include "daemon/net/start_lock.hpp"

namespace psched::daemon {
namespace {

std::string Octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// A directory psched makes for contact files: 0700, ours.
Result<void> MakePrivateDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Fail(Error::FromErrno("mkdir", "creating '" + dir + "'"));
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return Fail(Error::FromErrno("lstat", "'" + dir + "'"));
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    return Fail(ErrorCode::kPermissionDenied,
                "'" + dir + "' is not a directory of mode 0700 owned by uid " +
                    std::to_string(geteuid()) + " (mode " + Octal(st.st_mode) + ", uid " +
                    std::to_string(st.st_uid) + ")");
  }
  return {};
}

// Why `st` (of `what`, whose mode must be `want`) may not hold a secret; empty when it may.
std::string Unsafe(const struct stat& st, const std::string& what, const char* want) {
  if (st.st_uid != geteuid()) {
    return what + " is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " +
           std::to_string(geteuid()) + ")";
  }
  if ((st.st_mode & 077) != 0) {
    return what + " is open to others (mode " + Octal(st.st_mode) + "; it must be " + want +
           ": the allocation secret is in it)";
  }
  return "";
}

}  // namespace

std::string ContactRoot() {
  const char* home = std::getenv("HOME");
  std::string dir = home != nullptr ? home : "";
  if (dir.empty()) {
    if (const passwd* pw = getpwuid(geteuid()); pw != nullptr && pw->pw_dir != nullptr)
      dir = pw->pw_dir;
  }
  return dir + "/.psched";
}

std::string ContactDir(const std::string& job_id) {
  return ContactRoot() + "/" + job_id;
}

std::string ContactPath(const std::string& job_id) {
  return ContactDir(job_id) + "/contact";
}

Result<void> MakeContactDir(const std::string& dir) {
  if (auto ok = MakePrivateDir(std::filesystem::path(dir).parent_path()); !ok) return ok;
  return MakePrivateDir(dir);
}

Result<void> WriteContact(const std::string& path, const std::string& address,
                          const Secret& secret) {
  if (auto ok = MakeContactDir(std::filesystem::path(path).parent_path()); !ok) return ok;
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Fail(Error::FromErrno("open", "writing contact file '" + tmp + "'"));
  const std::string text = "address " + address + "\nsecret " + secret.Hex() + "\n";
  const ssize_t n = write(fd, text.data(), text.size());
  const int write_errno = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    unlink(tmp.c_str());
    return Fail(Error::FromErrno("write", "writing contact file '" + tmp + "'", write_errno));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = Error::FromErrno("rename", "writing contact file '" + path + "'");
    unlink(tmp.c_str());
    return Fail(e);
  }
  return {};
}

Result<Contact> ReadContact(const std::string& path, const std::string& job_id) {
  const std::string what = "the contact file '" + path + "' of Slurm job " + job_id;
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Fail(Error::FromErrno("lstat", what));
  if (!S_ISREG(st.st_mode))
    return Fail(ErrorCode::kPermissionDenied, what + " is not a regular file: refused");
  struct stat dir {};
  const std::string dir_path = std::filesystem::path(path).parent_path();
  if (lstat(dir_path.c_str(), &dir) != 0) return Fail(Error::FromErrno("lstat", what));
  std::string unsafe = Unsafe(st, what, "0600");
  if (unsafe.empty()) unsafe = Unsafe(dir, what + ": its directory", "0700");
  if (!unsafe.empty()) return Fail(ErrorCode::kPermissionDenied, unsafe + ": refused");
  auto text = ReadWholeFile(path, what);
  if (!text) return Fail(text.error());
  return ParseContact(*text, what);
}

Result<Contact> ParseContact(const std::string& text, const std::string& what) {
  std::istringstream lines(text);
  std::string key, value, secret_hex;
  Contact contact;
  while (lines >> key >> value) {
    if (key == "address") contact.address = value;
    if (key == "secret") secret_hex = value;
  }
  if (contact.address.find(':') == std::string::npos || secret_hex.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                what + " is malformed: it needs an 'address HOST:PORT' and a 'secret HEX' line");
  }
  auto secret = Secret::FromHex(secret_hex);
  if (!secret) return Fail(secret.error().Wrap(what));
  contact.secret = std::move(*secret);
  return contact;
}

void RemoveContact(const std::string& path, const std::string& address) {
  if (!address.empty()) {
    auto text = ReadWholeFile(path, path);
    if (!text || text->find("address " + address + "\n") == std::string::npos) return;
  }
  unlink(path.c_str());
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  RemoveFreeStartLock(dir / kStartLockName);  // kept while a launcher starts daemons
  rmdir(dir.c_str());                         // only when empty
}

}  // namespace psched::daemon
