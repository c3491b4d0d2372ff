// Feeds: the input as a whole .safetensors file (8-byte little-endian header length, JSON
// header, tensor data) to validate_safetensors (recovery/checkpoints/validators.h), through a
// scratch file.
// Checks: no crash, leak or UB; bytes read are charged to the ReadBudget; a run on a budget
// too small either fails with the budget exhausted or agrees exactly with the unlimited run;
// a file judged ok has a header length that fits in it.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "recovery/checkpoints/validators.h"

namespace rc = recovery::checkpoints;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fuzz::ScratchFile file;
    file.write(data, size);

    rc::ReadBudget budget;
    const auto full = rc::validate_safetensors(file.path(), budget);
    FUZZ_CHECK(!budget.exhausted());
    FUZZ_CHECK(full.bytes_read == budget.bytes_charged());
    FUZZ_CHECK(full.bytes_read <= size);
    FUZZ_CHECK(!full.reason.empty());
    if (full.ok) {
        FUZZ_CHECK(size >= 8);
    }

    rc::ReadBudget small(rc::ReadLimits{full.bytes_read / 2 + 1, std::chrono::hours(1)});
    const auto limited = rc::validate_safetensors(file.path(), small);
    if (small.exhausted()) {
        FUZZ_CHECK(!limited.ok);
    } else {
        FUZZ_CHECK(limited.ok == full.ok);
        FUZZ_CHECK(limited.reason == full.reason);
    }
    return 0;
}
