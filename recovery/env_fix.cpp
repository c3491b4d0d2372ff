// Sources of the effects: NCCL's environment documentation (NCCL_SOCKET_IFNAME, NCCL_DEBUG),
// PyTorch's distributed documentation for Gloo (GLOO_SOCKET_IFNAME),
// PyTorch's (TORCH_NCCL_ASYNC_ERROR_HANDLING turns a hung collective into an error the job
// dies of, and PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation OOMs).
#include "recovery/env_fix.h"

#include <algorithm>

namespace recovery {
namespace {

const std::vector<EnvFix>& table() {
    static const std::vector<EnvFix> fixes{
        {"NCCL_SOCKET_IFNAME",
         std::nullopt,
         {Cause::nccl_network},
         "NCCL picked a network interface that cannot reach the other nodes"},
        {"GLOO_SOCKET_IFNAME",
         std::nullopt,
         {Cause::nccl_network},
         "Gloo picked a network interface (often loopback) the other nodes cannot reach"},
        {"NCCL_DEBUG",
         "INFO",
         {Cause::nccl_timeout, Cause::nccl_network},
         "the next NCCL failure names the rank, peer and transport"},
        {"TORCH_NCCL_ASYNC_ERROR_HANDLING",
         "1",
         {Cause::nccl_timeout, Cause::hang},
         "a stuck collective ends the job instead of hanging it"},
        {"PYTORCH_CUDA_ALLOC_CONF",
         "expandable_segments:True",
         {Cause::cuda_oom},
         "less fragmentation of GPU memory"},
    };
    return fixes;
}

}  // namespace

std::span<const EnvFix> known_env_fixes() {
    return table();
}

const EnvFix* find_env_fix(std::string_view name) {
    const auto& fixes = table();
    const auto it = std::ranges::find(fixes, name, &EnvFix::name);
    return it == fixes.end() ? nullptr : &*it;
}

std::optional<std::string> env_value_problem(const EnvFix& fix, std::string_view value) {
    if (value.empty()) {
        return std::string(fix.name) + " needs a value";
    }
    const bool clean = std::ranges::all_of(value, [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.' || c == ',' || c == ':' || c == '^' || c == '=' ||
               c == '/';
    });
    if (!clean) {
        return "the value '" + std::string(value) + "' of " + std::string(fix.name) +
               " may only hold letters, digits and _-.,:^=/";
    }
    return std::nullopt;
}

}  // namespace recovery
