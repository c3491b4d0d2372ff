// Rule: one entry of the diagnosis catalogue, as plain data.
//
// A rule says "a log line matching `pattern` is evidence of `cause`". Rules come from catalogue
// files (see catalogue.h); the loader checks every field, so a Rule inside a Catalogue is
// always valid: known cause and actions, a pattern RE2 accepts, capture groups that exist.
#pragma once

#include <string>
#include <vector>

#include "recovery/cause.h"

namespace recovery {

struct Rule {
    std::string id;  // unique within a catalogue; overrides replace by id ("nccl.watchdog")
    Cause cause = Cause::unknown;
    std::string pattern;     // RE2 syntax, matched against one line at a time (unanchored)
    int priority = 0;        // higher outranks lower when several causes are seen; see precedence.h
    double weight = 0.8;     // confidence one hit lends its cause, in (0, 1]
    std::string node_group;  // name of a (?P<...>) group capturing the node; empty if none
    std::string xid_group;   // name of a (?P<...>) group capturing an NVIDIA Xid code
    std::string rank_group;  // name of a (?P<...>) group capturing the global rank
    bool condemns_node = false;  // a hit means the node's hardware is not to be trusted
    // A program's own bug produces this line as often as the infrastructure does (an illegal
    // address, a misaligned access): a hit alone never earns an automatic fix (fix_gate.h).
    bool program_can_cause = false;
    std::vector<Action> actions;  // what a careful operator would do, in order
    std::string source;           // where the message format comes from (program, file, version)
    std::string origin;           // catalogue file the rule was read from (set by the loader)

    bool operator==(const Rule&) const = default;
};

}  // namespace recovery
