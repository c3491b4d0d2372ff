// The order of the checks is the order of their importance to the owner: a cause that is never
// auto-fixed beats everything (a code bug must not be retried into a loop), then the budget,
// then a failure that keeps repeating at the same step, then "nothing to resume from"; only
// then are fixes chosen, and a cause whose indispensable fix cannot be applied is escalated
// rather than restarted to fail the same way.
#include "recovery/planner.h"

#include <algorithm>
#include <set>
#include <utility>

#include "common/join.h"
#include "recovery/env_fix.h"
#include "recovery/safety.h"
#include "recovery/xid.h"

namespace recovery {
namespace {

Plan escalate(std::string reason) {
    Plan plan;
    plan.escalate = true;
    plan.reason = std::move(reason);
    return plan;
}

// One fix considered: either planned, or a "would have done" line with why not, or a note.
class FixChooser {
  public:
    FixChooser(const PlanRequest& request, Plan& plan) : m_request(request), m_plan(plan) {
        m_plan.knobs = request.knobs;
    }

    void consider(ActionKind kind, const std::string& argument) {
        switch (kind) {
            case ActionKind::reduce_batch_size:
                return halve_knob(kind, k_knob_batch_size);
            case ActionKind::reduce_workers:
                return halve_knob(kind, k_knob_workers);
            case ActionKind::exclude_node:
                return exclude_nodes();
            case ActionKind::drain_node:
                return drain_nodes();
            case ActionKind::set_env:
                return set_env(argument, true);
            case ActionKind::restore_older_checkpoint:
                return restore_older();
            case ActionKind::extend_time_limit:
                return extend_time_limit();
            default:
                return;
        }
    }

    // Known env fixes for this cause that the owner allowed, though no rule suggested them.
    void consider_env_fixes_for(Cause cause) {
        for (const auto& fix : known_env_fixes()) {
            if (std::ranges::find(fix.causes, cause) != fix.causes.end()) {
                set_env(std::string(fix.name), false);
            }
        }
    }

    // Suspect nodes (several jobs failed on them) are kept away from the restart whatever
    // this failure's cause: excluded where the owner allows exclude_node, within the bound on
    // excluded nodes; those this failure ran on are drained where drains are allowed.
    void avoid_suspects() {
        std::vector<const PlanRequest::SuspectNode*> fresh;
        for (const auto& suspect : m_request.suspect_nodes) {
            if (std::ranges::find(m_request.excluded_nodes, suspect.node) ==
                    m_request.excluded_nodes.end() &&
                std::ranges::find(m_plan.exclude_nodes, suspect.node) ==
                    m_plan.exclude_nodes.end()) {
                fresh.push_back(&suspect);
            }
        }
        if (fresh.empty()) {
            return;
        }
        std::vector<std::string> names;
        std::string whys;
        for (const auto* suspect : fresh) {
            names.push_back(suspect->node);
            whys += (whys.empty() ? "" : "; ") + suspect->node + " is suspect: " + suspect->why;
        }
        if (!allowed(ActionKind::exclude_node)) {
            return not_allowed({ActionKind::exclude_node, common::join(names, ","), whys},
                               "not whitelisted");
        }
        const auto used = m_request.excluded_nodes.size() + m_plan.exclude_nodes.size();
        const auto room = m_request.max_excluded_nodes > used ? m_request.max_excluded_nodes - used
                                                              : std::size_t{0};
        if (names.size() > room) {
            std::vector<std::string> left(names.begin() + static_cast<std::ptrdiff_t>(room),
                                          names.end());
            m_plan.notes.push_back("exclude_node: suspect " + common::join(left, ",") +
                                   " not excluded: the bound of " +
                                   std::to_string(m_request.max_excluded_nodes) +
                                   " excluded nodes is reached");
            names.resize(room);
        }
        if (!names.empty()) {
            m_plan.exclude_nodes.insert(m_plan.exclude_nodes.end(), names.begin(), names.end());
            // One exclude_node action carries every node the plan excludes.
            std::erase_if(m_plan.actions, [](const PlannedAction& action) {
                return action.kind == ActionKind::exclude_node;
            });
            plan(ActionKind::exclude_node, common::join(m_plan.exclude_nodes, ","),
                 common::join(m_plan.exclude_nodes, ",") + "; " + whys);
        }
        drain_suspects();
    }

