#include "slurm/output_path.h"

#include <algorithm>
#include <cctype>

namespace slurm {
namespace {

std::string zero_padded(std::uint32_t value, std::size_t width) {
    std::string digits = std::to_string(value);
    if (digits.size() < width) {
        digits.insert(0, width - digits.size(), '0');
    }
    return digits;
}

}  // namespace

std::string expand_output_path(const std::string& pattern, const OutputPathContext& context) {
    std::string source = pattern;
    if (source.empty()) {
        source = context.array_task_id ? "slurm-%A_%a.out" : "slurm-%j.out";
    }
    std::string out;
    out.reserve(source.size() + 16);
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (source[i] != '%' || i + 1 == source.size()) {
            out += source[i];
            continue;
        }
        // slurmstepd accepts a decimal width between '%' and the specifier, and caps it at 10
        // (MAX_WIDTH in its fname.c): "%99999999999j" pads to 10, it does not allocate.
        constexpr std::size_t k_max_width = 10;
        std::size_t j = i + 1;
        std::size_t width = 0;
        while (j < source.size() && std::isdigit(static_cast<unsigned char>(source[j]))) {
            width = std::min(k_max_width, width * 10 + static_cast<std::size_t>(source[j] - '0'));
            ++j;
        }
        if (j == source.size()) {
            out.append(source, i, std::string::npos);
            break;
        }
        const char spec = source[j];
        switch (spec) {
            case '%':
                out += '%';
                break;
            case 'j':
            case 'J':
                out += zero_padded(context.job_id, width);
                break;
            case 'A':
                out += zero_padded(context.array_job_id.value_or(context.job_id), width);
                break;
            case 'a':
                // Slurm prints 4294967294 (NO_VAL) for a non-array job; an empty string would
                // hide a mistake, so follow Slurm.
                out += context.array_task_id ? zero_padded(*context.array_task_id, width)
                                             : std::string("4294967294");
                break;
            case 'x':
                out += context.job_name;
                break;
            case 'u':
                out += context.user_name;
                break;
            case 'N':
                out += context.first_node;
                break;
            default:
                // Step/task specifiers (%s %t %n) have no value for the batch step's file.
                out.append(source, i, j - i + 1);
                break;
        }
        i = j;
    }
    if (!out.empty() && out.front() != '/' && !context.work_dir.empty()) {
        std::string base = context.work_dir;
        if (base.back() != '/') {
            base += '/';
        }
        out.insert(0, base);
    }
    return out;
}

}  // namespace slurm
