// Error and Result of http/: a transfer that did not bring back an answer. It is a
// common::Error (what failed, in libcurl's words, and what to check) that also says whether
// trying the same request again can help, and the server's last reply code when it sent one.
#pragma once

#include <tl/expected.hpp>

#include "common/error.h"

namespace http {

struct Error : common::Error {
    // true: the same request can never succeed (a malformed URL, a protocol not allowed, a
    // CA or client certificate file that cannot be used); false: it may later (unreachable,
    // refused, timed out, TLS handshake, the connection dropped).
    bool permanent = false;
    long status = 0;  // the server's last reply code (SMTP), when it sent one; else 0
};

template <typename T>
using Result = tl::expected<T, Error>;

}  // namespace http
