// Why after the fact, for every option: CLI11 lets an option of a vector type take every word
// up to the next option, so a list option before the positionals swallowed the job ids
// ("no job to register"). Walking the finished parser catches each list option, those added
// later included, where a flag on each add_option would be forgotten on the next one.
#include "one_value_per_option.h"

namespace cli {

void one_value_per_option(CLI::App& app) {
    for (CLI::Option* option : app.get_options()) {
        if (!option->get_positional()) {
            option->allow_extra_args(false);
        }
    }
    for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        one_value_per_option(*command);
    }
}

}  // namespace cli
