// The one operator-style sentence of a Diagnosis, built from its other fields.
#pragma once

#include <cstddef>
#include <string>

#include "recovery/diagnosis.h"

namespace recovery {

[[nodiscard]] std::string summarise(const Diagnosis& diagnosis);

}  // namespace recovery
