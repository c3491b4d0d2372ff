// JobLog: the example job's own log (contrib/examples/README.md, "Log format") read back as
// values, so a test proves from the job's side what an attempt ran with: its batch size and
// accumulation, its node, the checkpoint it resumed from, where it finished.
#pragma once

#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace test_support {

struct StepLine {
    int step = 0;
    int total = 0;
    int batch_size = 0;
    int grad_accum = 0;
    int attempt = 0;
    std::string host;
};

class JobLog {
  public:
    explicit JobLog(const std::string& text) {
        static const std::regex step_re(
            R"(^step ([0-9]+)/([0-9]+) loss ([0-9]+\.[0-9]{6}|nan|inf) batch_size ([0-9]+) )"
            R"(grad_accum ([0-9]+) attempt ([0-9]+) host ([^ ]+)$)");
        static const std::regex resume_re(R"(^resumed from (.+) at step ([0-9]+)$)");
        static const std::regex start_re(R"(^start steps ([0-9]+) .* attempt ([0-9]+) host )");
        std::istringstream in(text);
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
            if (std::regex_match(line, m, step_re)) {
                m_steps.push_back({std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[4]),
                                   std::stoi(m[5]), std::stoi(m[6]), m[7]});
            } else if (std::regex_match(line, m, resume_re)) {
                m_resumes.push_back(m[1]);
            } else if (std::regex_search(line, m, start_re)) {
                m_starts.push_back(std::stoi(m[1]));
            } else if (line.starts_with("training finished at step ")) {
                m_finished.push_back(std::stoi(line.substr(26)));
            }
        }
    }

    // Every step line of one attempt, in order.
    std::vector<StepLine> steps_of(int attempt) const {
        std::vector<StepLine> lines;
        for (const auto& step : m_steps) {
            if (step.attempt == attempt) {
                lines.push_back(step);
            }
        }
        return lines;
    }
    // "resumed from PATH" lines, in order.
    const std::vector<std::string>& resumes() const { return m_resumes; }
    // The --steps of each run started ("start steps N ..."), in order.
    const std::vector<int>& runs_started() const { return m_starts; }
    // "training finished at step N" lines, in order.
    const std::vector<int>& finished() const { return m_finished; }

  private:
    std::vector<StepLine> m_steps;
    std::vector<std::string> m_resumes;
    std::vector<int> m_starts;
    std::vector<int> m_finished;
};

}  // namespace test_support
