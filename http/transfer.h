// perform(): one HTTP(S) request over libcurl (http/ is the only module that includes
// <curl/curl.h>).
//
// Returns the Response whenever the server answered, whatever its status (the caller decides
// what a 401 or a 503 means to it). Fails (http::Error) when no answer came back: the host
// unreachable or refusing, the connect or total timeout passed, a TLS failure, the connection
// dropped, an Authorization value with a line break in it, a URL that is not http(s). The
// message is curl's explanation; `permanent` says whether the same request can ever work.
// Never follows redirects, never raises signals (the timeouts do not use SIGALRM), and may be
// called from any thread.
#pragma once

#include "http/error.h"
#include "http/request.h"

namespace http {

[[nodiscard]] Result<Response> perform(const Request& request);

}  // namespace http
