// ControlServer: the daemon's control channel, served by one thread of its own so that nothing
// a user does with it can stall the poll loop, and the poll loop's work cannot keep users
// waiting for more than one request. It listens on a Unix socket for this host, on a TCP
// address for the cluster's other hosts, or both.
//
// On the Unix socket every local user may connect (mode 0666) and who they are comes from
// SO_PEERCRED. Over TCP anybody who reaches the port may connect, and who they are comes from
// the MUNGE credential the frame holds, whose payload is the request (munge_credential.h): a
// credential munged refuses (not of this cluster's key, expired, replayed, for another
// decoder) or whose payload is no request is answered with an error and never handled.
//
// A connection must deliver its whole request within k_request_deadline and read its reply
// within k_reply_deadline; replies are sent as the socket takes them, so a client that does not
// read delays nobody but itself. At most k_max_connections are open at once (k_max_per_uid of
// one uid on the socket, k_max_per_address of one host over TCP while their uid is unknown, and
// k_max_per_uid replies unread of one uid either way), and the requests arriving at once may
// hold at most k_max_bytes_per_uid of one uid (k_max_bytes_per_address of one host over TCP):
// neither a slow client nor many of them can keep another user waiting. An error in a reply
// quotes at most k_max_error_bytes of anything (a user's 3 MB notify target is not sent back).
// Over TCP, connections beyond the table wait in the kernel's backlog, and those of a host over
// its share wait accepted but unread (at most k_max_held), rather than being refused: an array's
// tasks on one node asking at once are answered in turn; and while one waits, a connection of
// its host that has not sent its whole request within k_slow_sender_after is closed, so one
// user's slow connections cannot keep the other users of their node waiting. Requests are handled
// one at a time, in the order they complete.
//
// start() fails when the socket path exists and is not a socket, when its directory is
// missing, or when binding either endpoint fails; a stale socket (nobody listening) is
// replaced. The socket file is removed when the server stops.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "common/error.h"
#include "control/handlers.h"
#include "control/munge_credential.h"
#include "control/tcp_address.h"

namespace control {

// How the server decodes a TCP request's credential: decode_credential() with the daemon's
// munged, or a test's stand-in.
using CredentialDecoder =
    std::function<tl::expected<DecodedCredential, CredentialRefusal>(const std::string&)>;

struct ControlEndpoints {
    std::filesystem::path unix_socket;  // empty: no Unix socket
    std::optional<TcpAddress> tcp;      // nullopt: no TCP listener
    CredentialDecoder decode;           // TCP only; empty: decode_credential(munge)
    MungeSettings munge;                // the daemon's munged, for the default decoder
};

class ControlServer {
  public:
    static constexpr std::chrono::seconds k_request_deadline{5};
    static constexpr std::chrono::seconds k_reply_deadline{5};
    // Over TCP: a connection without its whole request after this long gives its slot to one
    // of its host that waits (its uid is not known yet; a client sends at once).
    static constexpr std::chrono::milliseconds k_slow_sender_after{500};
    static constexpr std::size_t k_max_connections = 64;
    static constexpr std::size_t k_max_per_uid = 8;
    static constexpr std::size_t k_max_per_address = 32;
    static constexpr std::size_t k_max_held = 1024;
    static constexpr std::size_t k_max_bytes_per_uid = 8U * 1024 * 1024;
    static constexpr std::size_t k_max_bytes_per_address = 16U * 1024 * 1024;  // all its users
    static constexpr std::size_t k_max_error_bytes = 1024;
    static constexpr int k_tcp_backlog = 1024;

    // Serves `handlers` (used from the server's thread only) until destroyed.
    [[nodiscard]] static common::Result<std::unique_ptr<ControlServer>> start(
        ControlEndpoints endpoints, std::unique_ptr<Handlers> handlers);
    // The Unix socket alone (the site daemon before TCP, and the tests of the socket).
    [[nodiscard]] static common::Result<std::unique_ptr<ControlServer>> start(
        const std::filesystem::path& path, std::unique_ptr<Handlers> handlers);
    ~ControlServer();  // stops the thread, closes and removes the socket
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
    // Where the TCP listener is bound (its port chosen by the kernel when asked for 0).
    [[nodiscard]] const std::optional<TcpAddress>& tcp_address() const { return m_tcp_address; }

  private:
    struct Listeners {
        int unix_socket = -1;
        int tcp = -1;
        int wake_read = -1;
        int wake_write = -1;
    };
    ControlServer(std::filesystem::path path, std::optional<TcpAddress> tcp_address,
                  Listeners listeners, CredentialDecoder decode,
                  std::unique_ptr<Handlers> handlers);
    void serve();

    std::filesystem::path m_path;
    std::optional<TcpAddress> m_tcp_address;
    Listeners m_listeners;
    CredentialDecoder m_decode;
    std::unique_ptr<Handlers> m_handlers;
    std::thread m_thread;
};

}  // namespace control
