// One reader for every section, so each key's type check and each message reads the same way.
// Paths must be absolute: the daemon's working directory is not the user's.
#include "supervisor/config/config_table.h"

#include <algorithm>

namespace supervisor {

common::Result<TableReader> TableReader::of(const toml::node& node,
                                            const std::filesystem::path& file,
                                            std::string section) {
    const auto* table = node.as_table();
    if (table == nullptr) {
        return common::fail(file.string() + ": '" + section + "' must be a table",
                            "write the keys under a [" + section + "] line");
    }
    return TableReader(table, file, std::move(section));
}

std::string TableReader::where(const std::string& key) const {
    return m_file.string() + ": " + (m_section.empty() ? "" : "[" + m_section + "] ") + "'" + key +
           "'";
}

common::Result<void> TableReader::only_keys(std::span<const char* const> known) const {
    for (const auto& [key, node] : *m_table) {
        // An init-capture, not [&]: clang before 16 cannot capture a structured binding.
        const auto is_known = [&key = key](const char* k) { return key.str() == k; };
        if (std::ranges::find_if(known, is_known) == known.end()) {
            std::string list;
            for (const char* k : known) {
                list += (list.empty() ? "" : ", ") + std::string(k);
            }
            return common::fail(m_file.string() + ": unknown key '" + std::string(key.str()) +
                                    (m_section.empty() ? "'" : "' in [" + m_section + "]"),
                                "known keys: " + list);
        }
    }
    return {};
}

common::Result<void> TableReader::string(const std::string& key, std::string& out) const {
    if (const auto* node = m_table->get(key)) {
        const auto value = node->value<std::string>();
        if (!value) {
            return common::fail(where(key) + " must be a string", "quote the value");
        }
        out = *value;
    }
    return {};
}

common::Result<void> TableReader::absolute_path(const std::string& key,
                                                std::filesystem::path& out) const {
    std::string text = out.string();
    if (auto read = string(key, text); !read) {
        return read;
    }
    if (!text.empty() && !std::filesystem::path(text).is_absolute()) {
        return common::fail(where(key) + " must be an absolute path",
                            "write the whole path, from / (the daemon's working directory is "
                            "not yours)");
    }
    out = text;
    return {};
}

common::Result<void> TableReader::url(const std::string& key, std::string& out,
                                      std::initializer_list<const char*> schemes) const {
    if (auto read = string(key, out); !read) {
        return read;
    }
    if (out.empty() ||
        std::ranges::any_of(schemes, [&](const char* s) { return out.starts_with(s); })) {
        return {};
    }
    std::string accepted;
    for (const char* s : schemes) {
        accepted += (accepted.empty() ? "" : " or ") + std::string(s);
    }
    return common::fail(where(key) + " must start with " + accepted, "");
}

common::Result<void> TableReader::boolean(const std::string& key, bool& out) const {
    if (const auto* node = m_table->get(key)) {
        const auto* flag = node->as_boolean();
        if (flag == nullptr) {
            return common::fail(where(key) + " must be true or false", "without quotes");
        }
        out = flag->get();
    }
    return {};
}

common::Result<void> TableReader::strings(const std::string& key, std::vector<std::string>& out,
                                          const std::string& example) const {
    const auto* node = m_table->get(key);
    if (node == nullptr) {
        return {};
    }
    const auto* array = node->as_array();
    if (array == nullptr) {
        return common::fail(where(key) + " must be an array of strings", example);
    }
    std::vector<std::string> values;
    for (const auto& entry : *array) {
        const auto text = entry.value<std::string>();
        if (!text) {
            return common::fail(where(key) + ": every entry must be a string", example);
        }
        values.push_back(*text);
    }
    out = std::move(values);
    return {};
}

}  // namespace supervisor
