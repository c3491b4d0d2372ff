// Store: the supervisor's SQLite file. The CLI and the daemon open the same file at the same
// time (WAL, busy timeout), each with its own Store.
//
// Failure model: open() returns an Error a person can act on (unwritable directory, a file
// that is not a supervisor database, a schema newer than this binary). Once open, every other
// SQLite failure throws state::DatabaseError; a Transaction that is destroyed without commit()
// rolls back, so a failed cycle leaves nothing half-written. Expected outcomes (a job already
// registered, no such row) are values, not exceptions. Every row other than a registration
// belongs to a registered job: writing one for a job that is not registered throws
// DatabaseError (foreign key), and delete_registration() removes them all with it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "common/action_kind.h"
#include "common/error.h"
#include "state/event_kind.h"
#include "state/records.h"

namespace state {

class DatabaseError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Database;  // RAII over sqlite3* (state/database.h)

// Where the database lives by default: $SUPERVISOR_STATE_DIR, else
// $XDG_STATE_HOME/slurm-supervisor, else ~/.local/state/slurm-supervisor; file supervisor.db.
[[nodiscard]] std::filesystem::path default_state_dir();
// The database's file name inside the state directory.
inline constexpr const char* k_database_file_name = "supervisor.db";

class Transaction;

// How many registrations have one status and outcome (count_registrations()).
struct StatusCount {
    Status status = Status::pending;
    Outcome outcome = Outcome::none;
    std::int64_t count = 0;
};

// Which registrations changed after a given change number (registration_changes_since()).
struct RegistrationChanges {
    std::int64_t newest = 0;              // the newest change number read; pass it next time
    std::vector<JobId> jobs;              // each job whose row was inserted, updated or deleted
    bool earlier_ones_forgotten = false;  // changes after the given number were deleted
};

// What prune_finished_history() deleted.
struct PrunedHistory {
    std::int64_t events = 0;
    std::int64_t notifications = 0;
};

class Store {
  public:
    // Opens (creating the directory and file if needed) and migrates to the current schema.
    [[nodiscard]] static common::Result<std::unique_ptr<Store>> open(
        const std::filesystem::path& file);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    // BEGIN IMMEDIATE: the writer lock is taken at once, so two processes never interleave
    // the read-decide-write of one transaction.
    [[nodiscard]] Transaction begin();

    // --- registrations -------------------------------------------------------------------
    // Fails (value) when a registration for the job already exists.
    [[nodiscard]] common::Result<void> insert_registration(const Registration& registration);
    // Replaces every column of an existing registration (by job id). Throws if there is none.
    void update_registration(const Registration& registration);
    // Reading throws DatabaseError when a column holds what this code never writes, e.g.
    // knobs_json that is not a JSON array (the message names the column).
    [[nodiscard]] std::optional<Registration> registration(const JobId& job) const;
    // Every registration, oldest first: reads the whole table (one row per job ever
    // registered and not yet removed by retention).
    [[nodiscard]] std::vector<Registration> load_all_registrations() const;
    // The registrations being watched (watching = true, status other than completed), oldest
    // first: one indexed query, but every watched row.
    [[nodiscard]] std::vector<Registration> load_watched_registrations() const;
    // One owner's: the watched ones (as above), or with `all` every one; oldest first. Reads
    // only that owner's rows.
    [[nodiscard]] std::vector<Registration> load_registrations_of(uid_t owner, bool all) const;
    // The tasks of array `array_job` that were registered with it (whole_array), watched or
    // not, in task order. One indexed range read.
    [[nodiscard]] std::vector<Registration> array_registrations(std::uint32_t array_job) const;
    // Removes a registration and all rows of its job (for re-registering after
    // credential_error). Returns false when there was none.
    bool delete_registration(const JobId& job);
    // The registrations written (inserted, updated, deleted; by any process) after change
    // number `after`, each once: the change log that triggers write in the writer's own
    // transaction (schema.md, registration_changes). One indexed range read. `after` 0 and an
    // empty log answer newest 0. earlier_ones_forgotten: the log no longer holds every change
    // after `after` (forget_registration_changes() went past it): read them all instead.
    [[nodiscard]] RegistrationChanges registration_changes_since(std::int64_t after) const;
    // Deletes the log's changes up to `up_to`, once the one reader has read them.
    void forget_registration_changes(std::int64_t up_to);

    // --- attempts --------------------------------------------------------------------------
    void upsert_attempt(const Attempt& attempt);                          // by (job, number)
    [[nodiscard]] std::vector<Attempt> attempts(const JobId& job) const;  // by number
    // The job's attempt `number`; nullopt when it was never recorded. One indexed read.
    [[nodiscard]] std::optional<Attempt> attempt(const JobId& job, std::uint32_t number) const;
    // Every job's attempts, by number, in one query (`status --json` of many jobs).
    [[nodiscard]] std::map<JobId, std::vector<Attempt>> attempts_of_every_job() const;

