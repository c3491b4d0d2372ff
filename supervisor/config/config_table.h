// TableReader: how a section of the daemon's config file ([notify], [evidence] ...) is read,
// key by key, into plain settings. Every method leaves `out` unchanged when the key is absent
// and fails (value) naming the file, the section and the key, with what to write instead: a
// value of the wrong type, a relative path, a URL of another scheme, a number out of range
// (config_integer.h), an unknown key.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "common/error.h"
#include "supervisor/config/config_integer.h"

namespace supervisor {

class TableReader;

// One key of a section: its name, said once, and how it is read into the section's settings.
// `read` is called whether or not the key is there (each TableReader method leaves its `out`
// unchanged when it is absent), so a row may also check its value against a key read before it.
template <typename Settings>
struct KeyRow {
    const char* name;
    common::Result<void> (*read)(const TableReader& reader, const std::string& key,
                                 Settings& settings);
};

class TableReader {
  public:
    // Fails when `node` is not a table. An empty `section` is the file's top level.
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
                // The type's own maximum only when it is the smaller: an unsigned 64-bit one
                // does not fit an int64_t (it would read as -1).
                const auto ceiling =
                    std::in_range<std::int64_t>(std::numeric_limits<T>::max())
                        ? std::min<std::int64_t>(
                              max, static_cast<std::int64_t>(std::numeric_limits<T>::max()))
                        : max;
                return common::fail(where(key) + " must be a positive integer of at most " +
                                        std::to_string(ceiling),
                                    "e.g. " + key + " = 60 (a whole number, without quotes)");
            }
            out = *value;
        }
        return {};
    }

    // Fails on a key no row names, then reads the rows in their order, stopping at the first
    // that fails. The known keys an unknown one's hint lists are the rows' names.
    template <typename Settings, std::size_t N>
    [[nodiscard]] common::Result<void> read_rows(const std::array<KeyRow<Settings>, N>& rows,
                                                 Settings& settings) const {
        std::array<const char*, N> names{};
        for (std::size_t i = 0; i < N; ++i) {
            names[i] = rows[i].name;
        }
        if (auto known = only_keys(names); !known) {
            return known;
        }
        for (const auto& row : rows) {
            if (auto read = row.read(*this, row.name, settings); !read) {
                return read;
            }
        }
        return {};
    }

    [[nodiscard]] const toml::table& table() const { return *m_table; }
    [[nodiscard]] const std::filesystem::path& file() const { return m_file; }
    // "FILE: [section] 'key'" ("FILE: 'key'" at the top level), how every message names a key.
    [[nodiscard]] std::string where(const std::string& key) const;

  private:
    TableReader(const toml::table* table, std::filesystem::path file, std::string section)
        : m_table(table), m_file(std::move(file)), m_section(std::move(section)) {}

    const toml::table* m_table;
    std::filesystem::path m_file;
    std::string m_section;
};

// Rows for the common kinds of key, over a member of the section's settings.

// A positive count of at most `max`.
template <auto member, std::int64_t max = k_config_max_seconds, typename Settings>
common::Result<void> count_key(const TableReader& reader, const std::string& key,
                               Settings& settings) {
    return reader.positive(key, settings.*member, max);
}

// A std::chrono duration: the key's number counts the member's own unit (its suffix says which).
template <auto member, std::int64_t max = k_config_max_seconds, typename Settings>
common::Result<void> duration_key(const TableReader& reader, const std::string& key,
                                  Settings& settings) {
    auto& duration = settings.*member;
    auto count = duration.count();
    if (auto read = reader.positive(key, count, max); !read) {
        return read;
    }
    duration = std::remove_reference_t<decltype(duration)>(count);
    return {};
}

template <auto member, typename Settings>
common::Result<void> string_key(const TableReader& reader, const std::string& key,
                                Settings& settings) {
    return reader.string(key, settings.*member);
}

template <auto member, typename Settings>
common::Result<void> absolute_path_key(const TableReader& reader, const std::string& key,
                                       Settings& settings) {
    return reader.absolute_path(key, settings.*member);
}

template <auto member, typename Settings>
common::Result<void> boolean_key(const TableReader& reader, const std::string& key,
                                 Settings& settings) {
    return reader.boolean(key, settings.*member);
}

// An http:// or https:// address, or empty.
template <auto member, typename Settings>
common::Result<void> web_url_key(const TableReader& reader, const std::string& key,
                                 Settings& settings) {
    return reader.url(key, settings.*member, {"https://", "http://"});
}

}  // namespace supervisor
