// ReadBudget: what one checkpoint scan may spend reading files and directories, in bytes, in
// directory entries and in (monotonic) time. A checkpoint directory belongs to the job's owner,
// so its files may be built to cost as much as possible: a sparse file whose zip records claim
// a huge central directory, a safetensors header of 100 MB, thousands of shards, a directory of
// a million empty files (an array's tasks sharing one, or a slow parallel filesystem, needs no
// malice). Every read and every directory entry looked at (each a stat) is charged here; once a
// limit is reached every further charge fails, the listing or validation in progress ends "not
// checked", and the scan says so instead of going on.
//
// The clock is a parameter so tests can move time deterministically; by default it is
// std::chrono::steady_clock (never the wall clock, which can be stepped).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace recovery::checkpoints {

struct ReadLimits {
    std::uint64_t max_bytes = std::uint64_t{256} << 20;  // 256 MiB per scan
    std::chrono::milliseconds max_time{30'000};          // 30 s per scan
    std::uint64_t max_entries = 100'000;                 // directory entries per scan
};

class ReadBudget {
  public:
    using Now = std::function<std::chrono::steady_clock::time_point()>;

    explicit ReadBudget(ReadLimits limits = {}, Now now = &std::chrono::steady_clock::now);

    // True when `bytes` more may be read (and charges them); false, from then on for good,
    // when they would pass the byte limit or the time limit has passed.
    [[nodiscard]] bool charge(std::uint64_t bytes);
    // The same for one more directory entry looked at (listed, walked past, stat'ed).
    [[nodiscard]] bool charge_entry();
    [[nodiscard]] bool exhausted() const { return !m_exhausted_because.empty(); }
    // Why reading stopped ("read budget of 256 MiB per scan used up ..."); empty when it did not.
    [[nodiscard]] const std::string& exhausted_because() const { return m_exhausted_because; }
    [[nodiscard]] std::uint64_t bytes_charged() const { return m_bytes; }

  private:
    ReadLimits m_limits;
    Now m_now;
    std::chrono::steady_clock::time_point m_started;
    // False (and why kept) once the time limit has passed.
    [[nodiscard]] bool within_time();

    std::uint64_t m_bytes = 0;
    std::uint64_t m_entries = 0;
    std::string m_exhausted_because;
};

}  // namespace recovery::checkpoints
