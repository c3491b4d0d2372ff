// Feeds: the input as a whole file (torch.save >= 1.6 .pt/.bin, Lightning .ckpt: a zip or
// Zip64 archive; or the legacy pickle format) to validate_zip and validate_torch_file
// (recovery/checkpoints/validators.h), through a scratch file.
// Checks: no crash, leak or UB; every byte read is charged to the ReadBudget; a budget too
// small to finish either ends the validation "not ok" with the budget exhausted, or (when it
// was not exhausted) gives exactly the verdict of the unlimited run -- what scan() relies on.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "recovery/checkpoints/validators.h"

namespace rc = recovery::checkpoints;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fuzz::ScratchFile file;
    file.write(data, size);

    rc::ReadBudget budget;
    const auto full = rc::validate_zip(file.path(), budget);
    FUZZ_CHECK(!budget.exhausted());
    FUZZ_CHECK(full.bytes_read == budget.bytes_charged());
    FUZZ_CHECK(!full.reason.empty());

    // Half the bytes the full run needed (at least one): the run either stops on the budget
    // or, having never been refused a read, must agree with the full run.
    rc::ReadBudget small(rc::ReadLimits{full.bytes_read / 2 + 1, std::chrono::hours(1)});
    const auto limited = rc::validate_zip(file.path(), small);
    FUZZ_CHECK(limited.bytes_read <= small.bytes_charged());
    if (small.exhausted()) {
        FUZZ_CHECK(!limited.ok);
    } else {
        FUZZ_CHECK(limited.ok == full.ok);
        FUZZ_CHECK(limited.reason == full.reason);
    }

    rc::ReadBudget torch_budget;
    const auto torch = rc::validate_torch_file(file.path(), torch_budget);
    FUZZ_CHECK(torch.bytes_read == torch_budget.bytes_charged());
    FUZZ_CHECK(!torch.reason.empty());
    return 0;
}
