// Clock: the only way code of ours reads the time, so tests can inject a FakeClock and stay
// deterministic. now() is the wall clock (what is stored and shown); monotonic() never jumps
// and is what every "for how long" must be measured on: the wall clock can be stepped (NTP, an
// administrator), and a step of half an hour must not make a healthy job look hung.
// SystemClock reads the real clocks.
#pragma once

#include <chrono>
#include <cstdint>

namespace common {

using TimePoint = std::chrono::system_clock::time_point;
using MonotonicPoint = std::chrono::steady_clock::time_point;

// The latest time the product holds: 2200-01-01 00:00:00 UTC. A TimePoint counts nanoseconds in
// 64 bits and ends in April 2262, so a time read from outside (Slurm's forecasts, a dated log
// line) that lies later is held as this one or refused, never converted: it would wrap into the
// past. Sixty years of a TimePoint's range stay for arithmetic on it.
inline constexpr std::int64_t k_latest_unix_seconds = 7'258'118'400;

[[nodiscard]] constexpr TimePoint latest_time() {
    return TimePoint{std::chrono::seconds{k_latest_unix_seconds}};
}

class Clock {
  public:
    virtual ~Clock() = default;
    [[nodiscard]] virtual TimePoint now() const = 0;
    [[nodiscard]] virtual MonotonicPoint monotonic() const = 0;
};

class SystemClock final : public Clock {
  public:
    [[nodiscard]] TimePoint now() const override;
    [[nodiscard]] MonotonicPoint monotonic() const override;
};

// A clock that moves only when told to; for tests. advance() and set() move both clocks by the
// same amount (time passing); step_wall_clock() moves the wall clock alone, as an NTP step or
// `date -s` does.
class FakeClock final : public Clock {
  public:
    explicit FakeClock(TimePoint start = TimePoint{std::chrono::seconds{1'800'000'000}})
        : m_now(start) {}
    [[nodiscard]] TimePoint now() const override { return m_now; }
    [[nodiscard]] MonotonicPoint monotonic() const override { return m_monotonic; }
    void advance(std::chrono::system_clock::duration by) {
        m_now += by;
        m_monotonic += std::chrono::duration_cast<std::chrono::steady_clock::duration>(by);
    }
    void set(TimePoint to) { advance(to - m_now); }
    void step_wall_clock(std::chrono::system_clock::duration by) { m_now += by; }

  private:
    TimePoint m_now;
    MonotonicPoint m_monotonic{std::chrono::hours{1}};
};

}  // namespace common
