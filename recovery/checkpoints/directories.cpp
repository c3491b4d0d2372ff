// Directory validators (directories.h). They stop at the first bad file: one bad shard makes
// the checkpoint unusable, and the reason names it.
#include "recovery/checkpoints/directories.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/input_file.h"
#include "common/trimmed.h"
#include "recovery/checkpoints/detect.h"
#include "recovery/checkpoints/naming.h"
#include "recovery/checkpoints/read_only_file.h"
#include "recovery/checkpoints/validators.h"

namespace recovery::checkpoints {
namespace {

namespace fs = std::filesystem;

// Small side files (trainer_state.json, index files, DCP .metadata) larger than this are not
// read.
constexpr std::uint64_t k_max_side_file = std::uint64_t{64} << 20;

bool is_weight_like(const std::string& name) {
    return ends_with(name, ".pt") || ends_with(name, ".pth") || ends_with(name, ".bin") ||
           ends_with(name, ".ckpt") || ends_with(name, ".safetensors");
}

// Names of the regular files directly inside, sorted (directory order is arbitrary).
std::vector<std::string> files_in(const fs::path& directory, ReadBudget& budget) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end && budget.charge_entry();
         it.increment(ec)) {
        if (it->is_regular_file(ec)) {
            names.push_back(it->path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> subdirectories_in(const fs::path& directory, std::string_view prefix,
                                           ReadBudget& budget) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end && budget.charge_entry();
         it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (it->is_directory(ec) && name.starts_with(prefix)) {
            names.push_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

// Validations of several files, summed; the first failure wins.
class Tally {
  public:
    // False once a file failed: the caller stops.
    bool add(const std::string& label, const Validation& validation) {
        m_bytes_read += validation.bytes_read;
        if (!validation.ok) {
            m_failure = label + ": " + validation.reason;
            return false;
        }
        ++m_files;
        return true;
    }
    [[nodiscard]] bool failed() const { return !m_failure.empty(); }
    [[nodiscard]] std::size_t files() const { return m_files; }
    [[nodiscard]] Validation fail(std::string reason) const {
        return {false, std::move(reason), m_bytes_read};
    }
    [[nodiscard]] Validation result(const std::string& success) const {
        return failed() ? Validation{false, m_failure, m_bytes_read}
                        : Validation{true, success, m_bytes_read};
    }

  private:
    std::uint64_t m_bytes_read = 0;
    std::size_t m_files = 0;
    std::string m_failure;
};

// A small whole file, or nullopt when missing or too large; counts what it read.
std::optional<std::string> read_side_file(const fs::path& path, std::uint64_t& bytes_read,
                                          ReadBudget& budget) {
    auto file = ReadOnlyFile::open(path, budget);
    if (!file || file->size() > k_max_side_file) {
        return std::nullopt;
    }
    std::string text;
    const bool ok = file->read_at(0, file->size(), text);
    bytes_read += file->bytes_read();
    return ok ? std::optional(text) : std::nullopt;
}

// The shard file names of a *.index.json's weight_map, without building the JSON tree: every
// value below the top level is dropped as soon as it is parsed (an index maps every tensor to
// its shard, so the tree of a large one would cost many times the file). False when the text
// is not JSON or has no weight_map object.
bool shards_listed_in_index(const std::string& text, std::set<std::string>& shards) {
    bool in_weight_map = false;
    const auto keep = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        if (depth == 1 && event == Event::key) {
            in_weight_map = parsed == "weight_map";
        }
        if (depth >= 2 && event == Event::value && in_weight_map && parsed.is_string()) {
            shards.insert(parsed.get<std::string>());
        }
        return depth < 2 || event == Event::key || event == Event::object_start ||
               event == Event::array_start;
    };
    const auto index = nlohmann::json::parse(text, keep, false);
    return index.is_object() && index.contains("weight_map") && index["weight_map"].is_object();
}

std::string count(std::size_t n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

Validation validate_deepspeed(const fs::path& directory, ReadBudget& budget) {
    Tally tally;
    std::size_t model_states = 0;
    for (const auto& name : files_in(directory, budget)) {
        if (!ends_with(name, ".pt")) {
            continue;
        }
        model_states += name.find("model_states") != std::string::npos ? 1 : 0;
        if (!tally.add(name, validate_torch_file(directory / name, budget))) {
            break;
        }
    }
    if (!tally.failed() && model_states == 0) {
        return tally.fail(
            "no *model_states.pt (mp_rank_NN_model_states.pt): the save is incomplete");
    }
    return tally.result("DeepSpeed: " + count(tally.files(), "torch file") + " valid (" +
                        std::to_string(model_states) + " model states)");
}

Validation validate_dcp(const fs::path& directory, ReadBudget& budget) {
    Tally tally;
    const auto metadata_path = directory / ".metadata";
    std::error_code ec;
    if (!fs::exists(metadata_path, ec)) {
        return tally.fail(".metadata missing: the save did not finish (DCP writes it last)");
    }
    if (fs::file_size(metadata_path, ec) == 0) {
        return tally.fail(".metadata is empty");
    }
    const auto metadata_time = modified_time(metadata_path);
    std::set<std::string> shards;
    for (const auto& name : files_in(directory, budget)) {
        if (!ends_with(name, ".distcp")) {
            continue;
        }
        if (fs::file_size(directory / name, ec) == 0) {
            return tally.fail("shard " + name + " is empty");
        }
        if (modified_time(directory / name) > metadata_time) {
            return tally.fail("shard " + name +
                              " was modified after .metadata: a save over an "
                              "older one that did not finish");
        }
        shards.insert(name);
    }
    if (shards.empty()) {
        return tally.fail("no *.distcp shard files next to .metadata");
    }
    // The pickle stores each relative_path string once (later uses are memo references), so
    // every shard name .metadata refers to appears in its bytes.
    std::uint64_t bytes_read = 0;
    const auto metadata = read_side_file(metadata_path, bytes_read, budget);
    tally.add(".metadata", {true, "", bytes_read});
    if (!metadata) {
        return tally.result("DCP: .metadata + " + count(shards.size(), "shard") +
                            "; .metadata too large to check shard names");
    }
    std::set<std::string> referenced;
    for (auto at = metadata->find(".distcp"); at != std::string::npos;
         at = metadata->find(".distcp", at + 1)) {
        auto begin = at;
        while (begin > 0 && (std::isalnum(static_cast<unsigned char>((*metadata)[begin - 1])) ||
                             (*metadata)[begin - 1] == '_' || (*metadata)[begin - 1] == '-')) {
            --begin;
        }
        referenced.insert(metadata->substr(begin, at + 7 - begin));
    }
    for (const auto& name : referenced) {
        if (!shards.contains(name)) {
            return tally.fail(".metadata refers to shard " + name + ", which is missing or empty");
        }
    }
    return tally.result("DCP: .metadata + " + count(shards.size(), "shard") + ", " +
                        std::to_string(referenced.size()) +
                        " shard names in .metadata all present (offsets not checked)");
}

Validation validate_megatron(const fs::path& directory, ReadBudget& budget) {
    Tally tally;
    const auto ranks = subdirectories_in(directory, "mp_rank_", budget);
    if (ranks.empty()) {
        std::error_code ec;
        if (fs::exists(directory / ".metadata", ec) || fs::exists(directory / "common.pt", ec)) {
            auto dcp = validate_dcp(directory, budget);
            dcp.reason = "Megatron torch_dist: " + dcp.reason;
            return dcp;
        }
        return tally.fail(
            "no mp_rank_*/model_optim_rng.pt (nor torch_dist .metadata): the save "
            "is incomplete");
    }
    for (const auto& rank : ranks) {
        const auto files = files_in(directory / rank, budget);
        if (std::find(files.begin(), files.end(), "model_optim_rng.pt") == files.end()) {
            return tally.fail(rank + "/model_optim_rng.pt missing: the save is incomplete");
        }
        for (const auto& name : files) {
            if (ends_with(name, ".pt") &&
                !tally.add(rank + "/" + name,
                           validate_torch_file(directory / rank / name, budget))) {
                return tally.result("");
            }
        }
    }
    return tally.result("Megatron: " + count(ranks.size(), "model-parallel rank") + ", " +
                        count(tally.files(), "torch file") + " valid");
}

Validation validate_huggingface(const fs::path& directory, ReadBudget& budget) {
    Tally tally;
    std::uint64_t bytes_read = 0;
    const auto state = read_side_file(directory / "trainer_state.json", bytes_read, budget);
    tally.add("trainer_state.json", {true, "", bytes_read});
    if (!state) {
        return tally.fail(
            "trainer_state.json missing (the Trainer writes it at the end of a save)");
    }
    if (!nlohmann::json::accept(*state)) {
        return tally.fail("trainer_state.json is not valid JSON: cut short");
    }
    const auto files = files_in(directory, budget);
    const std::set<std::string> present(files.begin(), files.end());
    bool has_weights = false;
    std::size_t shards = 0;
    for (const auto& name : files) {
        if (!ends_with(name, ".index.json")) {
            continue;
        }
        bytes_read = 0;
        const auto text = read_side_file(directory / name, bytes_read, budget);
        tally.add(name, {true, "", bytes_read});
        std::set<std::string> listed;
        if (!text || !shards_listed_in_index(*text, listed)) {
            return tally.fail(name + " has no weight_map");
        }
        for (const auto& shard : listed) {
            if (!present.contains(shard)) {
                return tally.fail(name + " lists shard " + shard + ", which is missing");
            }
        }
        shards += listed.size();
        has_weights = true;
    }
    // The Trainer with DeepSpeed saves the engine's state as checkpoint-N/global_stepN plus a
    // 'latest' tracker, and with ZeRO-3 possibly no consolidated weights at all.
    std::string deepspeed_tag;
    if (present.contains("latest")) {
        bytes_read = 0;
        const auto tag = read_side_file(directory / "latest", bytes_read, budget);
        tally.add("latest", {true, "", bytes_read});
        deepspeed_tag = tag ? common::trimmed(*tag) : std::string();
        // The tag names a directory inside this one: '.', '..' or a path would make the
        // checkpoint's own directory or its parent stand in for the engine state.
        if (deepspeed_tag.empty() || deepspeed_tag == "." || deepspeed_tag == ".." ||
            deepspeed_tag.find_first_of(std::string_view("/\0", 2)) != std::string::npos) {
            return tally.fail("DeepSpeed tracker 'latest' is empty or not a tag");
        }
        if (!tally.add(deepspeed_tag, validate_deepspeed(directory / deepspeed_tag, budget))) {
            return tally.result("");
        }
        has_weights = true;
    }
    for (const auto* single : {"model.safetensors", "pytorch_model.bin",
                               "adapter_model.safetensors", "adapter_model.bin"}) {
        has_weights = has_weights || present.contains(single);
    }
    if (!has_weights) {
        return tally.fail(
            "no model weights (model.safetensors, pytorch_model.bin, adapter_model.* "
            "or a *.index.json)");
    }
    std::size_t weights = 0;
    for (const auto& name : files) {
        if (!is_weight_like(name)) {
            continue;
        }
        if (!tally.add(name, validate_file(directory / name, budget))) {
            return tally.result("");
        }
        ++weights;
    }
    return tally.result(
        "Hugging Face: trainer_state.json, " +
        (shards > 0 ? count(shards, "indexed shard") + ", " : std::string()) +
        (deepspeed_tag.empty() ? std::string() : "DeepSpeed state " + deepspeed_tag + ", ") +
        count(weights, "weight/state file") + " valid");
}

Validation validate_declared(const fs::path& directory, ReadBudget& budget) {
    Tally tally;
    for (const auto& name : files_in(directory, budget)) {
        if (is_weight_like(name) && !tally.add(name, validate_file(directory / name, budget))) {
            return tally.result("");
        }
    }
    if (tally.files() == 0) {
        return tally.result("no file of a known format inside: only the name (and marker) checked");
    }
    return tally.result(count(tally.files(), "file") + " valid");
}

}  // namespace

Validation validate_file(const fs::path& file, ReadBudget& budget) {
    const auto name = file.filename().string();
    if (ends_with(name, ".safetensors")) {
        return validate_safetensors(file, budget);
    }
    if (is_weight_like(name)) {
        return validate_torch_file(file, budget);
    }
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec || size == 0) {
        return {false, ec ? "cannot stat: " + ec.message() : "empty file", 0};
    }
    return {true,
            "format unknown: only checked to be non-empty (" + std::to_string(size) + " bytes)", 0};
}

// stat(2) rather than std::filesystem so the kind of a FIFO or device can be named; nothing is
// opened, so neither can block or be read endlessly.
Validation validate_by_name(const fs::path& entry, ReadBudget& budget) {
    struct stat info {};
    if (::stat(entry.c_str(), &info) != 0) {
        return {false,
                "cannot be looked at: " + std::error_code(errno, std::generic_category()).message(),
                0};
    }
    if (S_ISREG(info.st_mode)) {
        if (info.st_size <= 0) {
            return {false, "empty file", 0};
        }
        return {true, "file of " + count(static_cast<std::size_t>(info.st_size), "byte"), 0};
    }
    if (!S_ISDIR(info.st_mode)) {
        return {false,
                "is " + std::string(common::file_kind_name(info.st_mode)) +
                    ", not a regular file or directory",
                0};
    }
    // The first non-empty file ends the walk: the tree is the job owner's, and its size must
    // not decide how long a look takes.
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(entry, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        if (!budget.charge_entry()) {
            return {false, budget.exhausted_because(), 0};
        }
        std::error_code kind_error;
        if (!it->is_regular_file(kind_error)) {
            continue;
        }
        const auto size = fs::file_size(it->path(), kind_error);
        if (!kind_error && size > 0) {
            return {true,
                    "directory holding " + fs::relative(it->path(), entry, kind_error).string() +
                        " (" + count(static_cast<std::size_t>(size), "byte") + ")",
                    0};
        }
    }
    return {false, "no non-empty file inside", 0};
}

Validation validate_directory(const fs::path& directory, Layout layout, ReadBudget& budget) {
    switch (layout) {
        case Layout::deepspeed:
            return validate_deepspeed(directory, budget);
        case Layout::megatron:
            return validate_megatron(directory, budget);
        case Layout::huggingface:
            return validate_huggingface(directory, budget);
        case Layout::torch_dcp:
            return validate_dcp(directory, budget);
        default:
            return validate_declared(directory, budget);
    }
}

}  // namespace recovery::checkpoints
