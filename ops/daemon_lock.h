// DaemonLock: one daemon per state directory. Two daemons on one store (a user unit plus one
// started in a terminal) acted on the same intent: a job that WAS requeued ended
// `completed/unrecoverable`. acquire() takes an exclusive flock(2) on "<state_dir>/daemon.lock"
// for as long as the DaemonLock lives (the kernel drops it when the process dies, so a crash
// never leaves a stale lock) and writes its pid there.
//
// Fails, without waiting, when another process holds the lock (naming its pid), or when the
// file cannot be created or is not a regular file (a symlink planted there is not followed).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/error.h"

namespace ops {

class DaemonLock {
  public:
    [[nodiscard]] static common::Result<DaemonLock> acquire(const std::filesystem::path& state_dir);
    // The pid a running daemon wrote in `state_dir`'s lock (one shared flock, taken and let go
    // at once: it never blocks the daemon); nullopt when no daemon holds it or there is none.
    [[nodiscard]] static std::optional<std::string> holder(const std::filesystem::path& state_dir);
    DaemonLock(DaemonLock&& other) noexcept;
    DaemonLock& operator=(DaemonLock&& other) noexcept;
    DaemonLock(const DaemonLock&) = delete;
    DaemonLock& operator=(const DaemonLock&) = delete;
    ~DaemonLock();

  private:
    explicit DaemonLock(int fd) : m_fd(fd) {}
    int m_fd = -1;
};

}  // namespace ops
