// OwnerChoices: what a registration's owner chose, read from its stored row in one go: the
// actions the owner allows (the whitelist) and the knobs with their current values. The row
// keeps both as text, since state/ does not know recovery's vocabulary. owner_choices_of() is the
// one place that reads that text for a decision; whoever loads a row reads it there once and
// passes the value on (the poll cycle's WatchedRegistrations holds it beside each row).
#pragma once

#include <optional>
#include <vector>

#include "common/error.h"
#include "recovery/knob.h"
#include "recovery/whitelist.h"
#include "state/records.h"

namespace supervisor {

struct OwnerChoices {
    // The entries this version knows. One a newer version wrote is left out, never an error:
    // registration validated the list.
    recovery::Whitelist whitelist;
    std::vector<recovery::Knob> knobs;
    // Why `knobs` is empty: the column is no knob array (a damaged row). Names the job and how
    // to mend it; a recovery goes on without knobs and says so.
    std::optional<common::Error> unreadable_knobs;

    [[nodiscard]] bool allows(recovery::ActionKind kind) const { return whitelist.allows(kind); }
};

// Reads both columns of `registration`: a handful of entries and one short JSON array. Never
// fails.
[[nodiscard]] OwnerChoices owner_choices_of(const state::Registration& registration);

}  // namespace supervisor
