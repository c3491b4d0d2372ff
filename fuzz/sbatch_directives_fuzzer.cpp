// Feeds: a batch script to parse_directives() (src/sbatch_directives.h): its leading block of
// #SUPERVISOR lines (parsed with CLI11 as `supervisor register` options) and #SBATCH lines;
// and each of its lines to directive_words() (sbatch's word splitting).
// Checks: no crash, leak or UB, no exception escaping; an error names the script; the options
// of an accepted script pass check_registration_options(), as parse_directives promises; a line
// whose words contain no quote, backslash, '#' or blank splits into exactly its blank-separated
// fields.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "sbatch_directives.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::as_text(data, size);
    const auto parsed = cli::parse_directives(text, "run.sh");
    if (!parsed) {
        FUZZ_CHECK(parsed.error().message.starts_with("run.sh:"));
    } else {
        FUZZ_CHECK(cli::check_registration_options(parsed->options).has_value());
        FUZZ_CHECK(parsed->lines >= 0);
        FUZZ_CHECK(parsed->lines == 0 || !parsed->words.empty());
    }

    for (const auto line : fuzz::split(text, "\n")) {
        const auto words = cli::directive_words(line);
        if (line.find_first_of("\"'\\#\r\t") == std::string_view::npos) {
            FUZZ_CHECK(words.has_value());
            std::vector<std::string> fields;
            for (const auto field : fuzz::split(line, " ")) {
                if (!field.empty()) {
                    fields.emplace_back(field);
                }
            }
            FUZZ_CHECK(*words == fields);
        }
    }
    return 0;
}