    // The drains that are the site's to decide, not the owner's: a node whose own evidence asks
    // for maintenance (xid.h: Xid 63; a drain lets its running jobs end first), and a node under
    // watch after a repair that its own evidence condemns again. Within the site's limits
    // (drains_left), as the supervisor's other drains.
    void site_drains() {
        const auto& diagnosis = *m_request.diagnosis;
        const bool maintenance = diagnosis.xid && xid_asks_for_maintenance(*diagnosis.xid) &&
                                 diagnosis.xid_on_node_evidence;
        std::vector<std::string> nodes;
        for (const auto& node : implicated_nodes()) {
            const bool again =
                diagnosis.condemned_on_node_evidence &&
                std::ranges::find(m_request.nodes_on_watch, node) != m_request.nodes_on_watch.end();
            if ((maintenance || again) &&
                std::ranges::find(m_plan.drain_nodes, node) == m_plan.drain_nodes.end()) {
                nodes.push_back(node);
            }
        }
        if (nodes.empty()) {
            return;
        }
        const PlannedAction action{
            ActionKind::drain_node, common::join(nodes, ","),
            common::join(nodes, ",") + (maintenance
                                            ? ": maintenance, Xid " + std::to_string(*diagnosis.xid)
                                            : ": condemned again while watched after a "
                                              "repair")};
        drain_within_limits(std::move(nodes), action);
    }

  private:
    bool allowed(ActionKind kind) const { return m_request.whitelist.allows(kind); }

    // The suspects this failure ran on, drained within the site's limits.
    void drain_suspects() {
        std::vector<std::string> ran_there;
        for (const auto& suspect : m_request.suspect_nodes) {
            if (std::ranges::find(m_request.allocation, suspect.node) !=
                    m_request.allocation.end() &&
                std::ranges::find(m_plan.drain_nodes, suspect.node) == m_plan.drain_nodes.end()) {
                ran_there.push_back(suspect.node);
            }
        }
        if (ran_there.empty() || !allowed(ActionKind::drain_node)) {
            return;
        }
        const PlannedAction action{ActionKind::drain_node, common::join(ran_there, ","), ""};
        drain_within_limits(std::move(ran_there), action);
    }

    // Adds `nodes` to the plan's drains within the site's limits (drains_left, less what the
    // plan drains already), or says why not: one drain_node action carries every drained node.
    void drain_within_limits(std::vector<std::string> nodes, const PlannedAction& action) {
        if (!m_request.is_operator) {
            return not_allowed(action, "the supervisor is not a Slurm operator");
        }
        const auto left = m_request.drains_left > m_plan.drain_nodes.size()
                              ? m_request.drains_left - m_plan.drain_nodes.size()
                              : std::size_t{0};
        if (left == 0) {
            return not_allowed(action, m_request.drains_left == 0 ? m_request.no_drain_reason
                                                                  : "the site's drain limits");
        }
        if (nodes.size() > left) {
            nodes.resize(left);
        }
        m_plan.drain_nodes.insert(m_plan.drain_nodes.end(), nodes.begin(), nodes.end());
        std::erase_if(m_plan.actions, [](const PlannedAction& planned) {
            return planned.kind == ActionKind::drain_node;
        });
        plan(ActionKind::drain_node, common::join(m_plan.drain_nodes, ","), action.detail);
    }

    void plan(ActionKind kind, std::string argument, std::string detail) {
        PlannedAction action{kind, std::move(argument), std::move(detail)};
        if (std::ranges::find(m_plan.actions, action) == m_plan.actions.end()) {
            m_plan.actions.push_back(std::move(action));
        }
    }

    void not_allowed(const PlannedAction& action, const std::string& why) {
        const auto line = describe(action) + " (" + why + ")";
        if (std::ranges::find(m_plan.would_have_done, line) == m_plan.would_have_done.end()) {
            m_plan.would_have_done.push_back(line);
        }
    }

