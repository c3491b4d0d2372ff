// Why a table of options: the script is the first word that is neither an option nor an
// option's value, so finding it means knowing which options take a value — `-J name train.sh`
// and `-H train.sh` differ only in that. The table is sbatch's own (22.05 `sbatch --help`).
#include "sbatch_arguments.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace cli {
namespace {

// Short options that take a value (`-J name` or `-Jname`); every other letter is a flag.
constexpr std::string_view k_short_with_value = "aAbBcCdDeFGiJLmMnNopqStwx";

// Long options that take no value, or only an attached optional one (`--nice=5`).
using namespace std::string_view_literals;
constexpr std::array k_long_flags{
    "contiguous"sv,    "exclusive"sv,  "get-user-env"sv, "help"sv,       "hold"sv,
    "ignore-pbs"sv,    "no-kill"sv,    "nice"sv,         "no-requeue"sv, "overcommit"sv,
    "oversubscribe"sv, "parsable"sv,   "propagate"sv,    "quiet"sv,      "reboot"sv,
    "requeue"sv,       "spread-job"sv, "test-only"sv,    "usage"sv,      "use-min-nodes"sv,
    "verbose"sv,       "version"sv,    "wait"sv};

bool long_takes_value(std::string_view name) {
    return std::ranges::find(k_long_flags, name) == k_long_flags.end();
}

void note_long(std::string_view name, SbatchFlags& flags) {
    flags.parsable = flags.parsable || name == "parsable";
    flags.requeue = flags.requeue || name == "requeue";
    flags.no_requeue = flags.no_requeue || name == "no-requeue";
    flags.open_mode = flags.open_mode || name == "open-mode";
    flags.test_only = flags.test_only || name == "test-only";
    flags.quiet = flags.quiet || name == "quiet";
    flags.wrap = flags.wrap || name == "wrap";
    flags.info = flags.info || name == "help" || name == "usage" || name == "version";
    flags.wait = flags.wait || name == "wait";
}

void note_short(char letter, SbatchFlags& flags) {
    flags.quiet = flags.quiet || letter == 'Q';
    flags.info = flags.info || letter == 'h' || letter == 'V';
    flags.wait = flags.wait || letter == 'W';
}

// Reads the option at args[i] (and its value); returns the index after it.
std::size_t read_option(const std::vector<std::string>& args, std::size_t i, SbatchFlags& flags) {
    const std::string_view word = args[i];
    if (word.starts_with("--")) {
        const auto equals = word.find('=');
        const auto name = word.substr(2, equals == std::string_view::npos ? word.npos : equals - 2);
        note_long(name, flags);
        return equals == std::string_view::npos && long_takes_value(name) ? i + 2 : i + 1;
    }
    for (std::size_t at = 1; at < word.size(); ++at) {
        note_short(word[at], flags);
        if (k_short_with_value.find(word[at]) != std::string_view::npos) {
            return at + 1 < word.size() ? i + 1 : i + 2;  // -Jname, or -J name
        }
    }
    return i + 1;
}

bool is_option(std::string_view word) {
    return word.size() > 1 && word.front() == '-';
}

}  // namespace

void SbatchFlags::merge(const SbatchFlags& other) {
    parsable = parsable || other.parsable;
    requeue = requeue || other.requeue;
    no_requeue = no_requeue || other.no_requeue;
    open_mode = open_mode || other.open_mode;
    test_only = test_only || other.test_only;
    quiet = quiet || other.quiet;
    wrap = wrap || other.wrap;
    info = info || other.info;
    wait = wait || other.wait;
}

SbatchArguments split_sbatch_arguments(const std::vector<std::string>& args) {
    SbatchArguments split;
    std::size_t i = 0;
    while (i < args.size()) {
        if (args[i] == "--") {
            split.options.push_back(args[i]);
            ++i;
            break;
        }
        if (!is_option(args[i])) {
            break;
        }
        const auto next = std::min(read_option(args, i, split.flags), args.size());
        split.options.insert(split.options.end(), args.begin() + static_cast<long>(i),
                             args.begin() + static_cast<long>(next));
        i = next;
    }
    if (i < args.size()) {
        split.script = args[i];
        split.script_args.assign(args.begin() + static_cast<long>(i) + 1, args.end());
    }
    return split;
}

SbatchFlags sbatch_flags(const std::vector<std::string>& options) {
    SbatchFlags flags;
    std::size_t i = 0;
    while (i < options.size()) {
        i = is_option(options[i]) ? read_option(options, i, flags) : i + 1;
    }
    return flags;
}

}  // namespace cli
