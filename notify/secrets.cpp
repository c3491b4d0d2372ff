// The file format and its checks are common::read_secrets_file's; this only names the keys a
// channel login has.
#include "notify/secrets.h"

#include <array>

#include "common/secrets_file.h"
#include "common/try.h"

namespace notify {

common::Result<Credentials> read_secrets(const std::filesystem::path& file) {
    static constexpr std::array<std::string_view, 2> k_keys{"user", "password"};
    auto secrets = TRY(common::read_secrets_file(file, k_keys));
    Credentials credentials;
    if (const auto user = secrets.find("user"); user != secrets.end()) {
        credentials.user = user->second;
    }
    if (const auto password = secrets.find("password"); password != secrets.end()) {
        credentials.password = password->second;
    }
    return credentials;
}

common::Result<std::string> read_routing_key(const std::filesystem::path& file,
                                             const std::string& name) {
    auto secrets = TRY(common::read_secrets_file(file, {}));
    const auto key = secrets.find(name);
    if (key == secrets.end() || key->second.empty()) {
        return common::fail("secrets file " + file.string() + " has no routing key named '" + name +
                                "' (target pagerduty:" + name + ")",
                            "add a line `" + name +
                                " = ROUTING_KEY` (the Events API v2 integration key of the "
                                "PagerDuty service)");
    }
    return key->second;
}

}  // namespace notify
