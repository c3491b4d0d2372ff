// perform() refuses what must never reach a server; these fail before any connection is made.
#include "http/transfer.h"

#include <gtest/gtest.h>

namespace http {
namespace {

TEST(Perform, OnlyHttpAndHttpsAreAllowedAndThatIsPermanent) {
    Request request;
    request.url = "file:///etc/hostname";
    const auto response = perform(request);
    ASSERT_FALSE(response);
    EXPECT_TRUE(response.error().permanent) << response.error().message;
    EXPECT_EQ(response.error().status, 0);
}

TEST(Perform, ALineBreakInCredentialsIsRefused) {
    Request request;
    request.url = "http://127.0.0.1:1/";
    request.auth = BearerToken{"abc\r\nX-Injected: 1"};
    const auto bearer = perform(request);
    ASSERT_FALSE(bearer);
    EXPECT_TRUE(bearer.error().permanent);
    EXPECT_NE(bearer.error().message.find("line break"), std::string::npos);

    request.auth = BasicAuth{"user", "pass\nword"};
    EXPECT_FALSE(perform(request));
}

}  // namespace
}  // namespace http
