// ControlServer: the site daemon's Unix socket (protocol.h), served by one thread of its own so
// that nothing a user does with it can stall the poll loop, and the poll loop's work cannot
// keep users waiting for more than one request.
//
// Every local user may connect (mode 0666); who they are comes from SO_PEERCRED and decides
// what they may do (handlers.h). A connection must deliver its whole request within
// k_request_deadline and read its reply within k_reply_deadline; at most k_max_connections are
// open at once (k_max_per_uid of one uid), so neither a slow client nor many of them can keep
// others out for long. Requests are handled one at a time, in the order they complete.
//
// start() fails when the path exists and is not a socket, when its directory is missing, or
// when binding fails; a stale socket (nobody listening) is replaced. The socket file is
// removed when the server stops.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include "common/error.h"
#include "control/handlers.h"

namespace control {

class ControlServer {
  public:
    static constexpr std::chrono::seconds k_request_deadline{5};
    static constexpr std::chrono::seconds k_reply_deadline{5};
    static constexpr std::size_t k_max_connections = 64;
    static constexpr std::size_t k_max_per_uid = 8;

    // Serves `handlers` (used from the server's thread only) until destroyed.
    [[nodiscard]] static common::Result<std::unique_ptr<ControlServer>> start(
        const std::filesystem::path& path, std::unique_ptr<Handlers> handlers);
    ~ControlServer();  // stops the thread, closes and removes the socket
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  private:
    ControlServer(std::filesystem::path path, int listener, int wake_read, int wake_write,
                  std::unique_ptr<Handlers> handlers);
    void serve();

    std::filesystem::path m_path;
    int m_listener = -1;
    int m_wake_read = -1;  // the destructor writes to m_wake_write to stop serve()
    int m_wake_write = -1;
    std::unique_ptr<Handlers> m_handlers;
    std::thread m_thread;
};

}  // namespace control
