#include "recovery/precedence.h"

#include <algorithm>

namespace recovery {
namespace {

// Application-class Xids sit just above plain CUDA errors (62) so the report names the Xid,
// but below a device-side assert (a code bug, 79) that produces the same Xid 13/43.
constexpr int k_application_xid_priority = 64;
// Recoverable Xids (45, 63, 94) sit below resource exhaustion: an OOM on the same node is the
// better explanation.
constexpr int k_recoverable_xid_priority = 70;

}  // namespace

int default_priority(Cause cause) {
    switch (cause) {
        case Cause::gpu_xid:
            return 100;
        case Cause::ecc_error:
            return 98;
        case Cause::node_failure:
            return 95;
        case Cause::time_limit:
            return 90;
        case Cause::preemption:
            return 90;
        case Cause::shm_exhausted:
            return 86;
        case Cause::host_oom:
            return 84;
        case Cause::cuda_oom:
            return 82;
        case Cause::checkpoint_corrupt:
            return 78;
        case Cause::loss_nan:
            return 76;
        case Cause::credential_error:
            return 74;
        case Cause::io_error:
            return 72;
        case Cause::code_bug:
            return 58;
        case Cause::cuda_error:
            return 62;
        case Cause::nccl_network:
            return 55;
        case Cause::nccl_timeout:
            return 50;
        case Cause::hang:
            return 45;
        case Cause::slow_node:
            return 40;  // never from a log: a running job's telemetry
                        // (supervisor/failure/slow_node.h)
        case Cause::unknown:
            return 0;
    }
    return 0;
}

std::vector<Action> default_actions(Cause cause) {
    using K = ActionKind;
    auto make = [](std::initializer_list<K> kinds) {
        std::vector<Action> actions;
        for (const auto kind : kinds) {
            actions.push_back(Action{kind, {}});
        }
        return actions;
    };
    switch (cause) {
        case Cause::cuda_oom:
            return make({K::reduce_batch_size, K::requeue});
        case Cause::host_oom:
            return make({K::reduce_workers, K::reduce_batch_size, K::requeue});
        case Cause::shm_exhausted:
            return make({K::reduce_workers, K::requeue});
        case Cause::nccl_timeout:
            return make({K::requeue});
        case Cause::nccl_network:
            // NCCL's line prefix names the host that saw the error, not the broken link's end:
            // only a rule that blames the reporting host itself (its own adapter) excludes it.
            return make({K::requeue});
        case Cause::gpu_xid:
            return make({K::requeue});
        case Cause::ecc_error:
            return make({K::exclude_node, K::drain_node, K::requeue});
        case Cause::cuda_error:
            return make({K::requeue});
        case Cause::node_failure:
            return make({K::exclude_node, K::requeue});
        case Cause::time_limit:
            return make({K::extend_time_limit, K::requeue});
        case Cause::preemption:
            return make({K::requeue});
        case Cause::io_error:
            return make({K::requeue});
        case Cause::checkpoint_corrupt:
            return make({K::restore_older_checkpoint, K::requeue});
        case Cause::loss_nan:
            return make({K::restore_older_checkpoint, K::escalate});
        case Cause::credential_error:
            return make({K::escalate});
        case Cause::hang:
            return make({K::requeue});
        case Cause::slow_node:
            return make({K::exclude_node, K::requeue});
        case Cause::code_bug:
            return make({K::escalate});
        case Cause::unknown:
            return make({K::escalate});
    }
    return make({K::escalate});
}

int xid_priority(int rule_priority, std::optional<int> xid) {
    if (!xid) {
        return rule_priority;
    }
    const auto info = find_xid(*xid);
    if (!info) {
        return std::min(rule_priority, k_recoverable_xid_priority);
    }
    switch (info->severity) {
        case XidSeverity::application:
            return std::min(rule_priority, k_application_xid_priority);
        case XidSeverity::recoverable:
            return std::min(rule_priority, k_recoverable_xid_priority);
        case XidSeverity::condemning:
            return rule_priority;
    }
    return rule_priority;
}

}  // namespace recovery
