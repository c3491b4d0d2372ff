#include "run_supervisor.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/support/scratch_dir.h"
#include "tests/support/text.h"

namespace cli::test {
namespace {

// 'text' for /bin/sh, with embedded single quotes closed, escaped and reopened.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

}  // namespace

std::filesystem::path fresh_directory(const std::string& name) {
    static int counter = 0;
    static const test_support::ScratchDirForThisProcess scratch("supervisor-cli-tests");
    const auto dir = scratch.path() / (name + "_" + std::to_string(++counter));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

Run run_supervisor(const std::vector<std::string>& args, const std::filesystem::path& config_home,
                   const std::filesystem::path& binary) {
    const auto dir = fresh_directory("run");
    const auto home = config_home.empty() ? dir / "config" : config_home;
    std::string command = "XDG_CONFIG_HOME=" + quoted(home.string()) + " " + quoted(binary);
    for (const auto& arg : args) {
        command += " " + quoted(arg);
    }
    command += " >" + quoted((dir / "out").string()) + " 2>" + quoted((dir / "err").string()) +
               " </dev/null";
    const int raw = std::system(command.c_str());
    Run run;
    if (raw == -1) {
        ADD_FAILURE() << "cannot start: " << command;
        return run;
    }
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    run.out = test_support::read_text(dir / "out");
    run.err = test_support::read_text(dir / "err");
    std::filesystem::remove_all(dir);
    return run;
}

}  // namespace cli::test
