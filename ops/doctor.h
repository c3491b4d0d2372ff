// `supervisor doctor`: checks that say what is wrong with an installation and what to do.
//
// Each check is a value (name, ok/warn/fail, what was found, the fix); none throws, none
// changes anything (the database is opened only when it already exists). A report has failed
// when any check failed; warnings do not fail it. src/command_doctor.cpp gathers the inputs
// (config, catalogue, Slurm client, store) the way `supervisor run` does and prints the report.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/error.h"
#include "node_evidence/prometheus_client.h"
#include "node_evidence/settings.h"
#include "notify/sender.h"
#include "notify/settings.h"
#include "recovery/catalogue.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config/config.h"

namespace ops {

enum class CheckStatus { ok, warn, fail };
[[nodiscard]] std::string_view to_string(CheckStatus status);  // "ok", "warn", "FAIL"

struct Check {
    std::string name;  // "config", "slurmctld", ...
    CheckStatus status = CheckStatus::ok;
    std::string message;  // what was found
    std::string fix;      // what to do; empty for ok

    bool operator==(const Check&) const = default;
};

struct DoctorReport {
    std::vector<Check> checks;
    [[nodiscard]] bool failed() const;
};

// One line per check: "ok    name: message" / "FAIL  name: message; fix: ...".
[[nodiscard]] std::string render_text(const DoctorReport& report);
// {"ok": bool, "checks": [{"name", "status" ("ok"|"warn"|"fail"), "message", "fix"}]}
[[nodiscard]] nlohmann::json render_json(const DoctorReport& report);

// --- checks of the local installation (doctor_checks.cpp) ------------------------------
// `source`: the file it came from, or a note that none exists.
[[nodiscard]] Check check_config(const common::Result<supervisor::Config>& config,
                                 const std::string& source);
[[nodiscard]] Check check_rules(const common::Result<recovery::Catalogue>& catalogue);
// Exists (else warn: created on first use), is a directory we can write, is ours, and no one
// else can write it (FAIL: they could change the env files jobs source).
[[nodiscard]] Check check_state_dir(const std::filesystem::path& directory, uid_t uid);
// Opens `file` when it exists (else one warn) and checks schema version, integrity, WAL.
// Returns the open store (for the checks that read registrations) through `opened`.
[[nodiscard]] std::vector<Check> check_database(const std::filesystem::path& file,
                                                std::unique_ptr<state::Store>& opened);
// Its directory exists and is writable (empty path: ok, not configured).
[[nodiscard]] Check check_metrics_file(const std::filesystem::path& file);

// --- the epilog spool (doctor_epilog_spool.cpp) ------------------------------------------
inline constexpr std::size_t k_epilog_spool_entries_looked_at = 10000;
inline constexpr std::chrono::hours k_epilog_spool_quiet_after{24 * 7};

// The epilog spool ([evidence] epilog_spool): ok "not configured" when empty; FAIL when it is
// missing, a symbolic link, not a directory, not readable, or could have been written by anyone
// but root, `uid` or SlurmUser (`client` asked, when there is one; node_evidence/spool_trust.h:
// the daemon would refuse every file in it);
// warn when no file is in it, or the newest of the first k_epilog_spool_entries_looked_at is
// older than k_epilog_spool_quiet_after at `now` (the epilog is not installed or writes
// elsewhere); ok with the newest file's age otherwise.
[[nodiscard]] Check check_epilog_spool(const std::filesystem::path& spool, common::TimePoint now,
                                       uid_t uid, slurm::Client* client = nullptr);

// --- checks of Slurm (doctor_slurm.cpp) --------------------------------------------------
// The release compiled against and the libslurm API running.
[[nodiscard]] Check check_slurm_version(const std::string& compiled, const std::string& runtime);
// Whether slurmctld's release works with the one we were built against (slurm/release.h): ok
// for the same family, warn for an older build slurmctld still accepts, FAIL when slurmctld
// will refuse us (or already does: a protocol-version error), with what to rebuild against.
// warn "not checked" when there is no client or slurmctld cannot be reached. `supervisor run`
// refuses to start on FAIL and logs a warn.
[[nodiscard]] Check check_slurm_release(slurm::Client* client, const slurm::Release& compiled);
// slurmctld answers a node query, and accepts our munge credential: two checks. `client` is
// null when it could not be created (`create_error` says why).
[[nodiscard]] std::vector<Check> check_slurm(slurm::Client* client,
                                             const std::string& create_error);
// Whether we are a Slurm operator, and what that means for the watched registrations:
// other users' jobs (FAIL without operator rights) and drain_node (reported, not done).
[[nodiscard]] Check check_operator(slurm::Client* client,
                                   std::span<const state::Registration> registrations, uid_t uid);

// --- notification channels (doctor_notify.cpp) -------------------------------------------
// Email and SMS: configured or not (ok either way), and their secrets files readable and
// private (FAIL with notify's own message and `chmod 600` fix). Sends nothing.
[[nodiscard]] std::vector<Check> check_notify(const notify::Settings& settings);
// `--send-test`: one test message (notify/test_message.h) to each target through `sender`,
// one check per target, "notify_test": ok when the server accepted it, FAIL with the server's
// or libcurl's reason and what to fix (a target that does not parse fails before any send).
// No target given: the settings' default_targets; none there either is one FAIL.
[[nodiscard]] std::vector<Check> send_test_messages(notify::Sender& sender,
                                                    const notify::Settings& settings,
                                                    const std::vector<std::string>& targets,
                                                    const std::string& host, common::TimePoint at);

// --- the epilog spool (doctor_epilog_spool.cpp) ---------------------------------------------
// "prometheus": ok "not configured" without prometheus_url; else Prometheus is asked through
// `transport` (http::perform; a fake in tests) whether it answers with the credentials (FAIL
// with the reason and the keys to check), whether any series has the configured Xid name
// (warn naming [evidence.metrics]) and carries hostname_label (warn naming it); ok names how
// many nodes it has series for.
[[nodiscard]] Check check_prometheus(const node_evidence::PrometheusSettings& settings,
                                     const node_evidence::Transport& transport);

// What a checkpoint directory holds and which layout is detected, one line ("3 entries;
// detected layout: huggingface (2 candidates); would resume from checkpoint-200"). Fails only
// when the directory cannot be listed. Reads structure only, within the scanner's budget.
[[nodiscard]] common::Result<std::string> checkpoint_layout_line(const std::string& directory,
                                                                 const std::string& pattern,
                                                                 const std::string& marker,
                                                                 common::TimePoint settled_before);

inline constexpr std::size_t k_checkpoint_directories_checked = 20;

// One check per watched registration with a checkpoint directory (the first
// k_checkpoint_directories_checked): ok with the layout line; warn when it cannot be listed or
// its checkpoints would be used by name (not validated).
[[nodiscard]] std::vector<Check> check_checkpoint_directories(
    std::span<const state::Registration> watched, common::TimePoint settled_before);

}  // namespace ops
