// The epilog spool's check. Its safety verdict is the reader's own rule (spool_trust.h), so
// doctor fails exactly the spools whose files the daemon would refuse. Whether the epilog runs
// at all is only a warning: a quiet cluster, or one whose GPU nodes are all idle, writes
// nothing for days; a directory listing that never ends (a spool of millions of files on
// NFS) is cut at a fixed number of entries.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "node_evidence/spool_trust.h"
#include "ops/doctor.h"

namespace ops {
namespace {

const std::string k_name = "epilog_spool";

std::string age_text(std::chrono::seconds age) {
    const auto seconds = age.count();
    if (seconds < 120) {
        return std::to_string(std::max<long long>(seconds, 0)) + " s";
    }
    if (seconds < 2 * 3600) {
        return std::to_string(seconds / 60) + " min";
    }
    if (seconds < 2 * 86400) {
        return std::to_string(seconds / 3600) + " h";
    }
    return std::to_string(seconds / 86400) + " days";
}

struct Newest {
    std::optional<common::TimePoint> when;
    std::size_t files = 0;
    bool cut = false;  // stopped at k_epilog_spool_entries_looked_at
};

// The newest regular, non-hidden file among the first entries (the epilog's temporary files
// are hidden). Links are looked at, never followed.
Newest newest_file(int directory) {
    Newest newest;
    const int fd = ::dup(directory);
    DIR* listing = fd < 0 ? nullptr : ::fdopendir(fd);
    if (listing == nullptr) {
        if (fd >= 0) {
            ::close(fd);
        }
        return newest;
    }
    std::size_t entries = 0;
    while (const dirent* entry = ::readdir(listing)) {
        if (entries++ == k_epilog_spool_entries_looked_at) {
            newest.cut = true;
            break;
        }
        if (entry->d_name[0] == '.') {
            continue;
        }
        struct stat info {};
        if (::fstatat(directory, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(info.st_mode)) {
            continue;
        }
        ++newest.files;
        const common::TimePoint modified{std::chrono::duration_cast<common::TimePoint::duration>(
            std::chrono::seconds{info.st_mtim.tv_sec} +
            std::chrono::nanoseconds{info.st_mtim.tv_nsec})};
        if (!newest.when || modified > *newest.when) {
            newest.when = modified;
        }
    }
    ::closedir(listing);
    return newest;
}

}  // namespace

Check check_epilog_spool(const std::filesystem::path& spool, common::TimePoint now, uid_t uid,
                         slurm::Client* client) {
    if (spool.empty()) {
        return {k_name, CheckStatus::ok,
                "not configured (set [evidence] epilog_spool to read the nodes' GPU kernel events "
                "that contrib/slurm/epilog.sh leaves there)",
                ""};
    }
    const std::string where = spool.string();
    const std::string create =
        "create it on storage the nodes and this host share: install -d -o root -g root -m 0755 " +
        where + " (contrib/slurm/README.md)";
    struct stat link {};
    if (::lstat(spool.c_str(), &link) != 0) {
        const int error = errno;
        return {k_name, CheckStatus::fail, "cannot look at " + where + ": " + std::strerror(error),
                error == ENOENT ? create : "check the path and that it is mounted here"};
    }
    if (S_ISLNK(link.st_mode)) {
        return {k_name, CheckStatus::fail,
                where + " is a symbolic link; the supervisor does not follow it",
                "name the directory it points to in epilog_spool"};
    }
    if (!S_ISDIR(link.st_mode)) {
        return {k_name, CheckStatus::fail, where + " is not a directory", create};
    }
    node_evidence::OwnerCheck slurm_user;
    if (client != nullptr) {
        slurm_user = [client](uid_t owner) {
            const auto is = client->ask_is_operator_uid(owner);
            return is && *is;
        };
    }
    if (const auto why =
            node_evidence::untrusted_because(link.st_uid, link.st_mode, uid, slurm_user)) {
        return {k_name, CheckStatus::fail,
                where + " " + *why +
                    ": a user could put a file there that condemns a node, so the supervisor "
                    "reads none",
                "chown root " + where + " && chmod go-w " + where};
    }
    const int directory = ::open(spool.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (directory < 0) {
        const int error = errno;
        return {
            k_name, CheckStatus::fail,
            "cannot read " + where + " as uid " + std::to_string(uid) + ": " + std::strerror(error),
            "let the supervisor's user read it (mode 0755)"};
    }
    const auto newest = newest_file(directory);
    ::close(directory);
    const std::string looked =
        newest.cut
            ? " (of the first " + std::to_string(k_epilog_spool_entries_looked_at) + " entries)"
            : "";
    const std::string installed =
        "check that the nodes run contrib/slurm/epilog.sh (Epilog= in slurm.conf) with `spool = " +
        where + "` in its config, and that they mount it there";
    if (!newest.when) {
        return {k_name, CheckStatus::warn,
                where + " is safe, but no epilog has written a file there yet" + looked, installed};
    }
    const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *newest.when);
    if (age > k_epilog_spool_quiet_after) {
        return {k_name, CheckStatus::warn,
                where + " is safe, but its newest file is " + age_text(age) + " old" + looked,
                installed + " (a GPU node writes one at the end of every job)"};
    }
    return {k_name, CheckStatus::ok,
            where + " (not writable by others): " + std::to_string(newest.files) + " file(s)" +
                looked + ", the newest written " + age_text(age) + " ago",
            ""};
}

}  // namespace ops
