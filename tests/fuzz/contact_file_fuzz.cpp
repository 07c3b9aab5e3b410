// The contact file's text (daemon/net/contact_file.hpp): a launcher on a login host reads
// it from a home every host shares, written by the leader, or by anyone who could. What
// parses has an address with a port and a secret whose hex prints back to what it read
// (case aside); every error names the file.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "daemon/net/contact_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psched::daemon;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto contact = ParseContact(text, "the contact file 'f'");
  if (!contact) {
    if (contact.error().message().find("'f'") == std::string::npos) std::abort();
    return 0;
  }
  if (contact->address.find(':') == std::string::npos) std::abort();
  auto again = Secret::FromHex(contact->secret.Hex());
  if (!again || again->Hex() != contact->secret.Hex()) std::abort();
  return 0;
}