    void cannot(ActionKind kind, const std::string& why) {
        m_plan.notes.push_back(std::string(to_string(kind)) + ": " + why);
    }

    void halve_knob(ActionKind kind, std::string_view name) {
        auto it = std::ranges::find(m_plan.knobs, name, &Knob::name);
        if (it == m_plan.knobs.end()) {
            return cannot(kind, "no " + std::string(name) +
                                    " knob was declared at registration "
                                    "(--knob " +
                                    std::string(name) + "=N:env=VARIABLE:min=M)");
        }
        Knob& knob = *it;
        const auto halved = knob.value / 2;
        if (halved < knob.min || halved == knob.value) {
            return cannot(kind, knob.env + " is " + std::to_string(knob.value) +
                                    ", at its floor of " + std::to_string(knob.min));
        }
        std::string detail =
            knob.env + " " + std::to_string(knob.value) + " -> " + std::to_string(halved);
        const bool compensate = !knob.compensate.empty();
        const auto doubled = knob.compensate_value * 2;
        if (compensate) {
            detail += ", " + knob.compensate + " " + std::to_string(knob.compensate_value) +
                      " -> " + std::to_string(doubled) + ", same global batch";
        }
        PlannedAction action{kind, knob.env + "=" + std::to_string(halved), detail};
        if (!allowed(kind)) {
            return not_allowed(action, "not whitelisted");
        }
        knob.value = halved;
        m_plan.env[knob.env] = std::to_string(halved);
        if (compensate) {
            knob.compensate_value = doubled;
            m_plan.env[knob.compensate] = std::to_string(doubled);
        }
        plan(kind, action.argument, detail);
    }

    // The diagnosis' nodes split by whether the failed attempt ran on them. With the
    // allocation unknown every node counts as inside: excluding a node only moves the job
    // itself (drain_nodes() refuses without an allocation).
    struct ImplicatedNodes {
        std::vector<std::string> inside;
        std::vector<std::string> outside;
    };
    ImplicatedNodes implicated() const {
        ImplicatedNodes split;
        for (const auto& node : m_request.diagnosis->nodes) {
            const bool ran_there =
                m_request.allocation.empty() ||
                std::ranges::find(m_request.allocation, node) != m_request.allocation.end();
            (ran_there ? split.inside : split.outside).push_back(node);
        }
        return split;
    }
    std::vector<std::string> implicated_nodes() const { return implicated().inside; }

    void exclude_nodes() {
        const auto [nodes, outside] = implicated();
        if (!outside.empty()) {
            m_plan.notes.push_back("the logs name " + common::join(outside, ",") +
                                   ", which the failed attempt did not run on (" +
                                   common::join(m_request.allocation, ",") + "): ignored");
        }
        if (nodes.empty()) {
            return cannot(ActionKind::exclude_node,
                          "no node of the job's allocation was implicated");
        }
        std::vector<std::string> fresh;
        for (const auto& node : nodes) {
            if (std::ranges::find(m_request.excluded_nodes, node) ==
                m_request.excluded_nodes.end()) {
                fresh.push_back(node);
            }
        }
        if (fresh.empty()) {
            return cannot(ActionKind::exclude_node, common::join(nodes, ",") + " already excluded");
        }
        const PlannedAction action{ActionKind::exclude_node, common::join(fresh, ","), ""};
        if (!allowed(ActionKind::exclude_node)) {
            return not_allowed(action, "not whitelisted");
        }
        const auto total = m_request.excluded_nodes.size() + fresh.size();
        if (total > m_request.max_excluded_nodes) {
            return not_allowed(action, "would exclude " + std::to_string(total) +
                                           " nodes, more than the bound of " +
                                           std::to_string(m_request.max_excluded_nodes));
        }
        m_plan.exclude_nodes = fresh;
        plan(ActionKind::exclude_node, action.argument, "");
    }

