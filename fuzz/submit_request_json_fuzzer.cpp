// Feeds: the stored submit request (slurm/submit_request.h): the input as the JSON text that
// submit_request_from_json_text() decodes.
// Checks: no crash, leak or UB, no exception escaping; and the round trip the header promises:
// a request that decodes, encoded again with to_json_text() (which must be valid UTF-8 JSON
// whatever bytes the fields hold: non-UTF-8 text goes as {"bytes_hex": ...}) and decoded
// again, is equal to the first; and encoding it twice gives the same text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "slurm/submit_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto decoded = slurm::submit_request_from_json_text(fuzz::as_text(data, size));
    if (!decoded) {
        FUZZ_CHECK(!decoded.error().message.empty());
        return 0;
    }
    const auto text = slurm::to_json_text(*decoded);
    const auto again = slurm::submit_request_from_json_text(text);
    if (!again) {
        std::fprintf(stderr, "re-encoded request does not decode: %s\n",
                     again.error().message.c_str());
    }
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(*again == *decoded);
    FUZZ_CHECK(slurm::to_json_text(*again) == text);
    return 0;
}
