// UserAccount: what the passwd and group databases say of a uid (NSS: files, LDAP, sssd...).
// user_account() costs one passwd and one group-list lookup, which on a directory-backed site
// can be network calls: callers cache. nullopt when the uid has no passwd entry.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace common {

struct UserAccount {
    uid_t uid = 0;
    gid_t gid = 0;  // primary group
    std::string name;
    std::string home;
    std::string shell;
    std::vector<gid_t> groups;  // every group of the user, the primary one included

    [[nodiscard]] bool in_group(gid_t group) const;
};

[[nodiscard]] std::optional<UserAccount> user_account(uid_t uid);

// The supplementary groups of user `name` with primary group `gid` (getgrouplist).
[[nodiscard]] std::vector<gid_t> groups_of(const std::string& name, gid_t gid);

}  // namespace common
