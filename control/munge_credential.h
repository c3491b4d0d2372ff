// MUNGE credentials: how a request that crosses hosts says who sent it (control/tcp.h). The
// one place that includes and links libmunge. A credential is minted by the munged of the
// sender's host, stamped with the sender's real uid and gid, and carries the request itself as
// its payload, so a credential vouches for exactly one request. The daemon's munged decodes it:
// it alone checks the MAC (the cluster's shared key), the time to live and the replay cache.
//
// encode_credential() fails when munged cannot be reached, or the payload is over
// k_max_credential_payload. decode_credential() refuses with a CredentialFault naming why:
// munged unreachable, not a credential (or not of this cluster's key), expired, from the
// future, replayed, or restricted to another uid.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "common/error.h"

namespace control {

// munged reads at most 1 MiB per message and a credential is the payload in base64 plus a
// header: a request over this size is refused before it is sent.
inline constexpr std::size_t k_max_credential_payload = 512U * 1024;

struct MungeSettings {
    std::filesystem::path socket;          // empty: munged's default socket
    std::chrono::seconds time_to_live{0};  // encode: 0 is munged's default (300 s)
    std::optional<uid_t> decoder_uid;      // encode: only this uid may decode
};

enum class CredentialFault {
    munged_unreachable,  // our own munged did not answer: nothing is known of the sender
    invalid,             // not a credential, damaged, or made with another key
    expired,             // older than its time to live
    rewound,             // made in the future: the two hosts' clocks differ
    replayed,            // decoded once already: someone sent it again
    unauthorized,        // restricted to another uid than the decoder's
    other,
};

[[nodiscard]] std::string_view to_string(CredentialFault fault);

struct CredentialRefusal {
    CredentialFault fault = CredentialFault::other;
    std::string message;  // munged's own words
};

struct DecodedCredential {
    uid_t uid = 0;
    gid_t gid = 0;
    std::string payload;
};

[[nodiscard]] common::Result<std::string> encode_credential(std::string_view payload,
                                                            const MungeSettings& settings);
[[nodiscard]] tl::expected<DecodedCredential, CredentialRefusal> decode_credential(
    const std::string& credential, const MungeSettings& settings);

}  // namespace control
