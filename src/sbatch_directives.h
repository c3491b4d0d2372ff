// parse_directives(): the #SUPERVISOR lines of a batch script, read the way sbatch reads its
// #SBATCH lines — only in the leading block of comments and blank lines before the first
// command, the magic word at the start of the line — into the options `supervisor register`
// takes (registration_options.h). The #SBATCH lines of the same block are read for the few
// sbatch options `supervisor sbatch` must respect (--no-requeue, --open-mode, --parsable).
//
// Words are split as sbatch splits #SBATCH lines: on blanks, "double quotes" group, a
// backslash escapes the next character, an unquoted # starts a comment; 'single quotes' also
// group (a progress pattern is a regular expression). Fails, naming the script and the line,
// for an unmatched quote, an option `register` does not know, a value it rejects (unknown
// action, malformed knob, bad timeout, pattern or rate), a single-valued option given twice, and
// an --expect-rate that no line's --progress-pattern goes with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "registration_options.h"
#include "sbatch_arguments.h"

namespace cli {

struct Directives {
    RegistrationOptions options;     // defaults when the script has no #SUPERVISOR line
    std::vector<std::string> words;  // every #SUPERVISOR word, in order
    int lines = 0;                   // #SUPERVISOR lines read
    SbatchFlags sbatch;              // what the #SBATCH lines ask for
};

// `text` is the script; `script` names it in errors (its path as given).
[[nodiscard]] common::Result<Directives> parse_directives(std::string_view text,
                                                          const std::string& script);

// The words of one directive line after its magic word; fails on an unmatched quote.
[[nodiscard]] common::Result<std::vector<std::string>> directive_words(std::string_view line);

}  // namespace cli
