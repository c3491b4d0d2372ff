#include "common/job_id.h"

#include <charconv>

namespace common {
namespace {

// Slurm job ids are 32-bit but 0 and the top values are reserved markers (NO_VAL, INFINITE),
// so a plain decimal in [1, 0xfffffffd] is all a person can meaningfully type.
constexpr std::uint32_t k_max_job_id = 0xfffffffdU;

std::optional<std::uint32_t> parse_number(std::string_view text, bool allow_zero) {
    if (text.empty() || text.size() > 10) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value > k_max_job_id ||
        (value == 0 && !allow_zero)) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(value);
}

}  // namespace

Result<JobId> JobId::parse(std::string_view text) {
    auto invalid = [&] {
        return fail("'" + std::string(text) + "' is not a Slurm job id",
                    "use a job id such as 1234, or one array task such as 1234_7");
    };
    const auto underscore = text.find('_');
    const auto job = parse_number(text.substr(0, underscore), /*allow_zero=*/false);
    if (!job) {
        return invalid();
    }
    if (underscore == std::string_view::npos) {
        return JobId{*job, std::nullopt};
    }
    const auto task = parse_number(text.substr(underscore + 1), /*allow_zero=*/true);
    if (!task) {
        return invalid();
    }
    return JobId{*job, *task};
}

std::string JobId::to_string() const {
    std::string text = std::to_string(job);
    if (array_task) {
        text += '_' + std::to_string(*array_task);
    }
    return text;
}

}  // namespace common
