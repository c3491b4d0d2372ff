#include "common/user_account.h"

#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <cerrno>

namespace common {

bool UserAccount::in_group(gid_t group) const {
    return group == gid || std::ranges::find(groups, group) != groups.end();
}

std::vector<gid_t> groups_of(const std::string& name, gid_t gid) {
    int count = 64;
    std::vector<gid_t> groups(static_cast<std::size_t>(count));
    // getgrouplist answers -1 and the count it needs when the buffer is too small.
    while (::getgrouplist(name.c_str(), gid, groups.data(), &count) < 0 && count < 65536) {
        groups.resize(
            static_cast<std::size_t>(std::max(count, static_cast<int>(groups.size()) * 2)));
        count = static_cast<int>(groups.size());
    }
    groups.resize(static_cast<std::size_t>(std::clamp(count, 0, static_cast<int>(groups.size()))));
    return groups;
}

std::optional<UserAccount> user_account(uid_t uid) {
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    while (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == ERANGE &&
           buffer.size() < (1U << 20)) {
        buffer.resize(buffer.size() * 2);
    }
    if (found == nullptr) {
        return std::nullopt;
    }
    UserAccount account;
    account.uid = uid;
    account.gid = found->pw_gid;
    account.name = found->pw_name ? found->pw_name : "";
    account.home = found->pw_dir ? found->pw_dir : "";
    account.shell = found->pw_shell ? found->pw_shell : "";
    account.groups = groups_of(account.name, account.gid);
    return account;
}

}  // namespace common
