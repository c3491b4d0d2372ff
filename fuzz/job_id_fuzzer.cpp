// Feeds: job ids as a person or a stored row writes them ("1234", "1234_7") to
// common::JobId::parse (common/job_id.h).
// Checks: no crash, leak or UB; an accepted id is in Slurm's range (1..0xfffffffd, task
// 0..0xfffffffd), its to_string() parses back to the same id, and parse accepts only digits
// and at most one '_'; a rejected one gets an Error naming the text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/job_id.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::as_text(data, size);
    const auto id = common::JobId::parse(text);
    if (!id) {
        FUZZ_CHECK(!id.error().message.empty());
        return 0;
    }
    FUZZ_CHECK(id->job >= 1 && id->job <= 0xfffffffdU);
    FUZZ_CHECK(!id->array_task || *id->array_task <= 0xfffffffdU);
    FUZZ_CHECK(text.find_first_not_of("0123456789_") == std::string_view::npos);
    const auto again = common::JobId::parse(id->to_string());
    FUZZ_CHECK(again.has_value() && *again == *id);
    return 0;
}
