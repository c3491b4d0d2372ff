// Feeds: what any local user can send to the site daemon's control socket: the payload of one
// frame, to control::decode_request (control/protocol.h), and the same bytes as a reply to
// decode_reply (what the CLI reads back).
// Checks: no crash, leak, UB or stack overflow (nesting is refused before the recursive
// MessagePack reader sees it); an accepted request encodes and decodes to the same request.
#include <cstddef>
#include <cstdint>

#include "control/protocol.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto bytes = fuzz::as_text(data, size);
    (void)control::decode_reply(bytes);
    const auto request = control::decode_request(bytes);
    if (!request) {
        FUZZ_CHECK(!request.error().message.empty());
        return 0;
    }
    const auto again = control::decode_request(control::encode(*request));
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(again->operation == request->operation && again->job == request->job &&
               again->all == request->all && again->json == request->json &&
               again->environment == request->environment);
    FUZZ_CHECK(again->jobs == request->jobs);
    if (request->operation == control::Operation::register_job ||
        request->operation == control::Operation::register_many) {
        FUZZ_CHECK(again->registration.checkpoint_dir == request->registration.checkpoint_dir &&
                   again->registration.environment == request->registration.environment &&
                   again->registration.max_attempts == request->registration.max_attempts);
    }
    return 0;
}
