// printable(): text from outside (a log line, a file name, a job name) made safe to show a
// person. Control characters would otherwise act instead of being read: a newline in a file
// name starts what looks like a new field of an email ("Next step: ..."), a terminal escape
// rewrites the screen of whoever runs `supervisor events`, a right-to-left override reverses
// what follows. Each is shown as a visible escape instead; ordinary text, tabs excepted, is
// unchanged. Pure, never fails.
//
// excerpt(): the same for text that may be long (a notify target, a path, a pattern a user sent
// the daemon): an error names what was wrong without repeating megabytes of it to the sender,
// into the daemon's log or into a journal.
#pragma once

#include <string>
#include <string_view>

namespace common {

// C0 controls (but tab) and DEL as \n, \r, \e or \xNN; C1 controls (U+0080..U+009F) and the
// Unicode bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069) as \u{NNNN};
// bytes that are not UTF-8 as \xNN; a backslash stays as it is.
[[nodiscard]] std::string printable(std::string_view text);

// printable() of at most the first `max_bytes` of `text` (cut before a UTF-8 sequence, never
// inside one), then "... (N bytes in all)" when something was left out.
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t max_bytes);

// The same cut as excerpt(), the text kept as it is (for data that is shown through printable()
// later, such as a diagnosis' evidence lines).
[[nodiscard]] std::string shortened(std::string_view text, std::size_t max_bytes);

}  // namespace common
