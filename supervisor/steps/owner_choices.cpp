// Why a damaged knob column is kept as an error beside empty knobs rather than failing the read:
// the whitelist in the same row is still good, and one job's damaged row must not stop its
// recovery or hide it from `status`. Each reader decides what to say about it.
#include "supervisor/steps/owner_choices.h"

#include <utility>

#include "supervisor/steps/knobs.h"

namespace supervisor {

OwnerChoices owner_choices_of(const state::Registration& registration) {
    OwnerChoices choices;
    choices.whitelist = recovery::whitelist_of_known(registration.allowed_actions);
    if (auto knobs = knobs_of(registration)) {
        choices.knobs = std::move(*knobs);
    } else {
        choices.unreadable_knobs = std::move(knobs.error());
    }
    return choices;
}

}  // namespace supervisor
