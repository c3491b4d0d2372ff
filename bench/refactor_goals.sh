#!/bin/bash
# The counts of issue 36's goals (bench/README.md, "The next layer of the codebase"), each by the
# rule printed beside it, over the tree of the current checkout. Prints one line per goal; reads
# only; takes well under a second. Run it before and after a change and compare.
#
#   bench/refactor_goals.sh
set -euo pipefail
cd "$(dirname "$0")/.."

count() {  # the line count of what is piped in
    local n
    n="$(wc -l)"
    echo "${n// /}"
}

# grep, with "nothing matched" not an error (set -e, pipefail)
find_lines() {
    grep "$@" || true
}

# 1. Lines of supervisor/ that tell an ended, a requeued-by-Slurm, a hung and a held-back run
#    apart: the flags FailureContext had (slurm_requeued, stall, slow, run_still_going()) and,
#    since session 29, the kind queries of a Failure (was_requeued_by_slurm(), still_running(),
#    ended_by_itself(), .stall(), .slow()), outside the Failure type itself (failure.h/.cpp).
#    Not counted: the lifecycle's own Observation::slurm_requeued (lifecycle.h/.cpp, observe.cpp
#    and its comparisons), which is what the cycle saw, not how the failure is handled; nor
#    the questions a Failure answers by what its kind means (has_exit_status(),
#    asks_the_nodes(), checkpoints_may_be_settling(), kept_running_by(plan), since session 31),
#    which is the type's purpose: the caller asks what differs, never which kind it is.
flags="$(find_lines -nE '\bslurm_requeued\b|\bstall (!=|==) nullptr|\bslow (!=|==) nullptr|run_still_going\(\)|(was_requeued_by_slurm|still_running|ended_by_itself)\(\)|\.(stall|slow)\(\)' \
    supervisor/*/*.h supervisor/*/*.cpp |
    find_lines -vE '^supervisor/[a-z]+/(failure\.(h|cpp)|lifecycle\.(h|cpp)|observe\.cpp):' |
    find_lines -v 'Observation::slurm_requeued' | count)"
echo "failure-kind checks in supervisor/ outside the Failure type: $flags"

# 2. Data members of class PollCycle (lines declaring an m_ member inside the class).
members="$(sed -n '/^class PollCycle/,/^};/p' supervisor/cycle/poll_cycle.h |
    find_lines -E '^\s+[^/(]*\bm_[a-z_]+\s*(\{[^}]*\}|=[^;]*)?;' | count)"
echo "PollCycle data members (supervisor/cycle/poll_cycle.h): $members"

# 3. Source files that include the journal and also queue a message to someone: call the
#    outbox (tell_owner, tell_of_move; queue_owner_message and queue_operator_message before
#    session 30) or write a notification row. Since session 30 the steps of the cycle tell the
#    owner explicitly after they journal (the issue's "telling the owner is an explicit step of
#    the cycle"): poll_cycle*.cpp, the watches (*_watch.cpp), the executor (action_*.cpp) and the
#    registrar. They are counted apart; the goal is the files that journal for others and tell.
journal_and_tell="$(find_lines -l '#include "supervisor/journal/journal.h"' ./*/*.cpp ./supervisor/*/*.cpp |
    { xargs -r grep -l 'tell_owner(\|tell_of_move(\|enqueue_notification(\|queue_owner_message(\|queue_operator_message(' || true; })"
steps_re='^\./supervisor/[a-z]+/(poll_cycle[a-z_]*|[a-z_]+_watch|action_[a-z_]+|registrar)\.cpp$'
telling="$(printf '%s\n' "$journal_and_tell" | find_lines -vE "$steps_re" | find_lines . | count)"
telling_steps="$(printf '%s\n' "$journal_and_tell" | find_lines -E "$steps_re" | count)"
echo "files including supervisor/journal/journal.h that queue a message: $telling" \
    "(and $telling_steps steps of the cycle that journal, then tell explicitly)"

# 4. Text where a type would do: the owner's whitelist searched for a literal, the Store's
#    parameters named kind or status taken as text, json::parse outside state/, the codecs and
#    the parsers of outside input (each with its fuzz target). supervisor/steps/knobs.cpp is the
#    codec of the registrations' knobs column since control/views.cpp stopped reading it itself.
literal="$(find_lines -rnE 'find\([^)]*allowed_actions, "' --include=*.cpp --include=*.h \
    common state recovery slurm supervisor notify control web ops src node_evidence http |
    count)"
echo "find(allowed_actions, \"...\"): $literal"
store_text="$(find_lines -nE '(std::string_view|const std::string&) (kind|status)\b' state/store.h | count)"
echo "Store parameters named kind or status taken as text (state/store.h): $store_text"
parses="$(find_lines -rn 'json::parse(' --include=*.cpp \
    common recovery slurm supervisor notify control web ops src node_evidence http |
    find_lines -vE '^(supervisor/journal/journal_events|supervisor/steps/step_params|supervisor/steps/knobs|recovery/diagnosis_json|notify/message|slurm/submit_request_json|node_evidence/prometheus_response|recovery/checkpoints/[a-z_]+)\.cpp:' |
    count)"
