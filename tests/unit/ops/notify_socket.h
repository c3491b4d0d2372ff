// A datagram socket bound in a temp dir standing in for systemd's NOTIFY_SOCKET: tests point
// the environment at it and read what the daemon sent (local IPC only). Restores the
// environment when destroyed.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace ops::test {

class NotifySocket {
  public:
    // watchdog_usec: also sets WATCHDOG_USEC (and WATCHDOG_PID to us) when non-zero.
    explicit NotifySocket(unsigned long watchdog_usec = 0) {
        m_path = (m_dir.path() / "notify").string();
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, m_path.c_str(), sizeof address.sun_path - 1);
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            ADD_FAILURE() << "bind " << m_path << ": " << std::strerror(errno);
        }
        ::setenv("NOTIFY_SOCKET", m_path.c_str(), 1);
        if (watchdog_usec) {
            ::setenv("WATCHDOG_USEC", std::to_string(watchdog_usec).c_str(), 1);
            ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
        }
    }
    ~NotifySocket() {
        ::close(m_fd);
        ::unsetenv("NOTIFY_SOCKET");
        ::unsetenv("WATCHDOG_USEC");
        ::unsetenv("WATCHDOG_PID");
    }
    NotifySocket(const NotifySocket&) = delete;
    NotifySocket& operator=(const NotifySocket&) = delete;

    // The next datagram already sent, or nullopt when there is none (never waits).
    [[nodiscard]] std::optional<std::string> next() {
        char buffer[4096];
        const auto n = ::recv(m_fd, buffer, sizeof buffer, 0);
        if (n < 0) {
            return std::nullopt;
        }
        return std::string(buffer, static_cast<std::size_t>(n));
    }

  private:
    test_support::TempDir m_dir;
    std::string m_path;
    int m_fd = -1;
};

}  // namespace ops::test
