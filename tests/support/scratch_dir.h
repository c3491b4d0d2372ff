// One scratch directory per test process, under the system temp dir or a given base directory,
// for files that outlive a single test (Slurm job output, copied binaries, CLI fixtures). Removed
// with everything in it when the process exits and every test in it passed; kept after a failure so
// that it can be read, and kept always when SUPERVISOR_KEEP_TEST_FILES is set. Creating it throws
// std::filesystem::filesystem_error when the temp dir cannot be written.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace test_support {

class ScratchDirForThisProcess {
  public:
    // <base>/<prefix>-<pid>, created (with parents) now; <base> is the system temp dir unless
    // given.
    explicit ScratchDirForThisProcess(
        const std::string& prefix,
        const std::filesystem::path& base = std::filesystem::temp_directory_path())
        : m_path(base / (prefix + "-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(m_path);
    }

    // Why at exit and only after success: a leaked copy of the supervisor binary is 150 MB, and
    // test runs that never cleaned up filled the CI machine's disk. Held as a function-local
    // static, this runs before googletest's own UnitTest instance (created earlier) goes away.
    ~ScratchDirForThisProcess() {
        if (std::getenv("SUPERVISOR_KEEP_TEST_FILES") != nullptr ||
            !::testing::UnitTest::GetInstance()->Passed()) {
            return;
        }
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }

    ScratchDirForThisProcess(const ScratchDirForThisProcess&) = delete;
    ScratchDirForThisProcess& operator=(const ScratchDirForThisProcess&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  private:
    std::filesystem::path m_path;
};

}  // namespace test_support
