// bench_diagnosis: the measurements behind bench/diagnosis/README.md.
//
//   bench_diagnosis diagnose FILE [HEAD_BYTES TAIL_BYTES]  bounded read + full diagnosis
//   bench_diagnosis match FILE     the RE2::Set pass over the WHOLE file (streamed in 16 MiB
//                                  chunks cut at line ends), counting matching lines
//   bench_diagnosis patterns       the catalogue's and markers' patterns, one per line (RE2
//                                  syntax; run_bench.sh translates them for grep -E)
// Timings are wall-clock from steady_clock, printed on stderr; peak RSS comes from
// /usr/bin/time -v around the program.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

recovery::Catalogue load_catalogue() {
    const std::vector<std::filesystem::path> files{SUPERVISOR_DEFAULT_RULES};
    auto catalogue = recovery::Catalogue::load(files);
    if (!catalogue) {
        std::cerr << catalogue.error().message << "\n";
        std::exit(2);
    }
    return std::move(*catalogue);
}

int diagnose_file(const char* path, recovery::ExcerptLimits limits) {
    const auto start = Clock::now();
    const auto catalogue = load_catalogue();
    const auto loaded = Clock::now();
    auto log = recovery::LogExcerpt::read(path, limits);
    if (!log) {
        std::cerr << log.error().message << "\n";
        return 1;
    }
    recovery::Evidence evidence;
    evidence.logs.push_back(std::move(*log));
    const auto read = Clock::now();
    const auto diagnosis = recovery::diagnose(evidence, catalogue);
    if (!diagnosis) {
        std::cerr << diagnosis.error().message << "\n";
        return 1;
    }
    const auto ms = [](auto from, auto to) {
        return std::chrono::duration<double, std::milli>(to - from).count();
    };
    std::cout << "cause=" << recovery::to_string(diagnosis->cause) << "\n"
              << diagnosis->summary << "\n";
    std::cerr << "catalogue_ms=" << ms(start, loaded) << " read_ms=" << ms(loaded, read)
              << " diagnose_ms=" << ms(read, Clock::now())
              << " total_ms=" << seconds_since(start) * 1000
              << " bytes_read=" << evidence.logs[0].text().size() << "\n";
    return 0;
}

int match_file(const char* path) {
    const auto catalogue = load_catalogue();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "cannot open " << path << "\n";
        return 1;
    }
    constexpr std::size_t k_chunk = 16 << 20;
    std::string buffer;
    std::string carry;
    std::size_t lines = 0;
    std::size_t bytes = 0;
    const auto start = Clock::now();
    std::vector<char> raw(k_chunk);
    while (in) {
        in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got == 0) {
            break;
        }
        bytes += got;
        buffer = std::move(carry);
        buffer.append(raw.data(), got);
        const auto cut = buffer.rfind('\n');
        if (cut == std::string::npos) {  // no line ends in it yet: all of it waits for the next
            carry = std::move(buffer);
            continue;
        }
        carry = buffer.substr(cut + 1);
        buffer.resize(cut);
        const auto count = catalogue.count_matching_lines(buffer);
        if (!count) {
            std::cerr << count.error().message << "\n";
            return 1;
        }
        lines += *count;
    }
    if (!carry.empty()) {
        lines += catalogue.count_matching_lines(carry).value_or(0);
    }
    const auto elapsed = seconds_since(start);
    std::cout << lines << "\n";
    std::cerr << "matching_lines=" << lines << " bytes=" << bytes << " seconds=" << elapsed
              << " MB_per_s=" << static_cast<double>(bytes) / 1e6 / elapsed << "\n";
    return 0;
}

int print_patterns() {
    const auto catalogue = load_catalogue();
    for (const auto& rule : catalogue.rules()) {
        std::cout << rule.pattern << "\n";
    }
    for (const auto& marker : recovery::marker_patterns()) {
        std::cout << marker.pattern << "\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "diagnose" && (argc == 3 || argc == 5)) {
        recovery::ExcerptLimits limits;
        if (argc == 5) {
            limits.head_bytes = std::stoull(argv[3]);
            limits.tail_bytes = std::stoull(argv[4]);
        }
        return diagnose_file(argv[2], limits);
    }
    if (mode == "match" && argc == 3) {
        return match_file(argv[2]);
    }
    if (mode == "patterns" && argc == 2) {
        return print_patterns();
    }
    std::cerr << "usage: bench_diagnosis diagnose FILE [HEAD TAIL] | match FILE | patterns\n";
    return 2;
}
