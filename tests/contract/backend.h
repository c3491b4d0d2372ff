// A Backend gives the contract suite a slurm::Client and a way to put jobs into the states the
// suite needs. The fake backend does it instantly; the real one submits with sbatch and waits.
#pragma once

#include <memory>
#include <string>

#include "slurm/client.h"

namespace contract {

class Backend {
public:
    virtual ~Backend() = default;
    virtual slurm::Client& client() = 0;
    // A batch job that ran and exited with `exit_code`; requeueable unless told otherwise.
    virtual slurm::JobId finished_job(int exit_code, bool requeueable = true) = 0;
    // A batch job that is running now (on some node) and will not end by itself in the test.
    virtual slurm::JobId running_job() = 0;
    // Wait (real) until the job is pending and not completing after an operation.
    virtual slurm::JobSnapshot settled(const slurm::JobId& id) = 0;
    // An id no job has.
    virtual slurm::JobId unknown_job() = 0;
    // Let time pass before trying again (real: a fraction of a second; fake: nothing).
    virtual void pause() = 0;
};

// Provided once per test executable: the fake or the real backend.
std::unique_ptr<Backend> make_backend();
// Empty when the backend can run; else why not (the real cluster may be absent).
std::string backend_unavailable_reason();

}  // namespace contract
