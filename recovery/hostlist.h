// Slurm host lists and node names: "n[1-3,7],gpu05" -> n1 n2 n3 n7 gpu05, and the short form
// of a name as logs print it ("n3.cluster.local" -> "n3").
//
// expand_hostlist() fails (Result error naming the text) on unbalanced brackets or bad ranges,
// and refuses ranges that would expand to more than k_max_hosts names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace recovery {

inline constexpr std::size_t k_max_hosts = 100'000;

[[nodiscard]] common::Result<std::vector<std::string>> expand_hostlist(std::string_view text);

// The name without its domain; unchanged for IP addresses.
[[nodiscard]] std::string short_node_name(std::string_view name);

}  // namespace recovery
