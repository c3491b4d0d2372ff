// ReadBudget (read_budget.h). The time is read on every charge: a read or a directory entry is a
// system call, so one more clock read (a vDSO call) costs nothing next to it, and a slow
// filesystem is caught at the first read after the deadline rather than at the end of a file.
#include "recovery/checkpoints/read_budget.h"

#include <utility>

namespace recovery::checkpoints {
namespace {

std::string mebibytes(std::uint64_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

ReadBudget::ReadBudget(ReadLimits limits, Now now)
    : m_limits(limits), m_now(std::move(now)), m_started(m_now()) {}

bool ReadBudget::charge(std::uint64_t bytes) {
    if (exhausted()) {
        return false;
    }
    if (bytes > m_limits.max_bytes - m_bytes) {
        m_exhausted_because = "not checked: the read budget of " + mebibytes(m_limits.max_bytes) +
                              " per scan is used up (" + mebibytes(m_bytes) + " read, " +
                              std::to_string(bytes) + " more bytes asked)";
        return false;
    }
    if (!within_time()) {
        return false;
    }
    m_bytes += bytes;
    return true;
}

bool ReadBudget::charge_entry() {
    if (exhausted()) {
        return false;
    }
    if (m_entries >= m_limits.max_entries) {
        m_exhausted_because = "not checked: the budget of " + std::to_string(m_limits.max_entries) +
                              " directory entries per scan is used up";
        return false;
    }
    if (!within_time()) {
        return false;
    }
    ++m_entries;
    return true;
}

bool ReadBudget::within_time() {
    if (m_now() - m_started <= m_limits.max_time) {
        return true;
    }
    m_exhausted_because =
        "not checked: the time budget of " +
        std::to_string(
            std::chrono::duration_cast<std::chrono::seconds>(m_limits.max_time).count()) +
        " s per scan is used up (" + mebibytes(m_bytes) + " read, " + std::to_string(m_entries) +
        " directory entries looked at)";
    return false;
}

}  // namespace recovery::checkpoints
