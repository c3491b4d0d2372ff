// Feeds: the bytes one connection sends the control channel (the Unix socket's or TCP's), as
// the server receives them in pieces: the first input byte picks the size limit (the socket's,
// TCP's or a small one), the next ones how long each piece is, the rest is the stream.
// Checks: received_frame() (control/frame.h) says whole exactly when the header's announced
// size came and nothing after it, with the payload as sent; refused exactly for an announced
// size over the limit or bytes past the frame, and once refused, refused for every longer
// prefix; a whole frame's payload goes to decode_request as the server's would, without a
// crash. (The MUNGE envelope around a TCP request is decoded by munged, not by our code.)
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "control/frame.h"
#include "control/protocol.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) {
        return 0;
    }
    constexpr std::array<std::uint32_t, 4> k_limits{control::k_max_request_bytes,
                                                    control::k_max_tcp_request_bytes, 64, 0};
    const auto limit = k_limits[data[0] % k_limits.size()];
    const std::size_t piece = 1 + data[1] % 64;
    const auto stream = fuzz::as_text(data + 2, size - 2);
    bool was_refused = false;
    for (std::size_t got = 0;; got = std::min(stream.size(), got + piece)) {
        const auto prefix = std::string_view(stream).substr(0, got);
        const auto read = control::received_frame(prefix, limit);
        const auto announced = control::announced_size(prefix);
        const bool over = announced && *announced > limit;
        const bool past = announced && prefix.size() > 4 + std::size_t{*announced};
        const bool whole = announced && !over && prefix.size() == 4 + std::size_t{*announced};
        FUZZ_CHECK((read.state == control::FrameState::refused) == (over || past));
        FUZZ_CHECK((read.state == control::FrameState::whole) == whole);
        FUZZ_CHECK(!was_refused || read.state == control::FrameState::refused);
        was_refused = read.state == control::FrameState::refused;
        if (whole) {
            FUZZ_CHECK(read.payload == prefix.substr(4));
            (void)control::decode_request(read.payload);
        }
        if (got == stream.size()) {
            break;
        }
    }
    return 0;
}
