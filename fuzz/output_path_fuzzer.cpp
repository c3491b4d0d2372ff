// Feeds: sbatch --output/--error filename patterns to expand_output_path()
// (slurm/output_path.h). The first line is the pattern; the next lines are the job name, user,
// first node and work dir; the next bytes pick the job id and whether it is an array task.
// Checks: no crash, leak or UB; the expansion stays proportional to its inputs (a padding
// width is capped at 10: "%99999999999j" must not allocate); a pattern without '%' comes back
// unchanged (made absolute against the work dir); an empty pattern gives Slurm's default name.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "slurm/output_path.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Reader input(fuzz::as_text(data, size));
    const std::string pattern(input.line());
    slurm::OutputPathContext context;
    context.job_name = input.line();
    context.user_name = input.line();
    context.first_node = input.line();
    context.work_dir = input.line();
    std::uint32_t id = 0;
    for (int i = 0; i < 4; ++i) {
        id = (id << 8) | input.byte();
    }
    context.job_id = id;
    const auto flags = input.byte();
    if (flags & 1) {
        context.array_job_id = id ^ 0x5a5a5a5au;
    }
    if (flags & 2) {
        context.array_task_id = static_cast<std::uint32_t>(input.byte()) * 0x01010101u;
    }

    const auto path = slurm::expand_output_path(pattern, context);
    // Each specifier is replaced by at most one of the context's texts or a 10-digit number.
    const auto longest = std::max({context.job_name.size(), context.user_name.size(),
                                   context.first_node.size(), std::size_t{16}});
    const auto source = pattern.empty() ? std::size_t{20} : pattern.size();
    FUZZ_CHECK(path.size() <= context.work_dir.size() + 1 + source * (longest + 1));
    if (pattern.find('%') == std::string::npos && !pattern.empty()) {
        if (pattern.front() == '/' || context.work_dir.empty()) {
            FUZZ_CHECK(path == pattern);
        } else {
            FUZZ_CHECK(path.ends_with(pattern));
        }
    }
    if (pattern.empty()) {
        FUZZ_CHECK(path.find("slurm-") != std::string::npos && path.ends_with(".out"));
    }
    return 0;
}
