// Slurm releases and which pairs of them can work together.
//
// A release is "24.11.5": family (major.minor) and micro. The libslurm ABI changes with every
// family, so a binary runs only with the libslurm it was built with; on the wire, slurmctld
// accepts clients of its own family and of a few families before it (two before 24.11, three
// from 24.11 on: SLURM_MIN_PROTOCOL_VERSION in Slurm's slurm_protocol_common.h), never newer
// ones. check_compatibility() applies that rule so `supervisor doctor` and `supervisor run` can
// say what to rebuild against before anything fails in the middle of a recovery.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slurm {

struct Release {
    int major = 0;  // 24
    int minor = 0;  // 11
    int micro = 0;  // 5

    [[nodiscard]] std::string to_string() const;      // "24.11.5"
    [[nodiscard]] std::string family_string() const;  // "24.11"
    [[nodiscard]] bool same_family(const Release& other) const {
        return major == other.major && minor == other.minor;
    }
    auto operator<=>(const Release&) const = default;
};

// "24.11.5", "22.05.8", "25.05.0-0rc1" (a suffix after the micro number is ignored); nullopt
// for anything that does not start with major.minor[.micro].
[[nodiscard]] std::optional<Release> parse_release(std::string_view text);

// The release this binary was compiled against (SLURM_VERSION_NUMBER of its slurm.h).
[[nodiscard]] Release compiled_release();

// Whether this build's Slurm reports a job's script arguments in Command= (JobSnapshot's
// command_has_arguments): up to 23.11 yes; from 24.05 slurmctld sends the script's path alone.
[[nodiscard]] bool job_command_has_arguments();

// How many release families slurmctld of `controller` goes back for its clients: 2 before
// 24.11, 3 from 24.11.
[[nodiscard]] int families_accepted_back(const Release& controller);

// Families between two releases, in Slurm's release order (20.02, 20.11, 21.08, 22.05, 23.02,
// 23.11, then every May and November); negative when `to` is older than `from`. nullopt for a
// family that was never released (e.g. 22.11).
[[nodiscard]] std::optional<int> families_between(const Release& from, const Release& to);

enum class Compatibility {
    same,          // same family: what we were built and tested for
    older_client,  // we are older but slurmctld still accepts us: works, rebuild when you can
    unsupported,   // slurmctld will refuse us (too old, or newer than slurmctld)
};

struct CompatibilityVerdict {
    Compatibility compatibility = Compatibility::same;
    std::string explanation;  // one sentence naming both releases
    std::string fix;          // what to rebuild against; empty when nothing to do
};

// Whether a client built against `client` can work with slurmctld `controller`.
[[nodiscard]] CompatibilityVerdict check_compatibility(const Release& client,
                                                       const Release& controller);

// The advice for a protocol-version error, when slurmctld's release cannot even be asked.
[[nodiscard]] std::string release_mismatch_hint();

}  // namespace slurm
