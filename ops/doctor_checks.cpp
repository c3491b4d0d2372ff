// The local checks: configuration, rules, state directory, database, metrics file. Each
// message names the path it looked at, because the usual problem is looking at another one
// than the daemon does (a different user, $XDG_* or SUPERVISOR_STATE_DIR under systemd).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "ops/doctor.h"
#include "state/migrations.h"

namespace ops {
namespace {

Check ok(std::string name, std::string message) {
    return {std::move(name), CheckStatus::ok, std::move(message), ""};
}
Check warn(std::string name, std::string message, std::string fix) {
    return {std::move(name), CheckStatus::warn, std::move(message), std::move(fix)};
}
Check fail(std::string name, std::string message, std::string fix) {
    return {std::move(name), CheckStatus::fail, std::move(message), std::move(fix)};
}

std::string octal(unsigned mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode);
    return text;
}

}  // namespace

Check check_config(const common::Result<supervisor::Config>& config, const std::string& source) {
    if (!config) {
        return fail("config", config.error().message,
                    config.error().hint.empty() ? "fix the file" : config.error().hint);
    }
    return ok("config", source + ": poll every " + std::to_string(config->poll_interval.count()) +
                            " ms, " + std::to_string(config->rules_files.size()) +
                            " extra rules file(s), state in " + config->state_dir.string());
}

Check check_rules(const common::Result<recovery::Catalogue>& catalogue) {
    if (!catalogue) {
        return fail("rules", catalogue.error().message,
                    catalogue.error().hint.empty() ? "fix the rules file named above"
                                                   : catalogue.error().hint);
    }
    return ok("rules", std::to_string(catalogue->rules().size()) + " diagnosis rules loaded");
}

Check check_state_dir(const std::filesystem::path& directory, uid_t uid) {
    const std::string name = "state_dir";
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0) {
        if (errno == ENOENT) {
            return warn(name, directory.string() + " does not exist yet",
                        "nothing to do: `supervisor register` or `supervisor run` creates it "
                        "(mode 0700)");
        }
        return fail(name, "cannot look at " + directory.string() + ": " + std::strerror(errno),
                    "choose a directory you can reach with --state-dir or SUPERVISOR_STATE_DIR");
    }
    if (!S_ISDIR(info.st_mode)) {
        return fail(name, directory.string() + " is not a directory",
                    "remove it or choose another with --state-dir / SUPERVISOR_STATE_DIR");
    }
    if (::access(directory.c_str(), W_OK | X_OK) != 0) {
        return fail(name, directory.string() + " is not writable by uid " + std::to_string(uid),
                    "chown it to the supervisor's user, or choose another with --state-dir");
    }
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return fail(name,
                    directory.string() + " can be written by group or others (mode " +
                        octal(info.st_mode & 0777) +
                        "); they could change the env files "
                        "jobs source",
                    "chmod 700 " + directory.string());
    }
    if ((info.st_mode & 077) != 0) {
        return fail(name,
                    directory.string() + " can be read by group or others (mode " +
                        octal(info.st_mode & 0777) +
                        "); the database and env files in it hold jobs' environments",
                    "chmod 700 " + directory.string());
    }
    if (info.st_uid != uid) {
        return warn(name,
                    directory.string() + " belongs to uid " + std::to_string(info.st_uid) +
                        ", not to uid " + std::to_string(uid),
                    "run the supervisor as the directory's owner, or chown it");
    }
    return ok(name, directory.string() + " (ours, writable, not writable by others)");
}

std::vector<Check> check_database(const std::filesystem::path& file,
                                  std::unique_ptr<state::Store>& opened) {
    std::error_code error;
    if (!std::filesystem::exists(file, error)) {
        return {warn("database", file.string() + " does not exist yet",
                     "nothing to do: the first `supervisor register` or `supervisor run` "
                     "creates it")};
    }
    // Looked at before the open, which makes a file of ours private again.
    std::optional<Check> mode;
    struct stat info {};
    if (::stat(file.c_str(), &info) == 0 && (info.st_mode & 077) != 0) {
        mode = fail("database_mode",
                    file.string() + " was readable by group or others (mode " +
                        octal(info.st_mode & 0777) + ") and holds jobs' environments",
                    "chmod 600 " + file.string() +
                        "* (the supervisor does so when it opens a "
                        "file it owns)");
    }
    auto store = state::Store::open(file);
    if (!store) {
        return {fail("database", store.error().message,
                     store.error().hint.empty() ? "see the message" : store.error().hint)};
    }
    std::vector<Check> checks;
    if (mode) {
        checks.push_back(*mode);
    }
    try {
        checks.push_back(ok(
            "database",
            file.string() + " opens, schema version " + std::to_string((*store)->schema_version()) +
                " (this binary's: " + std::to_string(state::latest_schema_version()) + ")"));
        const auto problems = (*store)->integrity_check();
        if (problems == std::vector<std::string>{"ok"}) {
            checks.push_back(ok("database_integrity", "PRAGMA integrity_check: ok"));
        } else {
            std::string text;
            for (std::size_t i = 0; i < problems.size() && i < 3; ++i) {
                text += (i ? "; " : "") + problems[i];
            }
            checks.push_back(fail("database_integrity", "PRAGMA integrity_check: " + text,
                                  "stop the daemon, keep a copy of the file, and try "
                                  "`sqlite3 " +
                                      file.string() + " .recover`"));
        }
        const auto journal_mode = (*store)->journal_mode();
        if (journal_mode == "wal") {
            checks.push_back(ok("database_wal", "journal_mode wal (CLI and daemon share it)"));
        } else {
            checks.push_back(fail("database_wal", "journal_mode is " + journal_mode + ", not wal",
                                  "put the state directory on a local file system"));
        }
    } catch (const state::DatabaseError& e) {
        checks.push_back(fail("database", e.what(),
                              "if it says 'database is locked', another process holds a long "
                              "transaction: retry, or stop it"));
    }
    opened = std::move(*store);
    return checks;
}

Check check_metrics_file(const std::filesystem::path& file) {
    if (file.empty()) {
        return ok("metrics_file",
                  "not configured (set metrics_file or --metrics-file to write "
                  "Prometheus metrics)");
    }
    const auto directory = file.parent_path();
    if (::access(directory.c_str(), W_OK | X_OK) != 0) {
        return fail("metrics_file",
                    "cannot write into " + directory.string() + ": " + std::strerror(errno),
                    "create the directory and let the supervisor's user write it (the "
                    "textfile collector's directory, e.g. /var/lib/prometheus/node-exporter)");
    }
    struct stat info {};
    if (::stat(directory.c_str(), &info) == 0 && (info.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
        (info.st_mode & S_ISVTX) == 0) {
        return fail("metrics_file",
                    directory.string() +
                        " is writable by its group or by others (without the "
                        "sticky bit): another user could replace or redirect "
                        "the metrics file",
                    "chmod go-w " + directory.string() +
                        " (or chmod +t), or write the metrics somewhere only the supervisor "
                        "and the collector's group can reach");
    }
    if (file.extension() != ".prom") {
        return warn("metrics_file", file.string() + " does not end in .prom",
                    "node_exporter's textfile collector reads *.prom files only");
    }
    return ok("metrics_file", file.string() + " (directory writable)");
}

}  // namespace ops