echo "json::parse outside state/, the codecs and the outside-input parsers: $parses"

# 5. Fields named more than once per codec: in each codec's source, the JSON keys (snake_case
#    string literals in a key's place: a call's first or second argument, an initializer pair's
#    first member, a subscript) that two or more functions of the same struct name. A function's
#    struct is the first UpperCamel type of its signature, its template line included. One
#    fields(visitor) list per struct (common/json_fields.h) names each key once. Counted as
#    (struct, key) pairs, summed over the five codecs.
# shellcheck disable=SC2016 # an awk program: its $0 and $1 are awk's
repeated_keys_awk='
    /^template / { tmpl = $0; next }
    /^[A-Za-z].*\(/ && !/;$/ && !/^(namespace|using|static_assert|constexpr|template)/ {
        sig = tmpl " " $0; tmpl = ""; in_sig = 1; fn++
        type = ""
        s = sig
        gsub(/Is<|const |std::|nlohmann::|common::|recovery::|notify::|state::/, " ", s)
        n = split(s, words, /[^A-Za-z_]+/)
        for (i = 1; i <= n; i++) {
            w = words[i]
            if (w ~ /^[A-Z][A-Za-z]+$/ && w !~ /^(Fields|Result|P|Error|Payload|T)$/) { type = w; break }
        }
    }
    {
        line = $0
        while (match(line, /(\(|\{|\[|, )"[a-z][a-z0-9_]*"(,|\]|\)|\})/)) {
            key = substr(line, RSTART, RLENGTH)
            sub(/^[^"]*"/, "", key); sub(/".*$/, "", key)
            if (type != "" && !((type, key, fn) in seen)) {
                seen[type, key, fn] = 1
                count[type, key]++
            }
            line = substr(line, RSTART + RLENGTH)
        }
    }
    END { for (k in count) if (count[k] > 1) { split(k, p, SUBSEP); print p[1], p[2] } }
'
repeated=0
for codec in supervisor/journal/journal_events.cpp supervisor/steps/step_params.cpp \
    supervisor/steps/knobs.cpp \
    recovery/diagnosis_json.cpp notify/message.cpp; do
    n="$(awk "$repeated_keys_awk" "$codec" | count)"
    repeated=$((repeated + n))
    [ "$n" = 0 ] || repeated_in="${repeated_in:-} ${codec##*/} $n;"
done
echo "fields named more than once per codec: $repeated${repeated_in:+ (${repeated_in% ;})}"

# 4b. Raw JSON inside the typed events: members of journal_events.h's structs declared as
#     nlohmann::json (or an optional of it), whose inner fields no type names. Typed, each is a
#     struct with its own fields() list (common/json_fields.h's object and objects).
raw_inner="$(grep -cE '^ +(std::optional<)?nlohmann::json>? [a-z_]+;' \
    supervisor/journal/journal_events.h || true)"
echo "raw JSON fields inside the typed journal events: $raw_inner"

# 4c. A run's node list parsed from its text: calls of recovery::expand_hostlist in supervisor/
#     outside RunNodes (failure/run_nodes.cpp), which expands a host list once into names.
expansions="$(grep -rE 'expand_hostlist\(' supervisor --include='*.cpp' --include='*.h' |
    grep -vc '^supervisor/failure/run_nodes.cpp:' || true)"
echo "host lists expanded in supervisor/ outside RunNodes: $expansions"

# 5b. Config keys named more than once: in each reader of the config file's sections, the
#     snake_case string literals that occur twice or more (a known-keys list and a read call
#     each named every key). One table of key rows per section (config_table.h's KeyRow)
#     names each key once.
config_repeated=0
for reader in supervisor/config/*.cpp; do
    n="$({ grep -o '"[a-z][a-z0-9_]*"' "$reader" || true; } | sort | uniq -d | count)"
    config_repeated=$((config_repeated + n))
    [ "$n" = 0 ] || config_in="${config_in:-} ${reader##*/} $n;"
done
echo "config keys named more than once: $config_repeated${config_in:+ (${config_in% ;})}"

# 4d. A registration's whitelist and knobs read from their text where they are used: calls of
#     recovery::allows(list, kind) (removed), whitelist_of_known and knobs_of in the product
#     outside owner_choices_of (supervisor/steps/owner_choices.cpp), which reads both once for
#     whoever loaded the row (the poll cycle holds it beside the row), and outside the two
#     functions' own files. The sbatch wrapper's one, on the daemon's reply, is counted.
text_reads="$(grep -rnE '(recovery::allows|whitelist_of_known|knobs_of)\(' \
    common state recovery slurm supervisor control ops src notify node_evidence http web \
    --include='*.cpp' --include='*.h' 2>/dev/null |
    grep -vE '^(supervisor/steps/owner_choices\.cpp|recovery/whitelist\.(h|cpp)|supervisor/steps/knobs\.(h|cpp)):' |
    count)"
echo "a registration's whitelist or knobs read from text outside OwnerChoices: $text_reads"
