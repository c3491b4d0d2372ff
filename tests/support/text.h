// Text helpers of every test suite: whether a text contains a part, and a file's whole text.
// Header-only. Neither fails: a file that cannot be read reads as "".
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace test_support {

// Whether `part` occurs in `text` (an empty part always does).
inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A file's whole text, byte for byte ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace test_support
