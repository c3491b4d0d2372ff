// The spool lives on shared storage that many hosts' root can write, and its files steer the
// supervisor towards condemning (and, site-wide, draining) a node. So every step is taken on
// descriptors, not names: the directory is opened once without following a link and checked,
// and each file is opened relative to it, again without following a link, then checked on
// the open descriptor (fstat), so that no rename between check and read can swap what is read.
// O_NONBLOCK keeps a FIFO planted under a file's name from blocking the daemon.
#include "node_evidence/epilog_spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/input_file.h"
#include "common/join.h"
#include "node_evidence/epilog_file.h"
#include "node_evidence/spool_trust.h"

namespace node_evidence {
namespace {

class Descriptor {
  public:
    explicit Descriptor(int fd) : m_fd(fd) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    [[nodiscard]] int get() const { return m_fd; }

  private:
    int m_fd;
};

std::string why_not_opened(int error) {
    return error == ELOOP ? std::string("it is a symbolic link") : std::strerror(error);
}

// At most `limit` bytes from the end of the open file; a first line cut by the limit dropped.
std::optional<std::string> read_end(int fd, std::uint64_t size, std::uint64_t limit, bool& cut) {
    cut = size > limit;
    const std::uint64_t from = cut ? size - limit : 0;
    std::string text(static_cast<std::size_t>(size - from), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const auto got =
            ::pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(from + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            return std::nullopt;
        }
        if (got == 0) {
            break;  // shorter than fstat said: the epilog does not append, but be content
        }
        done += static_cast<std::size_t>(got);
    }
    text.resize(done);
    if (cut) {
        const auto newline = text.find('\n');
        text.erase(0, newline == std::string::npos ? text.size() : newline + 1);
    }
    return text;
}

std::string size_text(std::uint64_t bytes) {
    return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KiB"
                             : std::to_string(bytes) + " bytes";
}

// The run's time, widened by the margin: the lines of a node's file kept.
struct Window {
    common::TimePoint from;
    common::TimePoint to;
};

// One node's file `name`, opened relative to the open `spool` without following a link and
// checked on its descriptor: its lines in `window` join found.kernel_logs, or a note says why it
// was not read. Adds what was read to `total`. False when the node has no file.
bool read_node_file(int spool, const std::string& name, const std::string& node,
                    const Window& window, const EpilogSpoolOptions& options, std::uint64_t& total,
                    Found& found) {
    const auto path = (options.directory / name).string();
    const Descriptor file(
        ::openat(spool, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (file.get() < 0) {
        if (errno == ENOENT) {
            return false;
        }
        found.notes.push_back(path + " not read: " + why_not_opened(errno));
        return true;
    }
    struct stat info {};
    if (::fstat(file.get(), &info) != 0) {
        found.notes.push_back(path + " not read: " + std::strerror(errno));
        return true;
    }
    if (!S_ISREG(info.st_mode)) {
        found.notes.push_back(path + " not read: it is " +
                              std::string(common::file_kind_name(info.st_mode)));
        return true;
    }
    if (const auto why =
            untrusted_because(info.st_uid, info.st_mode, options.self, options.also_trusted)) {
        found.notes.push_back(path + " not read: it " + *why);
        return true;
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const auto limit = std::min(options.max_file_bytes, options.max_total_bytes - total);
    if (limit == 0) {
        found.notes.push_back(path + " not read: " + size_text(options.max_total_bytes) +
                              " were read from the spool for this run, the most it may");
        return true;
    }
    bool cut = false;
    auto text = read_end(file.get(), size, limit, cut);
    if (!text) {
        found.notes.push_back(path + " not read: " + std::strerror(errno));
        return true;
    }
    total += std::min(size, limit);
    if (cut) {
        found.notes.push_back(path + " is " + std::to_string(size) + " bytes; only its last " +
                              size_text(limit) + " were read");
    }
    auto windowed = keep_window(*text, window.from, window.to);
    if (windowed.kept == 0) {
        return true;  // the node said nothing about this run
    }
    auto excerpt = recovery::LogExcerpt::from_text(path, std::move(windowed.text));
    excerpt.set_node(node);
    found.kernel_logs.push_back(std::move(excerpt));
    return true;
}

}  // namespace

Found EpilogSpool::gather(const Request& request) {
    Found found;
    const auto& directory = m_options.directory;
    const std::string where = "epilog spool " + directory.string();
    if (!request.run_ended) {
        found.notes.push_back(where +
                              " not read: the run has not ended (a hang is diagnosed "
                              "while it runs), so no epilog has run on its nodes yet");
        return found;
    }
    if (request.slurm_job_id == 0) {
        found.notes.push_back(where + " not read: the run's Slurm job id is not known");
        return found;
    }
    const Descriptor spool(
        ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (spool.get() < 0) {
        // O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link: say which it is.
        const int error = errno;
        struct stat link {};
        const bool is_link = ::lstat(directory.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
        found.notes.push_back(
            where + " not read: " + (is_link ? why_not_opened(ELOOP) : why_not_opened(error)));
        return found;
    }
    struct stat info {};
    if (::fstat(spool.get(), &info) != 0) {
        found.notes.push_back(where + " not read: " + std::strerror(errno));
        return found;
    }
    if (const auto why =
            untrusted_because(info.st_uid, info.st_mode, m_options.self, m_options.also_trusted)) {
        found.notes.push_back(where + " not read: it " + *why +
                              ", so anyone could have written its files");
        return found;
    }

    const Window window{request.start - m_options.margin, request.end + m_options.margin};
    std::vector<std::string> missing;
    std::uint64_t total = 0;
    std::size_t looked = 0;
    for (const auto& node : request.nodes) {
        if (looked == m_options.max_nodes) {
            found.notes.push_back(where + ": only the files of the first " +
                                  std::to_string(looked) + " of the run's " +
                                  std::to_string(request.nodes.size()) + " nodes were read");
            break;
        }
        ++looked;
        const auto name = epilog_file_name(request.slurm_job_id, node);
        if (!name) {
            found.notes.push_back(where + ": node name '" + node +
                                  "' cannot name an epilog file; not looked for");
            continue;
        }
        if (!read_node_file(spool.get(), *name, node, window, m_options, total, found)) {
            missing.push_back(node);
        }
    }
    if (!missing.empty()) {
        found.notes.push_back(where + ": no file for " + common::join(missing) +
                              " (the epilog writes none on a node without GPUs where it found "
                              "nothing, and none runs on a node that died)");
    }
    return found;
}

}  // namespace node_evidence
