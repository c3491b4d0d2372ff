#include "recovery/checkpoint_finder.h"

#include <cctype>
#include <cstdint>
#include <system_error>
#include <tuple>

namespace recovery {
namespace {

bool is_temporary(const std::string& name) {
    auto ends_with = [&](std::string_view suffix) {
        return name.size() >= suffix.size() &&
               name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return name.empty() || name.front() == '.' || ends_with(".tmp") || ends_with(".partial") ||
           ends_with(".incomplete") || name.find(".tmp.") != std::string::npos;
}

// The last run of digits in the name: the step in every common layout's naming.
std::optional<std::uint64_t> step_of(const std::string& name) {
    std::optional<std::uint64_t> step;
    for (std::size_t i = 0; i < name.size();) {
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) {
            ++i;
            continue;
        }
        std::uint64_t value = 0;
        for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i) {
            value = value * 10 + static_cast<std::uint64_t>(name[i] - '0');
        }
        step = value;
    }
    return step;
}

}  // namespace

common::Result<std::optional<std::filesystem::path>> find_newest_checkpoint(
    const std::filesystem::path& directory) {
    std::error_code ec;
    std::filesystem::directory_iterator it(directory, ec);
    if (ec) {
        return common::fail("cannot read checkpoint directory " + directory.string() + ": " +
                                ec.message(),
                            "check that the directory exists and is readable by the supervisor");
    }
    std::optional<std::filesystem::path> best;
    std::tuple<bool, std::uint64_t, std::filesystem::file_time_type> best_key{};
    for (const auto& entry : it) {
        const auto name = entry.path().filename().string();
        if (is_temporary(name) || !(entry.is_regular_file(ec) || entry.is_directory(ec))) {
            continue;
        }
        const auto step = step_of(name);
        const auto key = std::make_tuple(step.has_value(), step.value_or(0),
                                         entry.last_write_time(ec));
        if (!best || key > best_key) {
            best = entry.path();
            best_key = key;
        }
    }
    return best;
}

}  // namespace recovery
