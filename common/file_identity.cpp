// Why raw system calls: glibc's setgroups() (like setuid()) is a "setxid" call that it
// broadcasts to every thread, while the kernel keeps credentials per thread. Only the thread
// reading an owner's files may carry the owner's identity; the control-socket thread and the
// rest of the daemon keep root's. setfsuid()/setfsgid() are not broadcast, but are called the
// same way for symmetry and to read their result without glibc's caching.
#include "common/file_identity.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

#include "common/user_account.h"

namespace common {
namespace {

long set_fsuid(uid_t uid) {
    return ::syscall(SYS_setfsuid, uid);
}
long set_fsgid(gid_t gid) {
    return ::syscall(SYS_setfsgid, gid);
}

bool set_thread_groups(const std::vector<gid_t>& groups) {
    return ::syscall(SYS_setgroups, groups.size(), groups.data()) == 0;
}

std::vector<gid_t> thread_groups() {
    const int count = ::getgroups(0, nullptr);
    std::vector<gid_t> groups(count > 0 ? static_cast<std::size_t>(count) : 0);
    if (count > 0 && ::getgroups(count, groups.data()) != count) {
        groups.clear();
    }
    return groups;
}

// setfsuid() returns the previous value whatever happens; asking again (with an id that is
// never valid) tells whether the switch took.
bool fsuid_is(uid_t uid) {
    return static_cast<uid_t>(set_fsuid(static_cast<uid_t>(-1))) == uid;
}
bool fsgid_is(gid_t gid) {
    return static_cast<gid_t>(set_fsgid(static_cast<gid_t>(-1))) == gid;
}

}  // namespace

FileIdentity identity_of(uid_t uid, gid_t gid) {
    FileIdentity identity{uid, gid, {}};
    if (const auto account = user_account(uid)) {
        identity.groups = groups_of(account->name, gid);
    }
    return identity;
}

uid_t current_fsuid() {
    return static_cast<uid_t>(set_fsuid(static_cast<uid_t>(-1)));
}

Result<ScopedFileIdentity> ScopedFileIdentity::assume(const FileIdentity& identity) {
    ScopedFileIdentity scope;
    const uid_t self = ::geteuid();
    if (identity.uid == self && self != 0) {
        return scope;  // already that user: the kernel checks our own rights, which are theirs
    }
    if (self != 0) {
        return fail("the supervisor runs as uid " + std::to_string(self) +
                        " and cannot read files as uid " + std::to_string(identity.uid),
                    "run the site-wide daemon as root (it reads each job's files as the job's "
                    "owner), or one daemon per user");
    }
    scope.m_saved_groups = thread_groups();
    // Groups, gid, then uid; restore() undoes them in the same calls. Setting fsuid drops only
    // the file capabilities (CAP_DAC_*, CAP_FOWNER...), not CAP_SETGID, so any order works.
    if (!set_thread_groups(identity.groups)) {
        return fail("cannot switch to the groups of uid " + std::to_string(identity.uid),
                    "the daemon needs CAP_SETGID (the system unit grants it)");
    }
    set_fsgid(identity.gid);
    set_fsuid(identity.uid);
    scope.m_switched = true;  // from here on the destructor restores, whatever follows
    if (!fsgid_is(identity.gid) || !fsuid_is(identity.uid)) {
        return fail("cannot read files as uid " + std::to_string(identity.uid),
                    "the daemon needs CAP_SETUID and CAP_SETGID (the system unit grants them)");
    }
    return scope;
}

ScopedFileIdentity::ScopedFileIdentity(ScopedFileIdentity&& other) noexcept
    : m_switched(std::exchange(other.m_switched, false)),
      m_saved_groups(std::move(other.m_saved_groups)) {}

ScopedFileIdentity& ScopedFileIdentity::operator=(ScopedFileIdentity&& other) noexcept {
    if (this != &other) {
        restore();
        m_switched = std::exchange(other.m_switched, false);
        m_saved_groups = std::move(other.m_saved_groups);
    }
    return *this;
}

ScopedFileIdentity::~ScopedFileIdentity() {
    restore();
}

void ScopedFileIdentity::restore() noexcept {
    if (!std::exchange(m_switched, false)) {
        return;
    }
    set_fsuid(::geteuid());
    set_fsgid(::getegid());
    set_thread_groups(m_saved_groups);
}

}  // namespace common
