// The permission check uses stat() on the path, then reads through the same path: a race with
// a chmod between the two is harmless (the next use checks again), and refusing a readable
// file is about catching a mistake, not about defending against the file's owner.
#include "common/secrets_file.h"
#include "common/trimmed.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

namespace common {
namespace {

std::string octal(mode_t mode) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
    return buffer;
}

// "keys: user, password"
std::string key_list(std::span<const std::string_view> keys) {
    if (keys.empty()) {
        return "lines `NAME = VALUE`";
    }
    std::string text = "keys: ";
    for (std::size_t i = 0; i < keys.size(); ++i) {
        text += (i ? ", " : "") + std::string(keys[i]);
    }
    return text;
}

}  // namespace

Result<Secrets> read_secrets_file(const std::filesystem::path& file,
                                  std::span<const std::string_view> keys) {
    const std::string name = file.string();
    struct stat info {};
    if (::stat(name.c_str(), &info) != 0) {
        std::string lines = keys.empty() ? "`NAME = VALUE`" : "";
        for (const auto key : keys) {
            lines += (lines.empty() ? "`" : " and `") + std::string(key) + " = ...`";
        }
        return fail("secrets file " + name + " cannot be read: " +
                        std::error_code(errno, std::generic_category()).message(),
                    "create it with " + lines + " lines, then `chmod 600 " + name + "`");
    }
    if (!S_ISREG(info.st_mode)) {
        return fail("secrets file " + name + " is not a regular file",
                    "point the *_secrets_file setting at a file");
    }
    if ((info.st_mode & 077) != 0) {
        return fail("secrets file " + name + " is accessible by group or others (mode " +
                        octal(info.st_mode) + "); refusing to use it",
                    "chmod 600 " + name);
    }
    std::ifstream in(file);
    if (!in) {
        return fail("secrets file " + name + " cannot be opened",
                    "make it readable by the user the supervisor runs as");
    }
    Secrets secrets;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string content = trimmed(line);
        if (content.empty() || content.front() == '#') {
            continue;
        }
        const auto equals = content.find('=');
        const std::string where = name + ":" + std::to_string(number);
        if (equals == std::string::npos || equals == 0) {
            return fail(where + ": expected `key = value`", key_list(keys));
        }
        std::string key = trimmed(std::string_view(content).substr(0, equals));
        if (!keys.empty() && std::ranges::find(keys, std::string_view(key)) == keys.end()) {
            return fail(where + ": unknown key '" + key + "'", key_list(keys));
        }
        secrets[std::move(key)] = trimmed(std::string_view(content).substr(equals + 1));
    }
    return secrets;
}

}  // namespace common
