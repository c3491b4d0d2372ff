#include "common/json_text.h"

namespace common {

std::string json_text(const nlohmann::json& value, int indent) {
    // replace, not ignore: a reader must see that something was there.
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace common
