// DaemonLiveness: what a running daemon says of itself to whoever asks over the control channel
// (`supervisor register`, `sbatch`, `status` and `doctor` print it): its host and pid, when it
// started, when its last poll cycle ended. It is a DaemonObserver that the loop tells (from its
// thread) and then hands each call on to the next observer (systemd's and the metrics file's);
// snapshot() is safe from any thread (the control channel's).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "supervisor/daemon/daemon_observer.h"

namespace supervisor {

struct LivenessSnapshot {
    std::string host;
    pid_t pid = 0;
    common::TimePoint started_at;
    common::TimePoint last_cycle_at;  // epoch: no cycle has ended yet
    std::uint64_t cycles = 0;
    std::chrono::milliseconds poll_interval{0};
};

class DaemonLiveness final : public DaemonObserver {
  public:
    // `next` (may be null) is told everything this is told.
    DaemonLiveness(const common::Clock& clock, DaemonObserver* next);

    [[nodiscard]] LivenessSnapshot snapshot() const;

    void started(const Config& config) override;
    void cycle_finished(const CycleReport& report,
                        std::chrono::steady_clock::duration took) override;
    void cycle_failed(CycleFailure failure, const std::string& error) override;
    void alive() override;
    void progressing() override;
    void reloaded(const Config& config) override;
    void stopping() override;

  private:
    const common::Clock& m_clock;
    DaemonObserver* m_next;
    mutable std::mutex m_mutex;
    LivenessSnapshot m_snapshot;
};

}  // namespace supervisor
