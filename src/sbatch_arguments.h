// split_sbatch_arguments(): an sbatch command line as sbatch's getopt reads it — its options
// (kept exactly as given), the batch script, and the script's own arguments — plus the options
// `supervisor sbatch` must know about (--parsable, --requeue/--no-requeue, --open-mode, ...).
//
// Knows which sbatch options take a value (Slurm 22.05's `sbatch --help`; the optional-value
// ones need `--opt=value`, as with getopt). Abbreviated long options (`--parsa`) are not
// recognised as the options they abbreviate. Never fails: what it cannot classify it passes on.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cli {

// What a set of sbatch options asks for, as far as `supervisor sbatch` cares.
struct SbatchFlags {
    bool parsable = false;    // --parsable
    bool requeue = false;     // --requeue
    bool no_requeue = false;  // --no-requeue
    bool open_mode = false;   // --open-mode given (either mode)
    bool test_only = false;   // --test-only: nothing is submitted
    bool quiet = false;       // -Q, --quiet
    bool wrap = false;        // --wrap: no script file
    bool info = false;        // -h, --help, --usage, -V, --version: sbatch only prints
    bool wait = false;        // -W, --wait: sbatch returns when the job has ended

    // The flags of `options` added to these (command line over #SBATCH lines over nothing).
    void merge(const SbatchFlags& other);
};

struct SbatchArguments {
    std::vector<std::string> options;      // sbatch's options, unchanged, in order
    std::optional<std::string> script;     // nullopt: --wrap, or the script comes on stdin
    std::vector<std::string> script_args;  // after the script, for the script
    SbatchFlags flags;                     // of `options`
};

[[nodiscard]] SbatchArguments split_sbatch_arguments(const std::vector<std::string>& args);

// The flags of options alone (an #SBATCH line's words); words that are not options are skipped.
[[nodiscard]] SbatchFlags sbatch_flags(const std::vector<std::string>& options);

}  // namespace cli
