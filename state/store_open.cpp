// Store::open and the default location. Most first-run problems show here (no directory, a
// directory we cannot write, a stray file, a newer schema), so each becomes an Error that
// names the path and says how to choose another one.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/try.h"
#include "state/database.h"
#include "state/migrations.h"
#include "state/store.h"

namespace state {
namespace {

constexpr std::string_view k_where_hint =
    "choose a writable directory with SUPERVISOR_STATE_DIR or --state-dir";

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// mkdir -p, but every directory we create is 0700: the file holds notification targets and
// job scripts' environment, which other users have no business reading.
common::Result<void> make_state_directory(const std::filesystem::path& directory) {
    std::filesystem::path prefix;
    for (const auto& part : directory) {
        prefix /= part;
        if (::mkdir(prefix.c_str(), 0700) == 0 || errno == EEXIST) {
            continue;
        }
        return common::fail("cannot create state directory " + directory.string() + " (at " +
                                prefix.string() + ": " + std::strerror(errno) + ")",
                            std::string(k_where_hint));
    }
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error)) {
        return common::fail("state directory " + directory.string() + " is not a directory",
                            std::string(k_where_hint));
    }
    // SQLite creates the -wal and -shm files next to the database, so the directory itself
    // must be writable even when the file already exists.
    if (::access(directory.c_str(), W_OK | X_OK) != 0) {
        return common::fail("state directory " + directory.string() + " is not writable (" +
                                std::strerror(errno) + ")",
                            std::string(k_where_hint));
    }
    return {};
}

// SQLite creates the file (and its -wal and -shm, which copy its mode) with 0644 less the
// umask: readable by everyone under a lax umask, while it holds job environments, tokens
// included. Made 0600 whatever the umask; a file of someone else's is left alone.
void make_private(const std::filesystem::path& file) {
    for (const auto& path : {file.string(), file.string() + "-wal", file.string() + "-shm"}) {
        struct stat info {};
        if (::stat(path.c_str(), &info) == 0 && info.st_uid == ::geteuid() &&
            (info.st_mode & 077) != 0) {
            ::chmod(path.c_str(), 0600);
        }
    }
}

}  // namespace

std::filesystem::path default_state_dir() {
    if (auto dir = env("SUPERVISOR_STATE_DIR"); !dir.empty()) {
        return dir;
    }
    // The XDG spec says a relative $XDG_STATE_HOME is invalid and must be ignored.
    if (auto xdg = env("XDG_STATE_HOME"); !xdg.empty() && xdg.front() == '/') {
        return std::filesystem::path(xdg) / "slurm-supervisor";
    }
    std::string home = env("HOME");
    if (home.empty()) {
        // Daemons started without a login environment may have no $HOME.
        if (const passwd* entry = ::getpwuid(::getuid()); entry && entry->pw_dir) {
            home = entry->pw_dir;
        }
    }
    return std::filesystem::path(home) / ".local" / "state" / "slurm-supervisor";
}

common::Result<std::unique_ptr<Store>> Store::open(const std::filesystem::path& file) {
    const std::filesystem::path directory =
        file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    TRY(make_state_directory(directory));
    auto database = TRY(Database::open(file));
    make_private(file);
    try {
        TRY(migrate(*database));
    } catch (const DatabaseError& error) {
        return common::fail(std::string("cannot prepare state database: ") + error.what(),
                            std::string(k_where_hint));
    }
    return std::unique_ptr<Store>(new Store(std::move(database), file));
}

Store::Store(std::unique_ptr<Database> database, std::filesystem::path path)
    : m_database(std::move(database)), m_path(std::move(path)) {}

Store::~Store() = default;

Transaction Store::begin() {
    return Transaction(*m_database);
}

int Store::schema_version() const {
    return m_database->user_version();
}

}  // namespace state
