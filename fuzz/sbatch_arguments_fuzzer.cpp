// Feeds: an sbatch command line (src/sbatch_arguments.h): the input cut at NUL bytes into
// words, given to split_sbatch_arguments() and sbatch_flags().
// Checks: no crash, leak or UB, and the split's promise that nothing is lost or reordered:
// options, then the script, then its arguments, put back together, are exactly the words;
// the flags of split.options equal what sbatch_flags() finds in them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "sbatch_arguments.h"

namespace {

bool same_flags(const cli::SbatchFlags& a, const cli::SbatchFlags& b) {
    return a.parsable == b.parsable && a.requeue == b.requeue && a.no_requeue == b.no_requeue &&
           a.open_mode == b.open_mode && a.test_only == b.test_only && a.quiet == b.quiet &&
           a.wrap == b.wrap && a.info == b.info && a.wait == b.wait;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    if (size > 0) {
        for (const auto word : fuzz::split(fuzz::as_text(data, size), std::string_view("\0", 1))) {
            args.emplace_back(word);
        }
    }
    const auto split = cli::split_sbatch_arguments(args);
    std::vector<std::string> joined = split.options;
    if (split.script) {
        joined.push_back(*split.script);
    } else {
        FUZZ_CHECK(split.script_args.empty());
    }
    joined.insert(joined.end(), split.script_args.begin(), split.script_args.end());
    FUZZ_CHECK(joined == args);
    FUZZ_CHECK(!split.script || split.script_args.size() < args.size());

    FUZZ_CHECK(same_flags(cli::sbatch_flags(split.options), split.flags));
    cli::SbatchFlags merged;
    merged.merge(split.flags);
    FUZZ_CHECK(same_flags(merged, split.flags));
    return 0;
}