    void drain_nodes() {
        const auto nodes = implicated_nodes();
        if (nodes.empty() || !m_request.diagnosis->node_condemned) {
            return cannot(ActionKind::drain_node, "no node's hardware was condemned");
        }
        const PlannedAction action{ActionKind::drain_node, common::join(nodes, ","), ""};
        if (!allowed(ActionKind::drain_node)) {
            return not_allowed(action, "not whitelisted");
        }
        if (!m_request.is_operator) {
            return not_allowed(action, "the supervisor is not a Slurm operator");
        }
        if (!m_request.diagnosis->condemned_on_node_evidence) {
            // The job's output is its owner's to write: alone it never takes a node from the
            // other users of the cluster (issue 32). The node is still excluded from this job.
            return not_allowed(action,
                               "only the job's own output condemns it; a drain needs the node's "
                               "own evidence (its kernel log through the node epilog, its GPU "
                               "telemetry, or slurmctld)");
        }
        if (m_request.allocation.empty()) {
            return not_allowed(action, "the failed attempt's nodes are not known");
        }
        if (m_request.drains_left == 0) {
            return not_allowed(action, m_request.no_drain_reason);
        }
        auto drained = nodes;
        if (drained.size() > m_request.drains_left) {
            drained.resize(m_request.drains_left);  // most guilty first
            m_plan.notes.push_back("drain_node: only " + common::join(drained, ",") + " of " +
                                   common::join(nodes, ",") + " within the site's drain limits");
        }
        m_plan.drain_nodes = drained;
        plan(ActionKind::drain_node, common::join(drained, ","), "");
    }

    void set_env(const std::string& name, bool suggested) {
        const auto* fix = find_env_fix(name);
        if (fix == nullptr) {
            if (suggested) {
                cannot(ActionKind::set_env, name + " is not a known fix");
            }
            return;
        }
        const auto allowed_value = m_request.whitelist.env.find(name);
        if (!allowed(ActionKind::set_env) || allowed_value == m_request.whitelist.env.end()) {
            if (suggested) {
                const auto value = fix->default_value ? std::string(*fix->default_value) : "?";
                not_allowed({ActionKind::set_env, name + "=" + value, ""},
                            "not whitelisted: --allow set_env:" + name +
                                (fix->default_value ? "" : "=VALUE"));
            }
            return;
        }
        const auto current = m_request.env.find(name);
        if (current != m_request.env.end() && current->second == allowed_value->second) {
            if (suggested) {
                cannot(ActionKind::set_env, name + "=" + current->second + " is already set");
            }
            return;
        }
        m_plan.env[name] = allowed_value->second;
        plan(ActionKind::set_env, name + "=" + allowed_value->second, std::string(fix->why));
    }

    void restore_older() {
        if (m_request.resumed_checkpoint_intact) {
            return cannot(ActionKind::restore_older_checkpoint,
                          m_request.resumed_from +
                              " (what the run started from) validates now, or a newer "
                              "checkpoint does: the failed load did not meet a damaged file "
                              "(ranks reading a checkpoint still being written, or a file that "
                              "is not the checkpoint); an older one would only lose work");
        }
        if (!m_request.older_checkpoint) {
            return cannot(ActionKind::restore_older_checkpoint,
                          "no usable checkpoint older than " + (m_request.resumed_from.empty()
                                                                    ? std::string("the newest")
                                                                    : m_request.resumed_from));
        }
        const PlannedAction action{ActionKind::restore_older_checkpoint,
                                   *m_request.older_checkpoint, ""};
        if (!allowed(ActionKind::restore_older_checkpoint)) {
            return not_allowed(action, "not whitelisted");
        }
        m_plan.resume_from = *m_request.older_checkpoint;
        plan(ActionKind::restore_older_checkpoint, action.argument, "");
    }

