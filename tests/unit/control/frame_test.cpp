// received_frame(): what the bytes a connection sent so far hold, as the server reads them in
// pieces (a TCP segment, a Unix socket read): nothing whole yet, one whole frame, or what can
// never become one. The fuzz target control_frame checks the same on arbitrary bytes.
#include "control/frame.h"

#include <gtest/gtest.h>

#include <string>

namespace control {
namespace {

std::string header(std::uint32_t size) {
    return {static_cast<char>(size >> 24), static_cast<char>(size >> 16),
            static_cast<char>(size >> 8), static_cast<char>(size)};
}

TEST(ReceivedFrame, AFrameIsWholeOnlyWhenEveryAnnouncedByteCame) {
    const std::string frame = header(5) + "hello";
    for (std::size_t cut = 0; cut < frame.size(); ++cut) {
        EXPECT_EQ(received_frame(frame.substr(0, cut), 16).state, FrameState::incomplete) << cut;
    }
    const auto whole = received_frame(frame, 16);
    EXPECT_EQ(whole.state, FrameState::whole);
    EXPECT_EQ(whole.payload, "hello");
    EXPECT_EQ(received_frame(header(0), 16).state, FrameState::whole) << "an empty payload";
}

TEST(ReceivedFrame, TooLargeAnnouncedOrMoreThanOneFrameIsRefusedAtOnce) {
    // Refused from its header alone: nothing more of it is waited for.
    EXPECT_EQ(received_frame(header(17), 16).state, FrameState::refused);
    EXPECT_EQ(received_frame(header(0xFFFFFFFF), 16).state, FrameState::refused);
    EXPECT_EQ(received_frame(header(5) + "hello" + "x", 16).state, FrameState::refused);
    EXPECT_EQ(received_frame(header(16) + std::string(16, 'a'), 16).state, FrameState::whole);
}

}  // namespace
}  // namespace control
