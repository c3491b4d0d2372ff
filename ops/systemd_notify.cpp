// The only file that calls libsystemd's sd_notify. sd_notify() already does nothing without
// NOTIFY_SOCKET; we check it ourselves too so `enabled()` can say so and no string is built
// for nobody. unset_environment is 0: a child (none today) would inherit the socket, which is
// what systemd documents for a main process that keeps talking to it.
#include "ops/systemd_notify.h"

#include <cstdlib>

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

namespace ops {

SystemdNotifier::SystemdNotifier() {
    const char* socket = std::getenv("NOTIFY_SOCKET");
    m_enabled = socket && *socket;
    std::uint64_t usec = 0;
    // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is us.
    if (m_enabled && sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
        m_watchdog = std::chrono::microseconds(usec);
    }
}

void SystemdNotifier::send(const std::string& state) {
    if (!m_enabled) {
        return;
    }
    const int rc = sd_notify(0, state.c_str());
    if (rc < 0 && !m_send_failed) {
        m_send_failed = true;
        spdlog::debug("sd_notify failed ({}); systemd will not hear from us", rc);
    }
}

void SystemdNotifier::ready(const std::string& status) {
    send("READY=1\nSTATUS=" + status);
    m_ready = true;
}

void SystemdNotifier::status(const std::string& text) {
    send("STATUS=" + text);
}

void SystemdNotifier::stopping(const std::string& status) {
    send("STOPPING=1\nSTATUS=" + status);
}

void SystemdNotifier::watchdog(std::chrono::steady_clock::time_point now) {
    if (!m_watchdog) {
        return;
    }
    if (m_last_ping && now - *m_last_ping < *m_watchdog / 4) {
        return;
    }
    m_last_ping = now;
    send("WATCHDOG=1");
}

}  // namespace ops
