// The supervisor's options take one value per occurrence, as Slurm's commands' do: a list is
// written comma-separated where the option says so (--allow requeue,exclude_node) or by
// repeating the option (--knob A --knob B), and an option never takes the words after it as
// more values, so `register --allow requeue 101 102` registers jobs 101 and 102.
#pragma once

#include <CLI/CLI.hpp>

namespace cli {

// Makes every option of `app` and of its subcommands, as added so far, take one value per
// occurrence (at most one, for an option whose value may be left out). Call it once all
// options are added.
void one_value_per_option(CLI::App& app);

}  // namespace cli
