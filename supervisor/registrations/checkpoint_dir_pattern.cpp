// Why the patterns are expanded once, at registration, and stored expanded: every later reader
// (the poll cycle's checkpoint scan, `doctor`, `status`, the resume environment) then sees a
// plain path, and a task's directory cannot change under it. The one pattern that is not known
// at registration, an unstarted task's %j, is refused with the stable alternative.
#include "supervisor/registrations/checkpoint_dir_pattern.h"

#include <algorithm>
#include <cctype>

#include "common/printable.h"
#include "common/user_account.h"

namespace supervisor {
namespace {

std::string padded(std::string value, std::size_t width) {
    if (value.size() < width) {
        value.insert(0, width - value.size(), '0');
    }
    return value;
}

common::Error bad_pattern(std::string_view pattern, std::size_t at, std::string_view what,
                          std::string hint) {
    return common::Error{common::printable(std::string(pattern)) + ": the pattern at character " +
                             std::to_string(at + 1) + " " + std::string(what),
                         std::move(hint)};
}

constexpr const char* k_known_specifiers =
    "use %A (array id), %a (task id), %j (job id), %x (job name), %u (user) or %% for a '%'";

}  // namespace

bool has_job_pattern(std::string_view pattern) {
    return pattern.find('%') != std::string_view::npos;
}

common::Result<std::string> expand_job_patterns(std::string_view pattern,
                                                const slurm::JobSnapshot& job) {
    std::string out;
    out.reserve(pattern.size());
    const std::string id = job.id.to_string();
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%') {
            out += pattern[i];
            continue;
        }
        const std::size_t at = i;
        std::size_t width = 0;
        while (i + 1 < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[i + 1]))) {
            width = std::min<std::size_t>(width * 10 + static_cast<std::size_t>(pattern[++i] - '0'),
                                          64);
        }
        if (i + 1 >= pattern.size()) {
            return tl::unexpected(bad_pattern(pattern, at, "is a '%' with no letter after it",
                                              "write %% for a '%' itself"));
        }
        const char letter = pattern[++i];
        switch (letter) {
            case '%':
                out += '%';
                break;
            case 'A':
                out += padded(std::to_string(job.id.job), width);
                break;
            case 'a':
                if (!job.id.array_task) {
                    return tl::unexpected(bad_pattern(
                        pattern, at, "(%a) needs an array task, and job " + id + " is not one",
                        "register the array (or one of its tasks, ARRAYID_TASK), or drop %a"));
                }
                out += padded(std::to_string(*job.id.array_task), width);
                break;
            case 'j':
                if (job.in_array_record) {
                    return tl::unexpected(bad_pattern(
                        pattern, at,
                        "(%j) is the job id of array task " + id +
                            ", which it gets only when it starts",
                        "use %A_%a, which names the task for good (sbatch -o accepts it too)"));
                }
                out += padded(std::to_string(job.raw_job_id != 0 ? job.raw_job_id : job.id.job),
                              width);
                break;
            case 'x':
                // The name is the job owner's text: it must stay one path component.
                if (job.name.empty() || job.name == "." || job.name == ".." ||
                    std::ranges::any_of(job.name, [](char c) {
                        return c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
                    })) {
                    return tl::unexpected(bad_pattern(
                        pattern, at,
                        "(%x) is the job name, and " + common::printable(job.name) +
                            " cannot be one part of a path (empty, '.', '..', a '/' or a "
                            "control character)",
                        "rename the job (sbatch -J) or write the directory without %x"));
                }
                out += job.name;
                break;
            case 'u': {
                const auto account = common::user_account(job.user_id);
                if (!account) {
                    return tl::unexpected(bad_pattern(pattern, at,
                                                      "(%u) is the job owner's name, and uid " +
                                                          std::to_string(job.user_id) +
                                                          " has no passwd entry",
                                                      "write the user name instead of %u"));
                }
                out += account->name;
                break;
            }
            case 'N':
            case 'n':
            case 's':
            case 't':
                return tl::unexpected(bad_pattern(
                    pattern, at,
                    std::string("(%") + letter +
                        ") differs between the job's nodes, steps or tasks, so it cannot name one "
                        "checkpoint directory",
                    k_known_specifiers));
            default:
                return tl::unexpected(bad_pattern(
                    pattern, at,
                    "(%" + common::printable(std::string(1, letter)) + ") is not a pattern",
                    k_known_specifiers));
        }
    }
    return out;
}

}  // namespace supervisor
