// A mutex rather than atomics: a snapshot is read by the control thread a few times a second at
// most, and must never mix the fields of two cycles.
#include "supervisor/daemon/daemon_liveness.h"

#include <unistd.h>

#include <climits>

namespace supervisor {
namespace {

std::string host_name() {
    char name[HOST_NAME_MAX + 1] = {};
    if (::gethostname(name, sizeof name - 1) != 0) {
        return "?";
    }
    return name;
}

}  // namespace

DaemonLiveness::DaemonLiveness(const common::Clock& clock, DaemonObserver* next)
    : m_clock(clock), m_next(next) {
    m_snapshot.host = host_name();
    m_snapshot.pid = ::getpid();
    m_snapshot.started_at = m_clock.now();
}

LivenessSnapshot DaemonLiveness::snapshot() const {
    const std::lock_guard lock(m_mutex);
    return m_snapshot;
}

void DaemonLiveness::started(const Config& config) {
    {
        const std::lock_guard lock(m_mutex);
        m_snapshot.poll_interval = config.poll_interval;
    }
    if (m_next != nullptr) {
        m_next->started(config);
    }
}

void DaemonLiveness::cycle_finished(const CycleReport& report,
                                    std::chrono::steady_clock::duration took) {
    {
        const std::lock_guard lock(m_mutex);
        m_snapshot.last_cycle_at = m_clock.now();
        ++m_snapshot.cycles;
    }
    if (m_next != nullptr) {
        m_next->cycle_finished(report, took);
    }
}

void DaemonLiveness::cycle_failed(CycleFailure failure, const std::string& error) {
    if (m_next != nullptr) {
        m_next->cycle_failed(failure, error);
    }
}

void DaemonLiveness::alive() {
    if (m_next != nullptr) {
        m_next->alive();
    }
}

void DaemonLiveness::progressing() {
    if (m_next != nullptr) {
        m_next->progressing();
    }
}

void DaemonLiveness::reloaded(const Config& config) {
    {
        const std::lock_guard lock(m_mutex);
        m_snapshot.poll_interval = config.poll_interval;
    }
    if (m_next != nullptr) {
        m_next->reloaded(config);
    }
}

void DaemonLiveness::stopping() {
    if (m_next != nullptr) {
        m_next->stopping();
    }
}

}  // namespace supervisor
