// Internal to slurm/: the one place <slurm/slurm.h> is included, plus RAII owners for every
// libslurm allocation we receive and the functions libslurm 22.05 exports without declaring.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "slurm/types.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "slurm-supervisor needs libslurm 22.05 or newer"
#endif

// The text of a job's state reason ("BeginTime", "JobHeldUser"...). libslurm exports it in
// every release but declares it in no public header, and 24.05 renamed it.
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 5, 0)
extern "C" char* slurm_job_reason_string(enum job_state_reason inx);
#else
extern "C" const char* slurm_job_state_reason_string(enum job_state_reason inx);
#endif

// Frees slurm_job_will_run2's answer. Exported by libslurm in every release, declared in no
// public header (slurm.h names it in a comment only).
extern "C" void slurm_free_will_run_response_msg(will_run_response_msg_t* msg);

namespace slurm::detail {

struct JobInfoMessageDeleter {
    void operator()(job_info_msg_t* message) const { slurm_free_job_info_msg(message); }
};
using JobInfoMessage = std::unique_ptr<job_info_msg_t, JobInfoMessageDeleter>;

struct NodeInfoMessageDeleter {
    void operator()(node_info_msg_t* message) const { slurm_free_node_info_msg(message); }
};
using NodeInfoMessage = std::unique_ptr<node_info_msg_t, NodeInfoMessageDeleter>;

struct PartitionInfoMessageDeleter {
    void operator()(partition_info_msg_t* message) const { slurm_free_partition_info_msg(message); }
};
using PartitionInfoMessage = std::unique_ptr<partition_info_msg_t, PartitionInfoMessageDeleter>;

struct WillRunResponseDeleter {
    void operator()(will_run_response_msg_t* message) const {
        slurm_free_will_run_response_msg(message);
    }
};
using WillRunResponse = std::unique_ptr<will_run_response_msg_t, WillRunResponseDeleter>;

struct ArrayResponseDeleter {
    void operator()(job_array_resp_msg_t* message) const { slurm_free_job_array_resp(message); }
};
using ArrayResponse = std::unique_ptr<job_array_resp_msg_t, ArrayResponseDeleter>;

struct ConfigMessageDeleter {
    void operator()(slurm_conf_t* message) const { slurm_free_ctl_conf(message); }
};
using ConfigMessage = std::unique_ptr<slurm_conf_t, ConfigMessageDeleter>;

// A libslurm List; destroying it frees its items with the function it was created with.
struct ListDeleter {
    void operator()(xlist* list) const { slurm_list_destroy(list); }
};
using OwnedList = std::unique_ptr<xlist, ListDeleter>;

struct ListIteratorDeleter {
    void operator()(listIterator* iterator) const { slurm_list_iterator_destroy(iterator); }
};
using OwnedListIterator = std::unique_ptr<listIterator, ListIteratorDeleter>;

// A connection to slurmdbd from slurmdb_connection_get().
struct DbConnectionDeleter {
    void operator()(void* connection) const { slurmdb_connection_close(&connection); }
};
using DbConnection = std::unique_ptr<void, DbConnectionDeleter>;

struct SubmitResponseDeleter {
    void operator()(submit_response_msg_t* message) const {
        slurm_free_submit_response_response_msg(message);
    }
};
using SubmitResponse = std::unique_ptr<submit_response_msg_t, SubmitResponseDeleter>;

// A FILE* writing into memory (open_memstream), for libslurm calls that print their answer
// (slurm_job_batch_script). take() closes the stream and returns everything written.
class MemoryStream {
  public:
    MemoryStream() : m_file(::open_memstream(&m_buffer, &m_size)) {}
    ~MemoryStream() {
        if (m_file) {
            std::fclose(m_file);
        }
        std::free(m_buffer);
    }
    MemoryStream(const MemoryStream&) = delete;
    MemoryStream& operator=(const MemoryStream&) = delete;

    // nullptr when the stream could not be created (out of memory).
    [[nodiscard]] FILE* file() const { return m_file; }
    // Closes the stream (which settles m_buffer/m_size) and copies out the bytes.
    [[nodiscard]] std::string take() {
        if (m_file) {
            std::fclose(m_file);
            m_file = nullptr;
        }
        return m_buffer ? std::string(m_buffer, m_size) : std::string();
    }

  private:
    char* m_buffer = nullptr;
    std::size_t m_size = 0;
    FILE* m_file = nullptr;
};

// The Slurm error of a failed call: errno when libslurm set it, else the returned code.
// Callers set errno = 0 before the call.
[[nodiscard]] int last_error(int rc);

// Turns a Slurm error number into our ErrorKind, with Slurm's own text after `operation`.
[[nodiscard]] Error make_error(int slurm_errno, const std::string& operation);

// slurmctld's configuration (one slurm_load_ctl_conf RPC); the error names `operation`.
[[nodiscard]] Result<ConfigMessage> load_controller_config(const std::string& operation);

// Slurm's text for a job state reason number; "" for none.
[[nodiscard]] std::string job_reason_text(std::uint32_t reason);

// Converts one job record. `requested` is the id the caller asked for.
[[nodiscard]] JobSnapshot to_snapshot(const slurm_job_info_t& record, const JobId& requested);

[[nodiscard]] NodeSnapshot to_snapshot(const node_info_t& record);

[[nodiscard]] PartitionSnapshot to_snapshot(const partition_info_t& record);

// Converts one accounting record (slurmdbd's view of one run of a job); record_count is left 1.
[[nodiscard]] AccountingRecord to_accounting(const slurmdb_job_rec_t& record);

}  // namespace slurm::detail