    void extend_time_limit() {
        auto it = std::ranges::find(m_plan.knobs, k_knob_time_limit, &Knob::name);
        if (it == m_plan.knobs.end() || !it->max) {
            return cannot(ActionKind::extend_time_limit, "the job's time limit is not known");
        }
        Knob& limit = *it;
        const auto longer =
            std::min(*limit.max, limit.value + std::max<std::int64_t>(1, limit.value / 2));
        if (longer <= limit.value) {
            return cannot(ActionKind::extend_time_limit,
                          "already at the bound of " + std::to_string(*limit.max) + " minutes");
        }
        const PlannedAction action{
            ActionKind::extend_time_limit, std::to_string(longer),
            std::to_string(limit.value) + " -> " + std::to_string(longer) + " minutes"};
        if (!allowed(ActionKind::extend_time_limit)) {
            return not_allowed(action, "not whitelisted");
        }
        limit.value = longer;
        m_plan.time_limit_minutes = longer;
        plan(action.kind, action.argument, action.detail);
    }

    const PlanRequest& m_request;
    Plan& m_plan;
};

std::chrono::seconds backoff_for(const PlanRequest& request) {
    if (request.failed_attempt <= 1) {
        return request.backoff.first;
    }
    auto delay = request.backoff.base;
    for (std::uint32_t i = 2; i < request.failed_attempt && delay < request.backoff.max; ++i) {
        delay *= 2;
    }
    return std::min(delay, request.backoff.max);
}

// The plan's fixes, restated as "would have done" lines for an escalation.
void fixes_not_taken(Plan& plan, const std::string& why) {
    for (const auto& action : plan.actions) {
        plan.would_have_done.push_back(describe(action) + " (" + why + ")");
    }
    plan.actions.clear();
    plan.env.clear();
    plan.exclude_nodes.clear();
    plan.drain_nodes.clear();
    plan.time_limit_minutes.reset();
    plan.resume_from.reset();
}

std::string actions_text(const Plan& plan) {
    std::vector<std::string> parts;
    for (const auto& action : plan.actions) {
        parts.push_back(describe(action));
    }
    return common::join(parts, ", ");
}

// The causes a program's bug is taken for (code_bug_can_look_like), and an Xid NVIDIA lists as
// usually the application's own (an illegal address seen from the driver's side).
bool a_bug_can_look_like(const Diagnosis& diagnosis) {
    if (code_bug_can_look_like(diagnosis.cause)) {
        return true;
    }
    if (diagnosis.cause != Cause::gpu_xid || !diagnosis.xid) {
        return false;
    }
    const auto xid = find_xid(*diagnosis.xid);
    return xid && xid->severity == XidSeverity::application;
}

// Requeues by other hands come first: too many are a loop the supervisor does not feed
// (escalated), and Slurm's own requeue is followed, not charged to the attempt budget
// (preemption would otherwise end a long job after max_attempts preemptions). Nullopt for a
// failure of the job's own.
std::optional<Plan> plan_for_outside_requeue(const PlanRequest& request) {
    const auto& diagnosis = *request.diagnosis;
    const std::string cause(to_string(diagnosis.cause));
    if (request.outside_requeues > request.outside_requeue_limit) {
        return escalate(
            "Slurm or an administrator requeued this job " +
            std::to_string(request.outside_requeues) + " times, more than outside_requeue_limit (" +
            std::to_string(request.outside_requeue_limit) +
            "): a requeue loop the supervisor does not feed; " +
            (request.slurm_requeued_itself ? "the job is left to run, but the supervisor stops "
                                             "recovering it"
                                           : "the supervisor stops recovering it"));
    }
    if (!request.slurm_requeued_itself) {
        return std::nullopt;
    }
    Plan plan;
    plan.knobs = request.knobs;
    plan.reason = "Slurm requeued the job itself after " + cause;
    plan.resume_from = request.checkpoint;
    if (diagnosis.cause == Cause::node_failure && diagnosis.node_condemned &&
        request.whitelist.allows(ActionKind::requeue)) {
        // Slurm moved the job off a node it marked down, but the node returns by itself once
        // its slurmd answers again (ReturnToService): keep the job off it.
        FixChooser(request, plan).consider(ActionKind::exclude_node, "");
    }
    if (request.whitelist.allows(ActionKind::requeue)) {
        FixChooser(request, plan).avoid_suspects();
        // The requeue already happened; the action only removes Slurm's start delay and points
        // the job at its checkpoint.
        plan.actions.push_back({ActionKind::requeue, "already requeued by Slurm", ""});
    }
    plan.start_delay = backoff_for(request);
    return plan;
}

// What rules a restart out whatever the fixes, as the escalation: a cause never fixed
// automatically, a diagnosis that asks for a person, the attempt budget spent, a failure that
// repeats at one step, no complete checkpoint. Nullopt when a restart may help.
std::optional<Plan> escalation_before_fixes(const PlanRequest& request) {
    const auto& diagnosis = *request.diagnosis;
    const std::string cause(to_string(diagnosis.cause));
    if (!is_auto_fixable(diagnosis.cause)) {
        return escalate("cause " + cause + " is never fixed automatically: a person must look");
    }
    if (std::ranges::any_of(diagnosis.suggested_actions,
                            [](const Action& a) { return a.kind == ActionKind::escalate; })) {
        return escalate("a " + cause + " failure needs a person (" + diagnosis.summary + ")");
    }
    if (request.failed_attempt >= request.max_attempts) {
        return escalate("attempt budget spent (" + std::to_string(request.failed_attempt) + " of " +
                        std::to_string(request.max_attempts) + ")");
    }
    // A failure a bug can look like that comes back at the very step it happened before is
    // deterministic, so the program's own: a second restart would only burn another allocation.
    const std::size_t loop_limit = a_bug_can_look_like(diagnosis)
                                       ? std::min<std::size_t>(2, request.same_failure_limit)
                                       : request.same_failure_limit;
    if (request.same_failure_count >= loop_limit && diagnosis.step) {
        auto plan =
            escalate("the same failure (" + cause + " at step " + std::to_string(*diagnosis.step) +
                     ") happened in " + std::to_string(request.same_failure_count) +
                     " attempts: restarting again would loop");
        if (loop_limit < request.same_failure_limit) {
            plan.reason +=
                "; a " + cause + " that repeats at one step is usually the program's own bug";
        }
        return plan;
    }
    if (request.checkpoint_dir_declared && !request.checkpoint) {
        auto plan = escalate(
            "no complete checkpoint yet: a restart would start from scratch "
            "and could fail the same way");
        plan.would_have_done.push_back("requeue from scratch (no checkpoint to resume from)");
        return plan;
    }
    return std::nullopt;
}

// The fixes the diagnosis suggests and its cause requires, each once, as far as the whitelist
// and the safety limits allow (FixChooser), and the known environment fixes of the cause.
void choose_fixes(const PlanRequest& request, const std::vector<ActionKind>& required,
                  FixChooser& chooser) {
    const auto& diagnosis = *request.diagnosis;
    std::set<std::string> considered;
    auto consider = [&](ActionKind kind, const std::string& argument) {
        if (!fix_applies(kind, diagnosis.cause)) {
            return;
        }
        const auto key =
            std::string(to_string(kind)) + ":" + (kind == ActionKind::set_env ? argument : "");
        if (considered.insert(key).second) {
            chooser.consider(kind, argument);
        }
    };
    for (const auto& action : diagnosis.suggested_actions) {
        consider(action.kind, action.argument);
    }
    for (const auto kind : required) {
        consider(kind, "");
    }
    chooser.consider_env_fixes_for(diagnosis.cause);
}

// How the job can start again: requeue, else resubmit; `blocked` says why neither is possible
// (empty when one is), with `kind` the one that would have been used.
struct Restart {
    ActionKind kind = ActionKind::requeue;
    std::string blocked;
};

Restart choose_restart(const PlanRequest& request) {
    if (request.requeueable && request.whitelist.allows(ActionKind::requeue)) {
        return {ActionKind::requeue, ""};
    }
    if (request.whitelist.allows(ActionKind::resubmit) && request.can_resubmit) {
        if (request.hung_run_still_going && !request.whitelist.allows(ActionKind::cancel)) {
            return {ActionKind::resubmit,
                    "the job hung and is not requeueable: resubmitting it would run a second copy "
                    "beside the hung one; cancel it (scancel) and resubmit it, submit it with "
                    "--requeue, or allow `cancel` so the supervisor cancels the hung run before "
                    "resubmitting"};
        }
        return {ActionKind::resubmit, ""};
    }
    if (!request.requeueable) {
        return {ActionKind::resubmit,
                request.whitelist.allows(ActionKind::resubmit)
                    ? "the job is not requeueable and its script was not stored at registration, "
                      "so it cannot be resubmitted"
                    : "the job is not requeueable (sbatch --no-requeue) and resubmit is not "
                      "whitelisted"};
    }
    return {ActionKind::requeue, "requeue is not whitelisted for this job"};
}

// `plan` turned into an escalation that says what it would have done: the fixes chosen are
// not taken (`why_not`), and the restart is listed with `because` when given.
void escalate_instead(Plan& plan, const PlanRequest& request, const Restart& restart,
                      const std::string& why_not, const std::string& reason,
                      const std::string& because) {
    fixes_not_taken(plan, why_not);
    plan.would_have_done.push_back(std::string(to_string(restart.kind)) +
                                   (request.checkpoint ? " from " + *request.checkpoint : "") +
                                   (because.empty() ? "" : " (" + because + ")"));
    plan.escalate = true;
    plan.reason = reason;
}

}  // namespace

bool Plan::has(ActionKind kind) const {
    return std::ranges::any_of(actions, [kind](const auto& a) { return a.kind == kind; });
}

std::string describe(const PlannedAction& action) {
    std::string text(to_string(action.kind));
    if (!action.detail.empty()) {
        return text + " (" + action.detail + ")";
    }
    if (!action.argument.empty()) {
        text += " " + action.argument;
    }
    return text;
}

Plan plan_recovery(const PlanRequest& request) {
    // 1. A requeue by Slurm or an administrator.
    if (auto plan = plan_for_outside_requeue(request)) {
        return *plan;
    }
    // 2. What no fix can help.
    if (auto plan = escalation_before_fixes(request)) {
        return *plan;
    }
    // 3. The fixes, then the restart, or an escalation that says what it would have done.
    const auto& diagnosis = *request.diagnosis;
    const std::string cause(to_string(diagnosis.cause));
    Plan plan;
    plan.resume_from = request.checkpoint;
    const auto required = required_fixes(diagnosis);
    FixChooser chooser(request, plan);  // sets the plan's knobs: one chooser for the whole plan
    choose_fixes(request, required, chooser);
    const auto restart = choose_restart(request);
    const bool required_met = required.empty() || std::ranges::any_of(required, [&](ActionKind k) {
                                  return plan.has(k);
                              });
    if (!required_met) {
        std::vector<std::string> names;
        for (const auto kind : required) {
            names.emplace_back(to_string(kind));
        }
        escalate_instead(plan, request, restart,
                         "not done: the failure needs " + common::join(names, " or ") + " first",
                         "a " + cause + " failure needs " + common::join(names, " or ") +
                             " before a restart can help, and it cannot be done here",
                         "");
        return plan;
    }
    if (!restart.blocked.empty()) {
        escalate_instead(plan, request, restart, "not done: no restart possible", restart.blocked,
                         restart.blocked);
        return plan;
    }

    chooser.avoid_suspects();  // after required_met: a suspect's exclusion is no fix of this cause
    chooser.site_drains();
    const auto fixes = plan.actions.empty() ? std::string() : "; " + actions_text(plan);
    plan.actions.push_back({restart.kind, "", ""});
    plan.start_delay = backoff_for(request);
    const auto from = plan.resume_from ? ", resuming from " + *plan.resume_from
                                       : std::string(", starting from scratch");
    plan.reason = std::string(to_string(restart.kind)) + " after " + cause + " (attempt " +
                  std::to_string(request.failed_attempt) + " of " +
                  std::to_string(request.max_attempts) + ")" + from + fixes + ", start in " +
                  std::to_string(plan.start_delay.count()) + " s";
    if (restart.kind == ActionKind::resubmit && request.hung_run_still_going) {
        plan.reason += "; the hung job is cancelled before the new one is released";
    }
    return plan;
}

}  // namespace recovery
