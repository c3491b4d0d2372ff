// FileIdentity: the credentials a job's files are opened with. A site-wide daemon runs as root,
// but must read a job's logs, checkpoints and tracker files only as the job's owner could: a
// log path that names another user's private file must be refused by the kernel, not read.
//
// ScopedFileIdentity switches the filesystem credentials of the CALLING THREAD only (the
// setfsuid, setfsgid and setgroups system calls, made directly: glibc's setgroups() would
// change every thread of the process) and switches them back when destroyed. While fsuid is
// not 0 the kernel also drops the file capabilities (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
// CAP_FOWNER...) for this thread, so root's overrides do not apply. Nothing else may run on
// the thread meanwhile that needs the daemon's own rights (the database, the env files).
//
// Failures: assume() fails when the process may not change its credentials (not root and
// not already that uid): the caller must then not read the files at all.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace common {

struct FileIdentity {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;  // supplementary groups (the group database's, for uid's user)

    bool operator==(const FileIdentity&) const = default;
};

// uid with primary group `gid` and the supplementary groups the group database gives uid's
// user name (getgrouplist). A uid without a passwd entry gets no supplementary groups.
// Costs one passwd and one group-database lookup (NSS: may be a network call on LDAP sites).
[[nodiscard]] FileIdentity identity_of(uid_t uid, gid_t gid);

class ScopedFileIdentity {
  public:
    // Switches this thread's filesystem credentials to `identity`. When the process already
    // runs as identity.uid (per-user mode) nothing changes. Fails (nothing changed) when the
    // process is neither root nor that uid, or when the kernel refuses a switch.
    [[nodiscard]] static Result<ScopedFileIdentity> assume(const FileIdentity& identity);

    ScopedFileIdentity(ScopedFileIdentity&& other) noexcept;
    ScopedFileIdentity& operator=(ScopedFileIdentity&& other) noexcept;  // restores first
    ScopedFileIdentity(const ScopedFileIdentity&) = delete;
    ScopedFileIdentity& operator=(const ScopedFileIdentity&) = delete;
    ~ScopedFileIdentity();  // back to the process's own credentials
    // Back to the process's own credentials now; the destructor then does nothing.
    void restore() noexcept;

  private:
    ScopedFileIdentity() = default;
    bool m_switched = false;
    std::vector<gid_t> m_saved_groups;
};

// This thread's current filesystem uid (for tests and diagnostics).
[[nodiscard]] uid_t current_fsuid();

}  // namespace common
