// A Backend gives the contract suite a slurm::Client and a way to put jobs into the states the
// suite needs. The fake backend does it instantly; the real one submits with sbatch and waits.
#pragma once

#include <functional>
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
    // A batch job that ran an srun step exiting with `step_exit`, then exited 0 itself.
    virtual slurm::JobId job_with_failed_step(int step_exit) = 0;
    // A job array of the tasks `expression` names ("1-7:3"), submitted held so that its tasks
    // stay pending in one record; its array id.
    virtual slurm::JobId held_array(const std::string& expression) = 0;
    // A batch job that is running now (on some node) and will not end by itself in the test.
    virtual slurm::JobId running_job() = 0;
    // Wait (real) until the job is pending and not completing after an operation.
    virtual slurm::JobSnapshot settled(const slurm::JobId& id) = 0;
    // An id no job has.
    virtual slurm::JobId unknown_job() = 0;
    // Let time pass before trying again (real: a fraction of a second; fake: nothing).
    virtual void pause() = 0;
    // Wait (real) until the job runs, or (fake) start it where Slurm could; its snapshot then.
    virtual slurm::JobSnapshot running(const slurm::JobId& id) = 0;
    // A job that holds an allocation but has no batch script (salloc --no-shell).
    virtual slurm::JobId allocation_job() = 0;
    // Cancel the job when the test ends (for jobs the test submits through client()).
    virtual void cancel_at_end(const slurm::JobId& id) = 0;
    // Undo a drain now (scontrol update state=resume).
    virtual void resume_node(const std::string& node) = 0;
    // Make sure the node is resumed when the test ends, even if it fails half-way.
    virtual void resume_at_end(const std::string& node) = 0;
    // Runs `action` as someone who is not a Slurm operator and returns what it returned
    // (0-255): real, in a child process as user nobody; fake, with set_operator(false).
    virtual int as_non_operator(const std::function<int(slurm::Client&)>& action) = 0;
    // A reservation of nodes n1 and n2, starting tomorrow, that this process's user may submit
    // jobs to (real: created with scontrol, which needs root, and deleted when the test ends;
    // fake: made known to the fake).
    virtual std::string reservation() = 0;
    // A held batch job submitted with options a SubmitRequest cannot carry: --deadline (two
    // days from now) and --contiguous (real: sbatch; fake: a snapshot that says so).
    virtual slurm::JobId job_with_options_not_carried() = 0;
    // Changes the job's comment the way another process would, past client() (real: scontrol
    // update; fake: straight into the job table).
    virtual void comment_elsewhere(const slurm::JobId& id, const std::string& comment) = 0;
    // A directory the test's jobs may write their output to.
    virtual std::string output_dir() = 0;
};

// Provided once per test executable: the fake or the real backend.
std::unique_ptr<Backend> make_backend();
// Empty when the backend can run; else why not (the real cluster may be absent).
std::string backend_unavailable_reason();

}  // namespace contract
