#include "supervisor/failure/run_nodes.h"

#include <algorithm>
#include <utility>

#include "recovery/hostlist.h"

namespace supervisor {

RunNodes RunNodes::of(std::string host_list) {
    RunNodes nodes;
    if (auto names = recovery::expand_hostlist(host_list)) {
        nodes.names = std::move(*names);
    }
    nodes.host_list = std::move(host_list);
    return nodes;
}

bool RunNodes::contains(std::string_view node) const {
    return std::ranges::find(names, node) != names.end();
}

}  // namespace supervisor
