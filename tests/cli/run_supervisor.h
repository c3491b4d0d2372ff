// Runs the built `supervisor` binary (path compiled in as SUPERVISOR_BINARY) with arguments and
// captures its exit status, stdout and stderr. For tests of the command line as a person uses
// it. The child gets XDG_CONFIG_HOME pointed at `config_home` (an empty directory by default) so
// a developer's own rules file never changes a test's outcome.
//
// run_supervisor() fails the current test (ADD_FAILURE) when the child cannot be started.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cli::test {

struct Run {
    int status = -1;  // exit status; -1 when the child did not exit normally
    std::string out;
    std::string err;
};

// A fresh empty directory, unique per call, in this process's scratch directory (removed at exit
// when every test passed: tests/support/scratch_dir.h).
[[nodiscard]] std::filesystem::path fresh_directory(const std::string& name);

[[nodiscard]] Run run_supervisor(const std::vector<std::string>& args,
                                 const std::filesystem::path& config_home = {},
                                 const std::filesystem::path& binary = SUPERVISOR_BINARY);

void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace cli::test
