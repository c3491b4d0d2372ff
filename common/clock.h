// Clock: the only way code of ours reads the time, so tests can inject a FakeClock and stay
// deterministic. SystemClock reads the real wall clock.
#pragma once

#include <chrono>

namespace common {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
public:
    virtual ~Clock() = default;
    [[nodiscard]] virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
public:
    [[nodiscard]] TimePoint now() const override;
};

// A clock that moves only when told to; for tests.
class FakeClock final : public Clock {
public:
    explicit FakeClock(TimePoint start = TimePoint{std::chrono::seconds{1'800'000'000}})
        : m_now(start) {}
    [[nodiscard]] TimePoint now() const override { return m_now; }
    void advance(std::chrono::system_clock::duration by) { m_now += by; }
    void set(TimePoint to) { m_now = to; }

private:
    TimePoint m_now;
};

}  // namespace common
