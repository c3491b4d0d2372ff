// TableReader: how a section of the daemon's config file ([notify], [evidence] ...) is read,
// key by key, into plain settings. Every method leaves `out` unchanged when the key is absent
// and fails (value) naming the file, the section and the key, with what to write instead: a
// value of the wrong type, a relative path, a URL of another scheme, a number out of range
// (config_integer.h), an unknown key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "common/error.h"
#include "supervisor/config/config_integer.h"

namespace supervisor {

class TableReader {
  public:
    // Fails when `node` is not a table.
    [[nodiscard]] static common::Result<TableReader> of(const toml::node& node,
                                                        const std::filesystem::path& file,
                                                        std::string section);

    // Fails on the first key of the table that is not in `known`.
    [[nodiscard]] common::Result<void> only_keys(std::span<const char* const> known) const;

    [[nodiscard]] common::Result<void> string(const std::string& key, std::string& out) const;
    [[nodiscard]] common::Result<void> absolute_path(const std::string& key,
                                                     std::filesystem::path& out) const;
    // Empty, or starting with one of `schemes` ("http://").
    [[nodiscard]] common::Result<void> url(const std::string& key, std::string& out,
                                           std::initializer_list<const char*> schemes) const;
    [[nodiscard]] common::Result<void> boolean(const std::string& key, bool& out) const;
    // An array of strings; `example` is the hint of the error for anything else.
    [[nodiscard]] common::Result<void> strings(const std::string& key,
                                               std::vector<std::string>& out,
                                               const std::string& example) const;

    template <typename T>
    [[nodiscard]] common::Result<void> positive(const std::string& key, T& out,
                                                std::int64_t max = k_config_max_seconds) const {
        if (const auto* node = m_table->get(key)) {
            const auto value = positive_config_integer<T>(*node, max);
            if (!value) {
                return common::fail(
                    where(key) + " must be a positive integer of at most " +
                        std::to_string(std::min<std::int64_t>(max, std::numeric_limits<T>::max())),
                    "e.g. " + key + " = 60 (a whole number, without quotes)");
            }
            out = *value;
        }
        return {};
    }

    [[nodiscard]] const toml::table& table() const { return *m_table; }
    // "FILE: [section] 'key'", how every message names a key.
    [[nodiscard]] std::string where(const std::string& key) const;

  private:
    TableReader(const toml::table* table, std::filesystem::path file, std::string section)
        : m_table(table), m_file(std::move(file)), m_section(std::move(section)) {}

    const toml::table* m_table;
    std::filesystem::path m_file;
    std::string m_section;
};

}  // namespace supervisor
