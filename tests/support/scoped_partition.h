// A partition made for one test (scontrol create, as root) and deleted when it ends. Declare it
// before anything that cancels the test's jobs, so that they are gone when it is deleted.
// Throws std::runtime_error where it cannot be made (not root, a name in use).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "tests/support/real_cluster.h"

namespace test_support {

class ScopedPartition {
  public:
    ScopedPartition(std::string name, const std::string& nodes) : m_name(std::move(name)) {
        const auto made = run_command("scontrol create PartitionName=" + m_name +
                                      " Nodes=" + nodes + " State=UP");
        if (made.exit_status != 0) {
            throw std::runtime_error("scontrol create partition failed (needs root): " +
                                     made.output);
        }
    }
    ~ScopedPartition() { (void)run_command("scontrol delete PartitionName=" + m_name); }
    ScopedPartition(const ScopedPartition&) = delete;
    ScopedPartition& operator=(const ScopedPartition&) = delete;
    [[nodiscard]] const std::string& name() const { return m_name; }

  private:
    std::string m_name;
};

}  // namespace test_support
