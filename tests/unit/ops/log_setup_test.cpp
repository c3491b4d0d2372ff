// The journald switch: JOURNAL_STREAM must name stderr's own device and inode; under journald
// a line is "<N>message" with the syslog priority, elsewhere the timestamped format. Bad
// levels are an error that names the accepted ones.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "ops/log_setup.h"
#include "tests/support/temp_dir.h"

namespace ops {
namespace {

std::string journal_stream_of(int fd) {
    struct stat info {};
    EXPECT_EQ(::fstat(fd, &info), 0);
    return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
}

TEST(LogSetup, JournalStreamMustMatchTheDescriptor) {
    test_support::TempDir dir;
    std::FILE* file = std::fopen((dir.path() / "stream").c_str(), "w");
    ASSERT_NE(file, nullptr);
    const int fd = ::fileno(file);
    const auto ours = journal_stream_of(fd);
    EXPECT_TRUE(is_journal_stream(ours.c_str(), fd));
    EXPECT_FALSE(is_journal_stream(nullptr, fd));
    EXPECT_FALSE(is_journal_stream("", fd));
    EXPECT_FALSE(is_journal_stream("12", fd));
    EXPECT_FALSE(is_journal_stream((ours + "x").c_str(), fd));
    const auto colon = ours.find(':');
    const auto other_inode =
        ours.substr(0, colon + 1) + std::to_string(std::stoull(ours.substr(colon + 1)) + 1);
    EXPECT_FALSE(is_journal_stream(other_inode.c_str(), fd));  // stderr redirected elsewhere
    std::fclose(file);
}

std::string format_with(bool journal, spdlog::level::level_enum level, const std::string& text) {
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
    sink->set_formatter(make_formatter(journal));
    spdlog::logger logger("supervisor", sink);
    logger.set_level(spdlog::level::trace);
    logger.log(level, text);
    return out.str();
}

TEST(LogSetup, JournalLinesCarryThePriorityAndNoTimestamp) {
    EXPECT_EQ(format_with(true, spdlog::level::err, "cycle aborted"), "<3>cycle aborted\n");
    EXPECT_EQ(format_with(true, spdlog::level::warn, "w"), "<4>w\n");
    EXPECT_EQ(format_with(true, spdlog::level::info, "i"), "<6>i\n");
    EXPECT_EQ(format_with(true, spdlog::level::debug, "d"), "<7>d\n");
    EXPECT_EQ(format_with(true, spdlog::level::trace, "t"), "<7>t\n");
    EXPECT_EQ(format_with(true, spdlog::level::critical, "c"), "<2>c\n");
}

TEST(LogSetup, PlainLinesKeepTimestampNameAndLevel) {
    const auto line = format_with(false, spdlog::level::warn, "slurmctld unreachable");
    EXPECT_EQ(line.front(), '[');
    EXPECT_NE(line.find("] [supervisor] [warning] slurmctld unreachable\n"), std::string::npos)
        << line;
    EXPECT_EQ(line.find('<'), std::string::npos);
}

TEST(LogSetup, ANewlineInAMessageCannotForgeALogLine) {
    // A resubmitted job's script path (the owner's) with a line of its own in it.
    const std::string text = "job 7: would run /home/u/x.sh\n<2>supervisor stopped\x1b[2K";
    EXPECT_EQ(format_with(true, spdlog::level::warn, text),
              "<4>job 7: would run /home/u/x.sh\\n<2>supervisor stopped\\e[2K\n");
    const auto plain = format_with(false, spdlog::level::warn, text);
    EXPECT_EQ(std::count(plain.begin(), plain.end(), '\n'), 1) << plain;
}

TEST(LogSetup, LevelsAreCheckedWithAClearError) {
    EXPECT_EQ(parse_log_level("debug"), spdlog::level::debug);
    EXPECT_EQ(parse_log_level("error"), spdlog::level::err);
    const auto bad = parse_log_level("warning");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, "unknown log level 'warning'");
    EXPECT_EQ(bad.error().hint, "use one of trace, debug, info, warn, error");
    EXPECT_FALSE(setup_logging({"loud", {}}));
}

TEST(LogSetup, LogFileIsAppendedAndReopenedAfterRotation) {
    test_support::TempDir dir;
    const auto file = dir.path() / "supervisor.log";
    ASSERT_TRUE(setup_logging({"info", file}));
    spdlog::info("before rotation");
    std::filesystem::rename(file, dir.path() / "supervisor.log.1");  // logrotate's move
    reopen_log_file();
    spdlog::info("after rotation");
    std::ifstream old_file(dir.path() / "supervisor.log.1"), new_file(file);
    std::stringstream old_text, new_text;
    old_text << old_file.rdbuf();
    new_text << new_file.rdbuf();
    EXPECT_NE(old_text.str().find("before rotation"), std::string::npos);
    EXPECT_EQ(old_text.str().find("after rotation"), std::string::npos);
    EXPECT_NE(new_text.str().find("after rotation"), std::string::npos);
    const auto bad = setup_logging({"info", dir.path() / "supervisor.log.1" / "x.log"});
    ASSERT_FALSE(bad);  // under a regular file: cannot exist
    EXPECT_NE(bad.error().message.find("cannot open log file"), std::string::npos);
    ASSERT_TRUE(setup_logging({"info", {}}));  // leave no file sink to later tests
}

}  // namespace
}  // namespace ops
