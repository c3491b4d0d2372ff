// SystemdNotifier: the daemon's side of systemd's notify protocol (Type=notify, WatchdogSec=).
//
// ready() sends READY=1, status() STATUS=<text>, stopping() STOPPING=1, watchdog() WATCHDOG=1
// but at most once per quarter of the watchdog interval (so the loop may call it every slice).
// Everything is a no-op when NOTIFY_SOCKET is unset (a terminal, a test), and nothing here
// fails: a datagram that cannot be sent is logged once at debug level and forgotten, because
// the daemon's work must never depend on its supervisor's socket.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace ops {

class SystemdNotifier {
  public:
    // Reads NOTIFY_SOCKET and WATCHDOG_USEC/WATCHDOG_PID (sd_watchdog_enabled) once.
    SystemdNotifier();

    [[nodiscard]] bool enabled() const { return m_enabled; }
    // The watchdog interval systemd expects pings within (WatchdogSec=); nullopt when off.
    [[nodiscard]] std::optional<std::chrono::microseconds> watchdog_interval() const {
        return m_watchdog;
    }

    void ready(const std::string& status);
    void status(const std::string& text);
    void stopping(const std::string& status);
    // WATCHDOG=1 when the watchdog is on and the last ping is older than interval/4.
    // `now` is a steady clock reading, passed in so tests can drive it.
    void watchdog(std::chrono::steady_clock::time_point now);
    // READY=1 was sent.
    [[nodiscard]] bool is_ready() const { return m_ready; }

  private:
    void send(const std::string& state);

    bool m_enabled = false;
    bool m_ready = false;
    bool m_send_failed = false;
    std::optional<std::chrono::microseconds> m_watchdog;
    std::optional<std::chrono::steady_clock::time_point> m_last_ping;
};

}  // namespace ops
