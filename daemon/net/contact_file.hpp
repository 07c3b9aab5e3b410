// The contact file of a Slurm job's leader: how a launcher on a host without the leader's
// Unix socket (the salloc shell on a login host) reaches it over TCP.
//
// ~/.psched/JOBID/contact (directory 0700, file 0600, under a home every host of the
// cluster shares) holds the leader's TCP address for launchers and the allocation secret:
//   address HOST:PORT
//   secret HEX
// The leader writes it when it listens (atomically: a reader never sees half of it) and
// removes it when it ends; the Slurm launcher sweeps those of ended jobs. The secret is so
// never on a command line, in the ranks' environment, or in /tmp.
#pragma once

#include <string>

#include "common/error.hpp"
#include "daemon/net/auth.hpp"

namespace psched::daemon {

struct Contact {
  std::string address;  // "host:port" of the leader's launcher listener
  Secret secret;
};

// $HOME (else the passwd entry's home) + "/.psched".
std::string ContactRoot();
// ContactRoot() + "/JOBID" and the contact file in it.
std::string ContactDir(const std::string& job_id);
std::string ContactPath(const std::string& job_id);

// Makes a job's directory `dir` (ContactDir) and the one above, 0700, when missing; refuses
// (kPermissionDenied) ones that are not 0700 directories of ours.
Result<void> MakeContactDir(const std::string& dir);

// Writes `contact` to `path`, making its directory and the one above 0700 when missing.
Result<void> WriteContact(const std::string& path, const std::string& address,
                          const Secret& secret);

// Reads the contact file of Slurm job `job_id`. Refuses (kPermissionDenied) a file or
// directory owned by another uid or open to group or others, and a malformed file
// (kInvalidArgument); each error names the job and the file. A missing file is an error
// with errno ENOENT.
Result<Contact> ReadContact(const std::string& path, const std::string& job_id);
// The text of a contact file, read: what ReadContact does once the file is found safe.
// `what` names the file in the error (the fuzz target contact_file_fuzz feeds it anything).
Result<Contact> ParseContact(const std::string& text, const std::string& what);

// Removes the file when it still names `address` (or always, when `address` is empty), the
// job's start lock (start_lock.hpp) unless a launcher holds it, and the directory when
// nothing else is left in it. A leader that ends removes only its own.
void RemoveContact(const std::string& path, const std::string& address = "");

}  // namespace psched::daemon
