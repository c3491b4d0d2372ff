// Internal to slurm/: the one place <slurm/slurm.h> is included, plus RAII owners for every
// libslurm allocation we receive and the functions libslurm 22.05 exports without declaring.
#pragma once

#include <memory>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "slurm/types.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "slurm-supervisor needs libslurm 22.05 or newer"
#endif

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
// Exported by libslurm.so.38 (22.05) but missing from its headers; declared in 23.02 and later.
extern "C" char* slurm_job_reason_string(enum job_state_reason inx);
#endif

namespace slurm::detail {

struct JobInfoMessageDeleter {
    void operator()(job_info_msg_t* message) const { slurm_free_job_info_msg(message); }
};
using JobInfoMessage = std::unique_ptr<job_info_msg_t, JobInfoMessageDeleter>;

struct NodeInfoMessageDeleter {
    void operator()(node_info_msg_t* message) const { slurm_free_node_info_msg(message); }
};
using NodeInfoMessage = std::unique_ptr<node_info_msg_t, NodeInfoMessageDeleter>;

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

// Turns a Slurm error number into our ErrorKind, with Slurm's own text after `operation`.
[[nodiscard]] Error make_error(int slurm_errno, const std::string& operation);

// Converts one job record. `requested` is the id the caller asked for.
[[nodiscard]] JobSnapshot to_snapshot(const slurm_job_info_t& record, const JobId& requested);

[[nodiscard]] NodeSnapshot to_snapshot(const node_info_t& record);

// Converts one accounting record (slurmdbd's view of one run of a job); record_count is left 1.
[[nodiscard]] AccountingRecord to_accounting(const slurmdb_job_rec_t& record);

}  // namespace slurm::detail
