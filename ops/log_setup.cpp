// Why a custom flag and not spdlog's syslog sink: journald reads the "<N>" prefix from the
// stream itself (SyslogLevelPrefix=yes, the default), so stderr stays the one output and a
// terminal run looks exactly as before. The file sink is ours because spdlog's basic file sink
// cannot reopen its file; spdlog's file_helper can, and opens in append mode, so logrotate's
// copytruncate works too. The message itself goes through %V, not %v: a log line may quote a
// job name, a path or an error text that came from a job's owner, and a newline there would
// forge a log line of its own (common::printable).
#include "ops/log_setup.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <spdlog/details/file_helper.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include "common/printable.h"
#include "common/try.h"

namespace ops {
namespace {

constexpr const char* k_plain_pattern = "[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %V";

// %V -> the message, with control characters shown as escapes.
class PrintableMessageFlag final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& message, const std::tm&,
                spdlog::memory_buf_t& out) override {
        const auto text =
            common::printable(std::string_view(message.payload.data(), message.payload.size()));
        out.append(text.data(), text.data() + text.size());
    }
    [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<PrintableMessageFlag>();
    }
};

// %* -> the syslog priority prefix of the message's level.
class PriorityFlag final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& message, const std::tm&,
                spdlog::memory_buf_t& out) override {
        const std::string_view prefix = priority(message.level);
        out.append(prefix.data(), prefix.data() + prefix.size());
    }
    [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<PriorityFlag>();
    }

  private:
    static std::string_view priority(spdlog::level::level_enum level) {
        switch (level) {
            case spdlog::level::trace:
            case spdlog::level::debug:
                return SD_DEBUG;
            case spdlog::level::info:
                return SD_INFO;
            case spdlog::level::warn:
                return SD_WARNING;
            case spdlog::level::err:
                return SD_ERR;
            default:
                return SD_CRIT;
        }
    }
};

// A file sink whose file can be reopened at its path.
class ReopenableFileSink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    explicit ReopenableFileSink(const std::filesystem::path& path) {
        m_file.open(path.string(), false);
    }
    // Throws spdlog_ex when the path cannot be opened; lines are dropped until a reopen works
    // (file_helper has no file then, and writing to none would crash).
    void reopen() {
        std::lock_guard lock(mutex_);
        m_open = false;
        m_file.reopen(false);
        m_open = true;
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
        if (!m_open) {
            return;
        }
        spdlog::memory_buf_t formatted;
        formatter_->format(message, formatted);
        m_file.write(formatted);
    }
    void flush_() override {
        if (m_open) {
            m_file.flush();
        }
    }

  private:
    spdlog::details::file_helper m_file;
    bool m_open = true;
};

std::shared_ptr<ReopenableFileSink> g_file_sink;

}  // namespace

common::Result<spdlog::level::level_enum> parse_log_level(const std::string& text) {
    static constexpr std::pair<std::string_view, spdlog::level::level_enum> k_levels[] = {
        {"trace", spdlog::level::trace},
        {"debug", spdlog::level::debug},
        {"info", spdlog::level::info},
        {"warn", spdlog::level::warn},
        {"error", spdlog::level::err}};
    for (const auto& [name, level] : k_levels) {
        if (text == name) {
            return level;
        }
    }
    return common::fail("unknown log level '" + text + "'",
                        "use one of trace, debug, info, warn, error");
}

bool is_journal_stream(const char* journal_stream, int fd) {
    if (!journal_stream) {
        return false;
    }
    const std::string_view text(journal_stream);
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
        return false;
    }
    unsigned long long device = 0, inode = 0;
    const auto* begin = text.data();
    const auto* end = text.data() + text.size();
    const auto first = std::from_chars(begin, begin + colon, device);
    const auto second = std::from_chars(begin + colon + 1, end, inode);
    if (first.ec != std::errc() || first.ptr != begin + colon || second.ec != std::errc() ||
        second.ptr != end) {
        return false;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        return false;
    }
    return info.st_dev == device && info.st_ino == inode;
}

std::unique_ptr<spdlog::formatter> make_formatter(bool journal) {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<PrintableMessageFlag>('V');
    if (!journal) {
        formatter->set_pattern(k_plain_pattern);
        return formatter;
    }
    formatter->add_flag<PriorityFlag>('*').set_pattern("%*%V");
    return formatter;
}

common::Result<void> setup_logging(const LogSettings& settings) {
    const auto level = TRY(parse_log_level(settings.level));
    const bool journal = is_journal_stream(std::getenv("JOURNAL_STREAM"), 2);
    std::vector<spdlog::sink_ptr> sinks;
    if (journal) {
        sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
    } else {
        sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    }
    sinks.back()->set_formatter(make_formatter(journal));
    g_file_sink.reset();
    if (!settings.file.empty()) {
        try {
            g_file_sink = std::make_shared<ReopenableFileSink>(settings.file);
        } catch (const spdlog::spdlog_ex& e) {
            return common::fail("cannot open log file " + settings.file.string() + ": " + e.what(),
                                "choose a writable path with --log-file, or leave it out to "
                                "log to stderr only");
        }
        g_file_sink->set_formatter(make_formatter(false));
        sinks.push_back(g_file_sink);
    }
    auto logger = std::make_shared<spdlog::logger>("supervisor", sinks.begin(), sinks.end());
    logger->set_level(level);
    // A line per event, not per buffer: the file must be current when someone tails it.
    logger->flush_on(level);
    spdlog::set_default_logger(logger);
    return {};
}

void reopen_log_file() {
    if (!g_file_sink) {
        return;
    }
    try {
        g_file_sink->reopen();
        spdlog::info("log file reopened");
    } catch (const spdlog::spdlog_ex& e) {
        spdlog::error(
            "cannot reopen the log file; logging to stderr only until the next "
            "SIGHUP: {}",
            e.what());
    }
}

}  // namespace ops
