// Why each line is parsed alone first: an error must name its line, and CLI11 parsing all
// words at once only knows words. The whole set is then parsed once more, together, so that
// repeatable options (--allow, --knob, --notify) add up across lines as on a command line.
#include "sbatch_directives.h"

#include <algorithm>

#include "one_value_per_option.h"

namespace cli {
namespace {

constexpr std::string_view k_magic = "#SUPERVISOR";
constexpr std::string_view k_sbatch_magic = "#SBATCH";

// "#SUPERVISOR --allow x" -> " --allow x"; nullopt when the line is not that directive.
std::optional<std::string_view> after_magic(std::string_view line, std::string_view magic) {
    if (!line.starts_with(magic)) {
        return std::nullopt;
    }
    const auto rest = line.substr(magic.size());
    if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') {
        return std::nullopt;  // #SUPERVISORS, #SBATCHX: an ordinary comment
    }
    return rest;
}

// sbatch's rule: the block ends at the first line holding anything but blanks and a comment.
bool is_command(std::string_view line) {
    const auto first = line.find_first_not_of(" \t\r\f\v");
    return first != std::string_view::npos && line[first] != '#';
}

std::string where(const std::string& script, int line) {
    return script + ":" + std::to_string(line);
}

const char* k_fix_hint =
    "#SUPERVISOR lines take the options of `supervisor register` (see `supervisor register "
    "--help`), e.g. `#SUPERVISOR --allow requeue,reduce_batch_size`; fix or remove the line. "
    "Nothing was submitted";

struct Parsed {
    RegistrationOptions options;
    std::string error;  // empty: parsed
};

Parsed parse_words(const std::vector<std::string>& words) {
    Parsed parsed;
    CLI::App app{"#SUPERVISOR"};
    app.set_help_flag();
    add_registration_options(app, parsed.options);
    one_value_per_option(app);
    std::vector<std::string> reversed(words.rbegin(), words.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        parsed.error = e.what();
    }
    return parsed;
}

}  // namespace

common::Result<std::vector<std::string>> directive_words(std::string_view line) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
            } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
                word += line[++i];
            } else {
                word += c;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            if (in_word) {
                words.push_back(std::move(word));
                word.clear();
                in_word = false;
            }
            continue;
        }
        if (c == '#') {
            break;  // the rest of the line is a comment
        }
        in_word = true;
        if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
        } else {
            word += c;
        }
    }
    if (quote != 0) {
        return common::fail(std::string("unmatched ") + quote,
                            std::string("close the quote: ") + quote + "..." + quote);
    }
    if (in_word) {
        words.push_back(std::move(word));
    }
    return words;
}

common::Result<Directives> parse_directives(std::string_view text, const std::string& script) {
    Directives directives;
    std::vector<std::pair<int, std::vector<std::string>>> lines;
    std::vector<std::string> sbatch_words;
    int number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        const auto line = text.substr(start, end - start);
        start = end + 1;
        ++number;
        if (is_command(line)) {
            break;  // sbatch reads no directive after the first command, nor do we
        }
        if (const auto rest = after_magic(line, k_sbatch_magic)) {
            // sbatch reports its own lines' errors; only the flags matter here.
            if (auto words = directive_words(*rest)) {
                sbatch_words.insert(sbatch_words.end(), words->begin(), words->end());
            }
            continue;
        }
        const auto rest = after_magic(line, k_magic);
        if (!rest) {
            continue;
        }
        auto words = directive_words(*rest);
        if (!words) {
            return common::fail(where(script, number) + ": " + words.error().message + " in `" +
                                    std::string(line) + "`",
                                words.error().hint + ". Nothing was submitted");
        }
        if (words->empty()) {
            continue;
        }
        const auto alone = parse_words(*words);
        if (!alone.error.empty()) {
            return common::fail(
                where(script, number) + ": `" + std::string(line) + "`: " + alone.error,
                k_fix_hint);
        }
        if (auto checked = check_registration_options(alone.options); !checked) {
            return common::fail(
                where(script, number) + ": `" + std::string(line) + "`: " + checked.error().message,
                checked.error().hint + ". Nothing was submitted");
        }
        directives.words.insert(directives.words.end(), words->begin(), words->end());
        lines.emplace_back(number, std::move(*words));
        ++directives.lines;
    }
    directives.sbatch = sbatch_flags(sbatch_words);
    if (lines.empty()) {
        return directives;
    }
    auto together = parse_words(directives.words);
    if (!together.error.empty()) {
        // Each line parsed alone, so the lines clash: name the last one using the option the
        // error names (e.g. --max-attempts given twice).
        int culprit = lines.back().first;
        for (const auto& [at, words] : lines) {
            if (std::ranges::any_of(words, [&](const std::string& word) {
                    return word.starts_with("--") &&
                           together.error.find(word.substr(0, word.find('='))) != std::string::npos;
                })) {
                culprit = at;
            }
        }
        return common::fail(where(script, culprit) + ": " + together.error,
                            "give each option that takes one value on one #SUPERVISOR line "
                            "only. Nothing was submitted");
    }
    if (auto checked = check_registration_combination(together.options); !checked) {
        // The line of the option that needs another one (--expect-rate).
        int culprit = lines.back().first;
        for (const auto& [at, words] : lines) {
            if (std::ranges::any_of(words, [](const std::string& word) {
                    return word.starts_with("--expect-rate");
                })) {
                culprit = at;
            }
        }
        return common::fail(where(script, culprit) + ": " + checked.error().message,
                            checked.error().hint + ". Nothing was submitted");
    }
    directives.options = std::move(together.options);
    return directives;
}

}  // namespace cli