    // --- events (append only) ----------------------------------------------------------------
    std::int64_t append_event(const Event& event);                    // returns the new id
    [[nodiscard]] std::vector<Event> events(const JobId& job) const;  // oldest first
    [[nodiscard]] std::vector<Event> events_since(std::int64_t after_id) const;
    // The job's newest event of `kind`; nullopt when it has none. An index lookup, however long
    // the journal.
    [[nodiscard]] std::optional<Event> last_event_of_kind(const JobId& job, EventKind kind) const;
    // Each job's newest event of `kind`, in one query that reads only that kind's entries.
    [[nodiscard]] std::map<JobId, Event> last_events_of_kind(EventKind kind) const;

    // --- actions (intent log) ----------------------------------------------------------------
    // Inserts a planned action; when one with the same (job, attempt, step) exists, returns
    // that one's id and changes nothing (so re-planning after a crash is harmless).
    std::int64_t insert_action(const Action& action);
    void set_action_status(std::int64_t id, ActionStatus status, const std::string& result,
                           TimePoint at);
    [[nodiscard]] std::vector<Action> actions(const JobId& job) const;  // by attempt, step
    // Actions still planned or executing, across all jobs, oldest first.
    [[nodiscard]] std::vector<Action> unfinished_actions() const;
    // Actions of `kind` done at or after `since`, across all jobs (the site's drain limit).
    [[nodiscard]] std::vector<Action> done_actions_since(common::ActionKind kind,
                                                         TimePoint since) const;

    // --- job specs (what resubmitting needs) -------------------------------------------------
    // Inserts the job's spec, or replaces every field of the one it has.
    void set_job_spec(const JobSpec& spec);
    [[nodiscard]] std::optional<JobSpec> job_spec(const JobId& job) const;  // nullopt: none
    // The spec holds the job's environment (tokens included): it goes when the registration
    // ends (completed, unregistered). Deleting none is not an error.
    void delete_job_spec(const JobId& job);

    // --- resume environment --------------------------------------------------------------
    void set_resume_env(const JobId& job, const ResumeEnv& env);  // replaces the whole set
    [[nodiscard]] ResumeEnv resume_env(const JobId& job) const;

    // --- notifications (outbox) ----------------------------------------------------------
    std::int64_t enqueue_notification(const Notification& notification);
    [[nodiscard]] std::vector<Notification> due_notifications(TimePoint now) const;
    void update_notification(const Notification& notification);  // by id
    [[nodiscard]] std::vector<Notification> notifications(const JobId& job) const;
    // The job's notifications to `target` sent after `since` (strictly), by sent_at: the
    // cooldown and the SMS rate limit of notify/.
    [[nodiscard]] std::vector<Notification> sent_since(const JobId& job, const std::string& target,
                                                       TimePoint since) const;

    // --- node records (store_node_records.cpp) ----------------------------------------------
    // Inserts a record; its id. Throws DatabaseError when the node already has a record that
    // is not closed (the schema allows one).
    std::int64_t insert_node_record(const NodeRecord& record);
    void update_node_record(const NodeRecord& record);  // every column, by id
    // The node's record that is not closed (open or watching); nullopt when it has none. An
    // index lookup.
    [[nodiscard]] std::optional<NodeRecord> open_node_record(const std::string& node) const;
    // Every record not closed, and those closed at or after `closed_since`, by node then age.
    [[nodiscard]] std::vector<NodeRecord> node_records_since(TimePoint closed_since) const;

    // --- retention (store_retention.cpp) ---------------------------------------------------
    // Deletes the events and the finished (sent, failed, suppressed) notifications of every
    // registration that is over — completed, in credential_error, or unregistered — and has
    // not changed since `unchanged_since`. What a watched job's decisions read is never
    // touched: its own rows, pending notifications, and (given a cut-off older than the
    // failure history's window) other jobs' recent failures. Registrations and attempts stay,
    // so `status --all` still lists the job. Two statements; call inside a transaction.
    PrunedHistory prune_finished_history(TimePoint unchanged_since);

    // --- whole-file looks (metrics, `supervisor doctor`; store_health.cpp) ---------------
    // Registrations per (status, outcome), every registration counted, unregistered too.
    [[nodiscard]] std::vector<StatusCount> count_registrations() const;
    // Notifications still to be sent (status pending, due or not).
    [[nodiscard]] std::int64_t count_pending_notifications() const;
    // PRAGMA integrity_check: {"ok"} for a sound file, else SQLite's list of problems. Reads
    // the whole file (seconds for a large one): for `doctor`, not for every cycle.
    [[nodiscard]] std::vector<std::string> integrity_check() const;
    // PRAGMA journal_mode ("wal" once open() succeeded).
    [[nodiscard]] std::string journal_mode() const;

    [[nodiscard]] int schema_version() const;
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
    // Rows this store's queries have returned since it was opened: what a request cost in
    // reads, for the tests that keep work in proportion to the request (not to the table).
    [[nodiscard]] std::int64_t rows_read() const;

  private:
    friend class Transaction;
    Store(std::unique_ptr<Database> database, std::filesystem::path path);

    std::unique_ptr<Database> m_database;
    std::filesystem::path m_path;
};

// Commits on commit(); rolls back when destroyed without it (including by an exception).
class Transaction {
  public:
    explicit Transaction(Database& database);
    ~Transaction();
    Transaction(Transaction&& other) noexcept;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    Transaction& operator=(Transaction&&) = delete;
    void commit();

  private:
    Database* m_database;
    bool m_open = true;
};

}  // namespace state
