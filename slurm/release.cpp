// Release arithmetic. Slurm's families did not come at a fixed pace until 23.11 (20.02, 20.11,
// 21.08, 22.05, 23.02, 23.11), and since 24.05 come every May and November; the distance
// between two families is what slurmctld's protocol window is counted in, so it is computed
// from that order rather than from the numbers.
#include "slurm/release.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>

#include <slurm/slurm_version.h>

namespace slurm {
namespace {

constexpr std::array<std::pair<int, int>, 10> k_known_families = {
    {{20, 2}, {20, 11}, {21, 8}, {22, 5}, {23, 2}, {23, 11}, {24, 5}, {24, 11}, {25, 5}, {25, 11}}};

// Position in the release order; nullopt for a family Slurm never released.
std::optional<int> family_index(const Release& release) {
    for (std::size_t i = 0; i < k_known_families.size(); ++i) {
        if (k_known_families[i] == std::pair{release.major, release.minor}) {
            return static_cast<int>(i);
        }
    }
    const int last = static_cast<int>(k_known_families.size()) - 1;  // 25.11
    if (release.major >= 26 && (release.minor == 5 || release.minor == 11)) {
        // Counted in 64 bits: a major from a corrupt version string would overflow int, and a
        // family whose index does not fit is no release.
        const auto index = std::int64_t{last} + (std::int64_t{release.major} - 26) * 2 +
                           (release.minor == 5 ? 1 : 2);
        if (index > std::numeric_limits<int>::max()) {
            return std::nullopt;
        }
        return static_cast<int>(index);
    }
    return std::nullopt;
}

std::optional<int> leading_number(std::string_view& text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) {
        return std::nullopt;
    }
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return value;
}

}  // namespace

std::string Release::to_string() const {
    char text[32];
    std::snprintf(text, sizeof text, "%d.%02d.%d", major, minor, micro);
    return text;
}

std::string Release::family_string() const {
    char text[24];
    std::snprintf(text, sizeof text, "%d.%02d", major, minor);
    return text;
}

std::optional<Release> parse_release(std::string_view text) {
    Release release;
    const auto major = leading_number(text);
    if (!major || text.empty() || text.front() != '.') {
        return std::nullopt;
    }
    text.remove_prefix(1);
    const auto minor = leading_number(text);
    if (!minor) {
        return std::nullopt;
    }
    release.major = *major;
    release.minor = *minor;
    if (!text.empty() && text.front() == '.') {
        text.remove_prefix(1);
        release.micro = leading_number(text).value_or(0);
    }
    return release;
}

Release compiled_release() {
    return {SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
            SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER)};
}

bool job_command_has_arguments() {
    // 24.05 packs argv[0] alone where 23.11 packed the whole argv joined by blanks.
    return SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 5, 0);
}

int families_accepted_back(const Release& controller) {
    return controller < Release{24, 11, 0} ? 2 : 3;
}

std::optional<int> families_between(const Release& from, const Release& to) {
    const auto a = family_index(from);
    const auto b = family_index(to);
    if (!a || !b) {
        return std::nullopt;
    }
    return *b - *a;
}

CompatibilityVerdict check_compatibility(const Release& client, const Release& controller) {
    const std::string ours = "this supervisor was built against Slurm " + client.to_string();
    const std::string theirs = "slurmctld runs " + controller.to_string();
    const std::string rebuild = "rebuild slurm-supervisor against Slurm " +
                                controller.family_string() +
                                " (install that release's libslurm-dev, then build again)";
    if (client.same_family(controller)) {
        return {Compatibility::same, ours + " and " + theirs + ": the same release family", ""};
    }
    const auto distance = families_between(client, controller);
    if (!distance) {
        return {Compatibility::unsupported,
                ours + ", " + theirs +
                    ": one of them is not a Slurm release family this build "
                    "knows",
                rebuild};
    }
    if (*distance < 0) {
        return {
            Compatibility::unsupported,
            ours + ", newer than " + theirs + ": slurmctld never accepts clients newer than itself",
            rebuild + ", or upgrade slurmctld first"};
    }
    const int window = families_accepted_back(controller);
    if (*distance > window) {
        return {Compatibility::unsupported,
                ours + ", " + theirs + ", which accepts clients at most " + std::to_string(window) +
                    " release families older than itself (this one is " +
                    std::to_string(*distance) + " older)",
                rebuild};
    }
    return {Compatibility::older_client,
            ours + ", " + std::to_string(*distance) + " release famil" +
                (*distance == 1 ? "y" : "ies") + " older than " + theirs +
                ": slurmctld still accepts it, but the next Slurm upgrade may not",
            rebuild + " before slurmctld is upgraded again"};
}

std::string release_mismatch_hint() {
    return "slurmctld and this supervisor speak different Slurm protocol versions: compare "
           "`supervisor --version` with `scontrol --version` and rebuild slurm-supervisor "
           "against the cluster's Slurm release (its libslurm-dev)";
}

}  // namespace slurm
