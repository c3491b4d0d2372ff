#include "supervisor/journal/lifecycle.h"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>

#include "tests/unit/supervisor/printers.h"

namespace {

using state::Outcome;
using state::Status;
using supervisor::k_observation_count;
using supervisor::Observation;
using supervisor::Transition;
using supervisor::transition;
using supervisor::Verdict;

constexpr std::array k_statuses{Status::pending, Status::enabled, Status::recovering,
                                Status::completed, Status::credential_error};

Observation observation_at(int index) {
    return static_cast<Observation>(index);
}

std::string pair_name(Status from, Observation observation) {
    return std::string(state::to_string(from)) + " + " +
           std::string(supervisor::to_string(observation));
}

// The lifecycle as the design describes it, written out independently of the table in
// lifecycle.cpp: what each (status, observation) pair must do.
Transition expected(Status from, Observation o) {
    using enum Observation;
    const auto move = [](Status to, Outcome outcome = Outcome::none) {
        return Transition{Verdict::move, to, outcome};
    };
    const auto stay = [&] { return Transition{Verdict::stay, from, Outcome::none}; };
    const auto reject = [&] { return Transition{Verdict::reject, from, Outcome::none}; };

    if (from == Status::completed) {
        return stay();  // final, whatever is observed
    }
    switch (o) {
        case validated:
            return from == Status::pending || from == Status::credential_error
                       ? move(Status::enabled)
                       : reject();
        case validation_failed:
            return from == Status::pending || from == Status::credential_error
                       ? move(Status::credential_error)
                       : reject();
        case access_lost:
            return from == Status::credential_error ? stay() : move(Status::credential_error);
        case job_active:
            return stay();
        case job_succeeded:
            return from == Status::enabled || from == Status::recovering
                       ? move(Status::completed, Outcome::succeeded)
                       : stay();
        case job_cancelled:
            return from == Status::enabled || from == Status::recovering
                       ? move(Status::completed, Outcome::cancelled)
                       : stay();
        case job_failed:
        case slurm_requeued:
            return from == Status::enabled ? move(Status::recovering) : stay();
        case job_purged:
        case job_reused:  // the registered job is gone either way; never act on the new one
            return from == Status::credential_error ? stay()
                                                    : move(Status::completed, Outcome::lost);
        case recovered:
            return from == Status::recovering ? move(Status::enabled) : reject();
        case escalated:
            return from == Status::recovering ? move(Status::completed, Outcome::unrecoverable)
                                              : reject();
        case resubmitted:
            return from == Status::recovering ? move(Status::completed, Outcome::resubmitted)
                                              : reject();
    }
    ADD_FAILURE() << "observation without an expectation: " << static_cast<int>(o);
    return reject();
}

TEST(Lifecycle, EveryObservationHasAName) {
    std::set<std::string> names;
    for (int i = 0; i < k_observation_count; ++i) {
        const std::string name(supervisor::to_string(observation_at(i)));
        EXPECT_NE(name, "unknown") << "observation " << i;
        names.insert(name);
    }
    EXPECT_EQ(names.size(), static_cast<std::size_t>(k_observation_count)) << "names must differ";
    // k_observation_count is the number of enumerators: one past the last has no name.
    EXPECT_EQ(supervisor::to_string(observation_at(k_observation_count)), "unknown");
}

TEST(Lifecycle, EveryStatusObservationPairHasADeliberateVerdict) {
    int pairs = 0;
    for (const auto from : k_statuses) {
        for (int i = 0; i < k_observation_count; ++i) {
            const auto o = observation_at(i);
            const auto got = transition(from, o);
            const auto want = expected(from, o);
            ++pairs;
            SCOPED_TRACE(pair_name(from, o));
            EXPECT_EQ(got.verdict, want.verdict);
            EXPECT_EQ(got.to, want.to);
            EXPECT_EQ(got.outcome, want.outcome);
            // Shape of every row, whatever its verdict.
            if (got.verdict != Verdict::move) {
                EXPECT_EQ(got.to, from) << "stay and reject never change the status";
                EXPECT_EQ(got.outcome, Outcome::none);
            } else {
                EXPECT_EQ(got.outcome != Outcome::none, got.to == Status::completed)
                    << "an outcome exactly when the move ends in completed";
            }
        }
    }
    EXPECT_EQ(pairs, 5 * k_observation_count);
}

TEST(Lifecycle, FailureWhileEnabledStartsRecovery) {
    const auto t = transition(Status::enabled, Observation::job_failed);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::recovering);
    EXPECT_EQ(t.outcome, Outcome::none);
}

TEST(Lifecycle, SlurmRequeueWhileEnabledStartsRecovery) {
    const auto t = transition(Status::enabled, Observation::slurm_requeued);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::recovering);
}

TEST(Lifecycle, CancelledWhileEnabledCompletesAsCancelled) {
    const auto t = transition(Status::enabled, Observation::job_cancelled);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::completed);
    EXPECT_EQ(t.outcome, Outcome::cancelled);
}

TEST(Lifecycle, RecoveredGoesBackToEnabled) {
    const auto t = transition(Status::recovering, Observation::recovered);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::enabled);
}

TEST(Lifecycle, EscalatedWhileRecoveringCompletesAsUnrecoverable) {
    const auto t = transition(Status::recovering, Observation::escalated);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::completed);
    EXPECT_EQ(t.outcome, Outcome::unrecoverable);
}

TEST(Lifecycle, CompletedStaysWhateverIsObserved) {
    for (int i = 0; i < k_observation_count; ++i) {
        const auto t = transition(Status::completed, observation_at(i));
        EXPECT_EQ(t.verdict, Verdict::stay) << supervisor::to_string(observation_at(i));
        EXPECT_EQ(t.to, Status::completed);
    }
}

TEST(Lifecycle, FailedValidationIsACredentialError) {
    const auto t = transition(Status::pending, Observation::validation_failed);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::credential_error);
}

TEST(Lifecycle, AccessLostWhileEnabledIsACredentialError) {
    const auto t = transition(Status::enabled, Observation::access_lost);
    EXPECT_EQ(t.verdict, Verdict::move);
    EXPECT_EQ(t.to, Status::credential_error);
}

TEST(Lifecycle, ImpossiblePairsAreRejected) {
    EXPECT_EQ(transition(Status::enabled, Observation::recovered).verdict, Verdict::reject);
    EXPECT_EQ(transition(Status::enabled, Observation::escalated).verdict, Verdict::reject);
    EXPECT_EQ(transition(Status::pending, Observation::recovered).verdict, Verdict::reject);
    EXPECT_EQ(transition(Status::recovering, Observation::validated).verdict, Verdict::reject);
    EXPECT_EQ(transition(Status::credential_error, Observation::escalated).verdict,
              Verdict::reject);
}

TEST(Lifecycle, FailureWhileRecoveringDoesNotStartASecondRecovery) {
    EXPECT_EQ(transition(Status::recovering, Observation::job_failed).verdict, Verdict::stay);
    EXPECT_EQ(transition(Status::recovering, Observation::slurm_requeued).verdict, Verdict::stay);
}

}  // namespace
