// gtest printers for the state enums, so a failed comparison reads "enabled", not bytes.
#pragma once

#include <ostream>

#include "state/records.h"

namespace state {

inline void PrintTo(Status status, std::ostream* os) {
    *os << to_string(status);
}
inline void PrintTo(Outcome outcome, std::ostream* os) {
    *os << to_string(outcome);
}
inline void PrintTo(ActionStatus status, std::ostream* os) {
    *os << to_string(status);
}

}  // namespace state
