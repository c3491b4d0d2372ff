// Why each row: node fixes only for causes that implicate hardware or a node's network; batch
// and worker reductions only for memory exhaustion; an older checkpoint only when the newest
// could not be loaded; more time only for the time limit. A diverged run (loss_nan) gets no
// older checkpoint: restarting replays the same data into the same divergence, and what would
// stop it (a lower learning rate, skipped batches) is a person's call, so its rules escalate.
#include "recovery/safety.h"

#include <algorithm>

namespace recovery {

bool fix_applies(ActionKind kind, Cause cause) {
    using C = Cause;
    auto among = [cause](std::initializer_list<Cause> causes) {
        return std::ranges::find(causes, cause) != causes.end();
    };
    switch (kind) {
        case ActionKind::exclude_node:
            return among({C::gpu_xid, C::ecc_error, C::cuda_error, C::nccl_network, C::node_failure,
                          C::io_error, C::slow_node});
        case ActionKind::drain_node:
            return among({C::gpu_xid, C::ecc_error});
        case ActionKind::reduce_batch_size:
            return among({C::cuda_oom, C::host_oom});
        case ActionKind::reduce_workers:
            return among({C::host_oom, C::shm_exhausted});
        case ActionKind::set_env:
            return among({C::nccl_network, C::nccl_timeout, C::cuda_oom, C::hang});
        case ActionKind::restore_older_checkpoint:
            return among({C::checkpoint_corrupt});
        case ActionKind::extend_time_limit:
            return among({C::time_limit});
        case ActionKind::requeue:
        case ActionKind::resubmit:
        case ActionKind::cancel:
        case ActionKind::exclude_slow_node:
        case ActionKind::escalate:
        case ActionKind::release:  // a step, never a fix
            return false;
    }
    return false;
}

std::vector<ActionKind> required_fixes(const Diagnosis& diagnosis) {
    switch (diagnosis.cause) {
        case Cause::cuda_oom:
            return {ActionKind::reduce_batch_size};
        case Cause::checkpoint_corrupt:
            return {ActionKind::restore_older_checkpoint};
        case Cause::slow_node:
            return {ActionKind::exclude_node};  // the same node would hold it back again
        case Cause::gpu_xid:
        case Cause::ecc_error:
            if (diagnosis.node_condemned && !diagnosis.nodes.empty()) {
                return {ActionKind::exclude_node, ActionKind::drain_node};
            }
            return {};
        case Cause::nccl_network: {
            const bool needs_env = std::ranges::any_of(
                diagnosis.suggested_actions,
                [](const Action& action) { return action.kind == ActionKind::set_env; });
            return needs_env ? std::vector{ActionKind::set_env} : std::vector<ActionKind>{};
        }
        default:
            return {};
    }
}

bool needs_held_job(ActionKind kind) {
    return kind == ActionKind::exclude_node || kind == ActionKind::extend_time_limit;
}

}  // namespace recovery
