// Feeds: Slurm host lists ("n[1-3,7],gpu[08-10]") to expand_hostlist(), and node names to
// short_node_name() (recovery/hostlist.h). The input is the host list.
// Checks: no crash, hang, leak or UB; ranges never add up to more than k_max_hosts names (the
// promised refusal of huge ranges, so a node list cannot make the daemon allocate without
// bound; plain names, one per item of the text, are not counted against it);
// a list without brackets expands to its comma-separated items; short names are prefixes of
// the names and hold no '.', unless the name is an IP address.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "recovery/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::as_text(data, size);
    const auto hosts = recovery::expand_hostlist(text);
    if (!hosts) {
        FUZZ_CHECK(!hosts.error().message.empty());
    } else {
        FUZZ_CHECK(hosts->size() <= recovery::k_max_hosts + text.size());
        if (text.find_first_of("[]") == std::string_view::npos) {
            std::vector<std::string> items;
            for (const auto item : fuzz::split(text, ",")) {
                if (!item.empty()) {
                    items.emplace_back(item);
                }
            }
            FUZZ_CHECK(*hosts == items);
        }
        for (std::size_t i = 0; i < hosts->size() && i < 64; ++i) {
            const auto& host = (*hosts)[i];
            const auto short_name = recovery::short_node_name(host);
            FUZZ_CHECK(host.starts_with(short_name));
        }
    }
    const auto short_name = recovery::short_node_name(text);
    FUZZ_CHECK(text.starts_with(short_name));
    return 0;
}
