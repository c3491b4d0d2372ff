// The one operator-style sentence of a Diagnosis, built from its other fields.
#pragma once

#include <cstddef>
#include <string>

#include "recovery/diagnosis.h"

namespace recovery {

// `symptom_count`: log lines of other causes the chosen one explains.
[[nodiscard]] std::string summarise(const Diagnosis& diagnosis, std::size_t symptom_count);

}  // namespace recovery
