// A munge_ctx_t per call, owned by a unique_ptr: the context holds the socket path and the
// options, and munged answers each call in well under a millisecond on its Unix socket, so
// nothing is gained by sharing one between threads (libmunge's contexts are not thread-safe).
#include "control/munge_credential.h"

#include <munge.h>

#include <cstdlib>
#include <memory>

namespace control {
namespace {

struct ContextDeleter {
    void operator()(munge_ctx_t context) const { munge_ctx_destroy(context); }
};
using Context = std::unique_ptr<std::remove_pointer_t<munge_ctx_t>, ContextDeleter>;

struct FreeDeleter {
    void operator()(void* memory) const { std::free(memory); }  // NOLINT: libmunge's malloc
};

common::Result<Context> make_context(const MungeSettings& settings) {
    Context context(munge_ctx_create());
    if (!context) {
        return common::fail("cannot create a MUNGE context (out of memory)");
    }
    if (!settings.socket.empty() &&
        munge_ctx_set(context.get(), MUNGE_OPT_SOCKET, settings.socket.c_str()) != EMUNGE_SUCCESS) {
        return common::fail("cannot set the MUNGE socket " + settings.socket.string());
    }
    if (settings.time_to_live.count() > 0 &&
        munge_ctx_set(context.get(), MUNGE_OPT_TTL,
                      static_cast<int>(settings.time_to_live.count())) != EMUNGE_SUCCESS) {
        return common::fail("cannot set the MUNGE credential's time to live");
    }
    if (settings.decoder_uid && munge_ctx_set(context.get(), MUNGE_OPT_UID_RESTRICTION,
                                              *settings.decoder_uid) != EMUNGE_SUCCESS) {
        return common::fail("cannot restrict the MUNGE credential to uid " +
                            std::to_string(*settings.decoder_uid));
    }
    return context;
}

std::string context_error(munge_ctx_t context, munge_err_t status) {
    const char* text = munge_ctx_strerror(context);
    return text != nullptr ? text : munge_strerror(status);
}

CredentialFault fault_of(munge_err_t status) {
    switch (status) {
        case EMUNGE_SOCKET:
        case EMUNGE_TIMEOUT:
            return CredentialFault::munged_unreachable;
        case EMUNGE_CRED_EXPIRED:
            return CredentialFault::expired;
        case EMUNGE_CRED_REWOUND:
            return CredentialFault::rewound;
        case EMUNGE_CRED_REPLAYED:
            return CredentialFault::replayed;
        case EMUNGE_CRED_UNAUTHORIZED:
            return CredentialFault::unauthorized;
        case EMUNGE_BAD_CRED:
        case EMUNGE_BAD_VERSION:
        case EMUNGE_BAD_CIPHER:
        case EMUNGE_BAD_MAC:
        case EMUNGE_BAD_ZIP:
        case EMUNGE_BAD_REALM:
        case EMUNGE_CRED_INVALID:
        case EMUNGE_BAD_LENGTH:
            return CredentialFault::invalid;
        default:
            return CredentialFault::other;
    }
}

}  // namespace

std::string_view to_string(CredentialFault fault) {
    switch (fault) {
        case CredentialFault::munged_unreachable:
            return "munged_unreachable";
        case CredentialFault::invalid:
            return "invalid";
        case CredentialFault::expired:
            return "expired";
        case CredentialFault::rewound:
            return "rewound";
        case CredentialFault::replayed:
            return "replayed";
        case CredentialFault::unauthorized:
            return "unauthorized";
        case CredentialFault::other:
            break;
    }
    return "other";
}

common::Result<std::string> encode_credential(std::string_view payload,
                                              const MungeSettings& settings) {
    if (payload.size() > k_max_credential_payload) {
        return common::fail("the request is " + std::to_string(payload.size()) +
                                " bytes; a request to a daemon on another host carries at most " +
                                std::to_string(k_max_credential_payload),
                            "send fewer jobs or a shorter notify target per request");
    }
    auto context = make_context(settings);
    if (!context) {
        return tl::unexpected(context.error());
    }
    char* credential = nullptr;
    const munge_err_t status =
        munge_encode(&credential, context->get(), payload.data(), static_cast<int>(payload.size()));
    const std::unique_ptr<char, FreeDeleter> owned(credential);
    if (status != EMUNGE_SUCCESS) {
        return common::fail(
            "cannot get a MUNGE credential from munged" +
                (settings.socket.empty() ? std::string() : " (" + settings.socket.string() + ")") +
                ": " + context_error(context->get(), status),
            "check that munged runs on this host with the cluster's key (`munge -n | unmunge`); "
            "client.conf's munge_socket names a socket other than the default");
    }
    return std::string(credential);
}

tl::expected<DecodedCredential, CredentialRefusal> decode_credential(
    const std::string& credential, const MungeSettings& settings) {
    auto context = make_context(settings);
    if (!context) {
        return tl::unexpected(CredentialRefusal{CredentialFault::other, context.error().message});
    }
    void* payload = nullptr;
    int length = 0;
    DecodedCredential decoded;
    const munge_err_t status = munge_decode(credential.c_str(), context->get(), &payload, &length,
                                            &decoded.uid, &decoded.gid);
    // libmunge allocates the payload even for some refusals (expired, replayed): always freed.
    const std::unique_ptr<void, FreeDeleter> owned(payload);
    if (status != EMUNGE_SUCCESS) {
        return tl::unexpected(
            CredentialRefusal{fault_of(status), context_error(context->get(), status)});
    }
    if (payload != nullptr && length > 0) {
        decoded.payload.assign(static_cast<const char*>(payload), static_cast<std::size_t>(length));
    }
    return decoded;
}

}  // namespace control
