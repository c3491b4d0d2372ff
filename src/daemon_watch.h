// Who watches: what `register`, `sbatch`, `status` and `doctor` say of the daemon that will act
// on a job. Over the control channel the daemon answers `daemon` (its host, pid and the end of
// its last poll cycle); in per-user mode on this host, the pid in the state directory's
// daemon.lock, held while a daemon runs.
//
// A daemon is taken as serving while its last poll cycle ended within k_serving_within or three
// poll intervals, whichever is longer; a daemon that has not finished a cycle since it started
// that long ago is not. ask_daemon_info() fails as control::call() does, and for a daemon too
// old to answer `daemon`.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "commands.h"
#include "common/error.h"
#include "control/client.h"
#include "control/protocol.h"
#include "ops/doctor.h"

namespace cli {

inline constexpr std::chrono::seconds k_serving_within{120};

struct Watcher {
    bool serving = false;
    std::string line;  // "watched by the daemon pid 12 on head1 (last poll cycle 3 s ago)"
};

[[nodiscard]] common::Result<control::DaemonInfo> ask_daemon_info(
    const control::DaemonRoute& route);
// What a person is told of `info`, asked through `route`.
[[nodiscard]] Watcher describe_watcher(const control::DaemonInfo& info,
                                       const control::DaemonRoute& route);
// The same for the per-user daemon of `state_dir`, found by its lock.
[[nodiscard]] Watcher describe_local_watcher(const std::filesystem::path& state_dir);
// The watcher of `route` (or of the state directory when it is nullopt), any failure told as
// a not-serving Watcher.
[[nodiscard]] Watcher find_watcher(const std::optional<control::DaemonRoute>& route,
                                   const std::filesystem::path& state_dir);
// doctor's `control_channel` line: ok when a daemon serves this host's commands (and its jobs'
// `supervisor env`), warn when the one found does not watch now or none is set up, FAIL when the
// one set up cannot be asked (then jobs on this host get no resume settings).
[[nodiscard]] ops::Check check_control_channel(const GlobalOptions& global);

// After a registration: the watcher's line on `serving_to` when it serves (stderr for
// `supervisor sbatch`, whose stdout is sbatch's), the warning on stderr when none does.
void say_watcher(const GlobalOptions& global, std::FILE* serving_to = stdout);

}  // namespace cli
