// These run only on lines that already hit a rule, so plain RE2 per line is cheap here.
#include "recovery/attribution.h"

#include <re2/re2.h>

#include "recovery/detail/pattern_set.h"

namespace recovery {
namespace {

const re2::RE2& nccl_prefix() {
    // NCCL's log prefix is "%s:%d:%d [%d]" = hostname:pid:tid [cudaDev] (src/debug.cc), at
    // the line's start or after what launchers put before it (srun --label's "3: ", Open MPI's
    // "[1,12]<stdout>:", a timestamp).
    static const re2::RE2 re(
        R"((?:^|[\s:>])([A-Za-z0-9][A-Za-z0-9_.-]*):[0-9]+:[0-9]+ \[[0-9]+\] )",
        detail::PatternSet::options());
    return re;
}

const re2::RE2& syslog_prefix() {
    static const re2::RE2 re(
        R"(^(?:[A-Z][a-z]{2} +[0-9]+ [0-9:]+|[0-9]{4}-[0-9]{2}-[0-9]{2}T\S+) ([A-Za-z0-9][A-Za-z0-9_.-]*) kernel:)",
        detail::PatternSet::options());
    return re;
}

const re2::RE2& rank_prefix() {
    static const re2::RE2 re(R"(\[[Rr](?:ank|ANK) ?([0-9]+)\])", detail::PatternSet::options());
    return re;
}

// Open MPI's --tag-output: "[JOBID,RANK]<stderr>:" before each line of a rank (mpirun,
// horovodrun).
const re2::RE2& mpi_tag() {
    static const re2::RE2 re(R"(^\[[0-9]+,([0-9]+)\]<std(?:err|out)>:)",
                             detail::PatternSet::options());
    return re;
}

// srun --label: "%*d: " (the task id, padded to the widest one) before each line of a task.
const re2::RE2& srun_label() {
    static const re2::RE2 re(R"(^ *([0-9]+): )", detail::PatternSet::options());
    return re;
}

}  // namespace

std::optional<std::string> node_from_prefix(std::string_view line) {
    const re2::StringPiece text(line.data(), line.size());
    std::string node;
    if (re2::RE2::PartialMatch(text, nccl_prefix(), &node) ||
        re2::RE2::PartialMatch(text, syslog_prefix(), &node)) {
        return node;
    }
    return std::nullopt;
}

std::optional<int> rank_from_prefix(std::string_view line) {
    int rank = 0;
    const re2::StringPiece text(line.data(), line.size());
    if (re2::RE2::PartialMatch(text, rank_prefix(), &rank) ||
        re2::RE2::PartialMatch(text, mpi_tag(), &rank) ||
        re2::RE2::PartialMatch(text, srun_label(), &rank)) {
        return rank;
    }
    return std::nullopt;
}

}  // namespace recovery
