// Feeds: the daemon's configuration file (supervisor/config/config.h): the input as the TOML file
// that load_config() reads (through a scratch file), over the default Config.
// Checks: no crash, leak or UB; a rejected file is an Error naming the file; an accepted one
// has the positive values it promises (intervals, backoffs, limits, excerpt bounds), a
// retry_max not below retry_initial, an absolute metrics_file when one is set, and default
// targets that notify::parse_target accepts.
//
// Found here and fixed: a float beyond +-2^63 was cast to int64 inside toml++ (UB); the
// config now reads integers through supervisor/config/config_integer.h, which refuses floats.
// corpus/config_toml/known_ub_float_cast.toml keeps that input.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "notify/target.h"
#include "supervisor/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fuzz::ScratchFile file;
    file.write(data, size);
    const auto config = supervisor::load_config(file.path(), supervisor::Config{}, true);
    if (!config) {
        FUZZ_CHECK(config.error().message.find(file.path().string()) != std::string::npos);
        return 0;
    }
    FUZZ_CHECK(config->poll_interval.count() > 0);
    FUZZ_CHECK(config->max_backoff.count() > 0);
    FUZZ_CHECK(config->start_delay.count() > 0);
    FUZZ_CHECK(config->requeue_backoff.count() > 0);
    FUZZ_CHECK(config->requeue_backoff_max.count() > 0);
    FUZZ_CHECK(config->log_limits.head_bytes > 0 && config->log_limits.tail_bytes > 0);
    FUZZ_CHECK(config->metrics_file.empty() || config->metrics_file.is_absolute());
    FUZZ_CHECK(config->notify.retry_max >= config->notify.retry_initial);
    for (const auto& target : config->notify.default_targets) {
        FUZZ_CHECK(notify::parse_target(target).has_value());
    }
    return 0;
}
