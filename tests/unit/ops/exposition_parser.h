// A strict reader of the Prometheus text format for the tests: it rejects what Prometheus would
// reject (a sample before its family's HELP and TYPE, bad names, bad escapes, unparsable
// values), so "it parses" means a collector would take the file.
#pragma once

#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ops::test {

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

struct Exposition {
    std::map<std::string, std::string> help;  // by family
    std::map<std::string, std::string> type;  // by family
    std::vector<Sample> samples;

    // The value of the one sample with this name and these labels; throws when there is none.
    [[nodiscard]] double value(const std::string& name,
                               const std::map<std::string, std::string>& labels = {}) const {
        for (const auto& sample : samples) {
            if (sample.name == name && sample.labels == labels) {
                return sample.value;
            }
        }
        throw std::runtime_error("no sample " + name);
    }
};

inline std::string family_of(const std::string& name,
                             const std::map<std::string, std::string>& types) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string s(suffix);
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
            const auto base = name.substr(0, name.size() - s.size());
            if (types.contains(base) && types.at(base) == "histogram") {
                return base;
            }
        }
    }
    return name;
}

inline Exposition parse_exposition(const std::string& text) {
    static const std::regex k_name("[a-zA-Z_:][a-zA-Z0-9_:]*");
    static const std::regex k_label("[a-zA-Z_][a-zA-Z0-9_]*");
    Exposition out;
    std::istringstream lines(text);
    std::string line;
    if (!text.empty() && text.back() != '\n') {
        throw std::runtime_error("the last line has no newline");
    }
    while (std::getline(lines, line)) {
        if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
            const auto rest = line.substr(7);
            const auto space = rest.find(' ');
            const auto name = rest.substr(0, space);
            if (!std::regex_match(name, k_name) || space == std::string::npos) {
                throw std::runtime_error("bad comment line: " + line);
            }
            (line[2] == 'H' ? out.help : out.type)[name] = rest.substr(space + 1);
            continue;
        }
        if (line.empty() || line[0] == '#') {
            continue;
        }
        Sample sample;
        std::size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ') {
            ++i;
        }
        sample.name = line.substr(0, i);
        if (!std::regex_match(sample.name, k_name)) {
            throw std::runtime_error("bad metric name: " + line);
        }
        if (i < line.size() && line[i] == '{') {
            ++i;
            while (line.at(i) != '}') {
                const auto eq = line.find('=', i);
                const auto label = line.substr(i, eq - i);
                if (!std::regex_match(label, k_label) || line.at(eq + 1) != '"') {
                    throw std::runtime_error("bad label: " + line);
                }
                std::string value;
                for (i = eq + 2; line.at(i) != '"'; ++i) {
                    if (line[i] == '\\') {
                        const char next = line.at(++i);
                        if (next == 'n') {
                            value += '\n';
                        } else if (next == '\\' || next == '"') {
                            value += next;
                        } else {
                            throw std::runtime_error("bad escape: " + line);
                        }
                    } else {
                        value += line[i];
                    }
                }
                sample.labels[label] = value;
                ++i;
                if (line.at(i) == ',') {
                    ++i;
                }
            }
            ++i;
        }
        if (line.at(i) != ' ') {
            throw std::runtime_error("no space before the value: " + line);
        }
        const auto value = line.substr(i + 1);
        if (value == "+Inf" || value == "-Inf" || value == "NaN") {
            sample.value = value == "NaN" ? std::nan("") : (value[0] == '+' ? 1 : -1) * HUGE_VAL;
        } else {
            char* end = nullptr;
            sample.value = std::strtod(value.c_str(), &end);
            if (end != value.c_str() + value.size() || value.empty()) {
                throw std::runtime_error("bad value: " + line);
            }
        }
        const auto family = family_of(sample.name, out.type);
        if (!out.help.contains(family) || !out.type.contains(family)) {
            throw std::runtime_error("sample before its HELP/TYPE: " + line);
        }
        out.samples.push_back(std::move(sample));
    }
    return out;
}

}  // namespace ops::test
