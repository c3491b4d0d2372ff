#include "http/url.h"

#include <gtest/gtest.h>

namespace http {
namespace {

TEST(PercentEncode, KeepsUnreservedAndEncodesEveryOtherByte) {
    EXPECT_EQ(percent_encode("aZ09-._~"), "aZ09-._~");
    EXPECT_EQ(percent_encode("a b&c=d"), "a%20b%26c%3Dd");
    EXPECT_EQ(percent_encode("{Hostname=~\"n1|n2\"}"), "%7BHostname%3D~%22n1%7Cn2%22%7D");
    EXPECT_EQ(percent_encode("+\xC3\xA9\n"), "%2B%C3%A9%0A");
    EXPECT_EQ(percent_encode(""), "");
}

TEST(Redacted, HidesTheLoginOnly) {
    EXPECT_EQ(redacted("https://user:secret@prom.example:9090/api"),
              "https://***@prom.example:9090/api");
    EXPECT_EQ(redacted("http://prom:9090/a@b?x=@"), "http://prom:9090/a@b?x=@");
    EXPECT_EQ(redacted("http://prom:9090"), "http://prom:9090");
}

}  // namespace
}  // namespace http
