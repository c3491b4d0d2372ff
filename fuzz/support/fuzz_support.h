// Helpers shared by the fuzz targets: a property check that aborts (libFuzzer then saves the
// input), a scratch file whose path the file-based parsers can open, a scratch directory, and
// small ways to cut one fuzz input into several values.
//
// Nothing here writes outside the scratch file (an anonymous memfd, or an unlinked mkstemp
// file when memfd_create is not available) and the scratch directory (mkdtemp under $TMPDIR,
// /dev/shm preferred when it is writable), which is removed when the process exits normally.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

// A property the code under test promises; its failure is a finding, like a crash.
#define FUZZ_CHECK(condition)                                                                     \
    do {                                                                                          \
        if (!(condition)) {                                                                       \
            std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #condition); \
            std::abort();                                                                         \
        }                                                                                         \
    } while (false)

namespace fuzz {

// Set-up that cannot work (no scratch file, rules that do not load) is not a finding: say so
// and stop before any input runs.
[[noreturn]] inline void setup_failed(const std::string& what) {
    std::fprintf(stderr, "fuzz target set-up failed: %s\n", what.c_str());
    std::exit(2);
}

// The scratch directory of this process, created on first use and removed at exit (libFuzzer
// ends with exit(); a crash leaves it behind, named supervisor-fuzz-*). Never destroyed: the
// atexit handler runs after the destructors of statics constructed after its registration.
inline const std::filesystem::path& scratch_directory() {
    static const std::filesystem::path* const directory = [] {
        std::string base;
        if (const char* tmp = std::getenv("FUZZ_SCRATCH_DIR"); tmp != nullptr && *tmp != '\0') {
            base = tmp;
        } else if (::access("/dev/shm", W_OK) == 0) {
            base = "/dev/shm";
        } else if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir) {
            base = tmpdir;
        } else {
            base = "/tmp";
        }
        std::string name = base + "/supervisor-fuzz-XXXXXX";
        if (::mkdtemp(name.data()) == nullptr) {
            setup_failed("mkdtemp in " + base + ": " + std::strerror(errno));
        }
        static const auto* const made = new std::filesystem::path(name);
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(*made, ec);
        });
        return made;
    }();
    return *directory;
}

// One file reused for every input: each call to write() replaces its whole content. path()
// names it for code that opens files by name (/proc/self/fd/N of a memfd: a regular file that
// lives only in memory and disappears with the process).
class ScratchFile {
  public:
    ScratchFile() {
        m_fd = ::memfd_create("supervisor-fuzz", MFD_CLOEXEC);
        if (m_fd < 0) {
            std::string name = (scratch_directory() / "input-XXXXXX").string();
            m_fd = ::mkstemp(name.data());
            if (m_fd < 0) {
                setup_failed("mkstemp: " + std::string(std::strerror(errno)));
            }
            ::unlink(name.c_str());
        }
        m_path = "/proc/self/fd/" + std::to_string(m_fd);
    }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    void write(const std::uint8_t* data, std::size_t size) const {
        if (::ftruncate(m_fd, 0) != 0) {
            setup_failed("ftruncate: " + std::string(std::strerror(errno)));
        }
        std::size_t done = 0;
        while (done < size) {
            const auto n = ::pwrite(m_fd, data + done, size - done, static_cast<off_t>(done));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                setup_failed("pwrite: " + std::string(std::strerror(errno)));
            }
            done += static_cast<std::size_t>(n);
        }
    }
    void write(std::string_view text) const {
        write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    }
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  private:
    int m_fd = -1;
    std::filesystem::path m_path;
};

// Writes `content` to `path` (created or truncated), or removes it when `content` is null.
inline void put_file(const std::filesystem::path& path, const std::string* content) {
    if (content == nullptr) {
        ::unlink(path.c_str());
        return;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        setup_failed("open " + path.string() + ": " + std::strerror(errno));
    }
    std::size_t done = 0;
    while (done < content->size()) {
        const auto n = ::write(fd, content->data() + done, content->size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            setup_failed("write " + path.string() + ": " + std::strerror(errno));
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// `text` cut at every occurrence of `separator` (an absent separator gives one part).
inline std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const auto at = text.find(separator, start);
        if (at == std::string_view::npos) {
            parts.push_back(text.substr(start));
            return parts;
        }
        parts.push_back(text.substr(start, at - start));
        start = at + separator.size();
    }
}

// Reads the input front to back: a byte (0 when used up) or the first line.
class Reader {
  public:
    explicit Reader(std::string_view text) : m_text(text) {}
    std::uint8_t byte() {
        if (m_text.empty()) {
            return 0;
        }
        const auto value = static_cast<std::uint8_t>(m_text.front());
        m_text.remove_prefix(1);
        return value;
    }
    // Up to (not including) the next '\n', which is consumed; everything when there is none.
    std::string_view line() {
        const auto newline = m_text.find('\n');
        const auto line = m_text.substr(0, newline);
        m_text.remove_prefix(newline == std::string_view::npos ? m_text.size() : newline + 1);
        return line;
    }
    [[nodiscard]] std::string_view rest() const { return m_text; }

  private:
    std::string_view m_text;
};

}  // namespace fuzz
