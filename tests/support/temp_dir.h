// TempDir: a fresh directory of its own, <temp>/<prefix>-XXXXXX under the system temp dir, for
// one test or fixture (header-only, for every suite). Removed with everything in it when it goes
// out of scope; kept so that it can be read when the test it belongs to has failed (its path is
// printed) and always when SUPERVISOR_KEEP_TEST_FILES is set, as ScratchDirForThisProcess keeps
// its directory. Creating it throws std::filesystem::filesystem_error when the temp dir cannot
// be written.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace test_support {

class TempDir {
  public:
    explicit TempDir(const std::string& prefix = "supervisor-test") {
        std::string pattern =
            (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::filesystem::filesystem_error(
                "mkdtemp", pattern, std::error_code(errno, std::generic_category()));
        }
        m_path = pattern;
    }

    // Whether the test failed is asked here: a TempDir of a fixture goes after TearDown(), while
    // googletest still counts failures against that test.
    ~TempDir() {
        if (std::getenv("SUPERVISOR_KEEP_TEST_FILES") != nullptr) {
            return;
        }
        if (::testing::Test::HasFailure()) {
            std::cerr << "test files kept for reading: " << m_path.string() << "\n";
            return;
        }
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  private:
    std::filesystem::path m_path;
};

}  // namespace test_support
