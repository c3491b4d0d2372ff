// mentions(check, text): whether a doctor check's message or its fix says `text` (header-only,
// for the doctor suites; never fails).
#pragma once

#include <string>

#include "ops/doctor.h"

namespace ops::test {

inline bool mentions(const Check& check, const std::string& text) {
    return check.message.find(text) != std::string::npos ||
           check.fix.find(text) != std::string::npos;
}

}  // namespace ops::test
