// Internal to slurm/: a job_desc_msg_t filled from a SubmitRequest, shared by the submission
// (libslurm_submit.cpp) and the will-run question (libslurm_partitions.cpp), so both describe a
// job to slurmctld alike.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "slurm/detail/libslurm.h"
#include "slurm/submit_request.h"

namespace slurm::detail {

// job_desc_msg_t wants mutable C strings; keep each value alive (a deque never moves its
// elements) and hand out its buffer, or nullptr for an empty one (Slurm's "not given").
class Strings {
  public:
    char* add(const std::string& value) {
        return value.empty() ? nullptr : m_values.emplace_back(value).data();
    }
    // A NULL-terminated array of the values (empty ones kept as ""), as environ and argv are.
    char** add_array(const std::vector<std::string>& values) {
        auto& pointers = m_arrays.emplace_back();
        for (const auto& value : values) {
            pointers.push_back(m_values.emplace_back(value).data());
        }
        pointers.push_back(nullptr);
        return pointers.data();
    }

  private:
    std::deque<std::string> m_values;
    std::deque<std::vector<char*>> m_arrays;
};

// What the job asks for: nodes, tasks, CPUs, memory, the node layout and the generic resources.
// A field left unset keeps slurm_init_job_desc_msg's "not given". `d` points into `strings`.
void describe_resources(const SubmitRequest& r, Strings& strings, job_desc_msg_t& d);

// Where and when it may run, and what happens around it: the account and partition, nodes
// required or excluded, sharing, limits, priority, dependencies, mail, requeue, hold.
void describe_scheduling(const SubmitRequest& r, Strings& strings, job_desc_msg_t& d);

}  // namespace slurm::detail
