// One representative line per rule family of the shipped catalogue, diagnosed alone.
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "test_support.h"

namespace recovery {
namespace {

struct Case {
    const char* line;
    Cause cause;
};
// How gtest shows a case: its cause, not its bytes. Not its line: ctest lists it, and CI's log
// would then hold "No space left on device" from a passing test.
void PrintTo(const Case& c, std::ostream* out) {
    *out << "a line of " << to_string(c.cause);
}

class RuleFamily : public ::testing::TestWithParam<Case> {};

TEST_P(RuleFamily, LineAloneGivesItsCause) {
    const auto diagnosis = test::diagnose_text(GetParam().line);
    EXPECT_EQ(to_string(diagnosis.cause), to_string(GetParam().cause)) << GetParam().line;
    if (GetParam().cause != Cause::unknown) {
        ASSERT_FALSE(diagnosis.evidence.empty());
        EXPECT_EQ(diagnosis.evidence.front().line, 1);
        EXPECT_FALSE(diagnosis.evidence.front().rule_id.empty());
        EXPECT_GT(diagnosis.confidence, 0.4);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Default, RuleFamily,
    ::testing::Values(
        Case{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
             "total capacity of 79.15 GiB",
             Cause::cuda_oom},
        Case{"RuntimeError: CUDA error: out of memory", Cause::cuda_oom},
        Case{"[  812.1] Out of memory: Killed process 4242 (python) total-vm:1kB", Cause::host_oom},
        Case{"slurmstepd: error: Detected 2 oom-kill event(s) in StepId=12.batch. Some of your "
             "processes may have been killed by the cgroup out-of-memory handler.",
             Cause::host_oom},
        Case{"srun: error: n4: task 3: Out Of Memory", Cause::host_oom},
        Case{"numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.20 GiB for an array "
             "with shape (1, 2)",
             Cause::host_oom},
        Case{"RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error. It is "
             "possible that dataloader's workers are out of shared memory.",
             Cause::shm_exhausted},
        Case{"OSError: [Errno 28] No space left on device: '/dev/shm/psm_shm.1'",
             Cause::shm_exhausted},
        Case{"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
             "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 "
             "milliseconds before timing out.",
             Cause::nccl_timeout},
        Case{"torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. "
             "1/2 clients joined.",
             Cause::nccl_timeout},
        Case{"n1:1:2 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer "
             "10.0.0.2<1> with error 12, opcode 0, len 0, vendor err 129",
             Cause::nccl_network},
        Case{"n1:1:2 [0] transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 10.0.0.2<59210> "
             "message truncated : receiving 1048576 bytes instead of 65536",
             Cause::nccl_network},
        Case{"Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen "
             "off the bus.",
             Cause::gpu_xid},
        Case{"RuntimeError: CUDA error: uncorrectable ECC error encountered", Cause::ecc_error},
        Case{"RuntimeError: CUDA error: an illegal memory access was encountered",
             Cause::cuda_error},
        Case{"RuntimeError: CUDA error: unspecified launch failure", Cause::cuda_error},
        Case{"srun: error: Node failure on n3", Cause::node_failure},
        Case{"slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT 2024-05-01T12:00:00 DUE TO TIME "
             "LIMIT ***",
             Cause::time_limit},
        Case{"slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT 2024-05-01T12:00:00 DUE TO "
             "PREEMPTION ***",
             Cause::preemption},
        Case{"OSError: [Errno 5] Input/output error", Cause::io_error},
        Case{"OSError: [Errno 122] Disk quota exceeded", Cause::io_error},
        Case{"OSError: [Errno 116] Stale file handle", Cause::io_error},
        Case{"botocore.exceptions.ConnectTimeoutError: Connect timeout on endpoint URL: "
             "\"https://s3.amazonaws.com/b\"",
             Cause::io_error},
        Case{"RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
             "directory",
             Cause::checkpoint_corrupt},
        Case{"Loss is nan, stopping training", Cause::loss_nan},
        Case{"An error occurred (ExpiredToken) when calling the GetObject operation: The provided "
             "token has expired.",
             Cause::credential_error},
        Case{"git@github.com: Permission denied (publickey).", Cause::credential_error},
        Case{"srun: error: Munge decode failed: Expired credential", Cause::credential_error},
        Case{"[Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug "
             "info.",
             Cause::hang},
        Case{"KeyError: 'input_ids'", Cause::code_bug},
        Case{"[rank1]: ImportError: cannot import name 'foo' from 'bar'", Cause::code_bug},
        Case{"RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x512 and 256x10)",
             Cause::code_bug},
        Case{"RuntimeError: CUDA error: device-side assert triggered", Cause::code_bug},
        Case{"Your session crashed after using all available RAM.", Cause::host_oom},
        Case{"ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node n1 is "
             "used (11.8 / 12.3 GB).",
             Cause::host_oom},
        Case{"The actor is dead because its worker process has died. Worker exit type: "
             "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error "
             "code 2. End of file.",
             Cause::host_oom},
        Case{"shm              64M   64M     0 100% /dev/shm", Cause::shm_exhausted},
        Case{"    sl = self._semlock = _multiprocessing.SemLock(", Cause::shm_exhausted},
        Case{"UserWarning: [Errno 28] No space left on device.  joblib will operate in serial mode",
             Cause::shm_exhausted},
        Case{"UserError: AzureMLCompute job failed. PreemptionError: Nodes of this job got "
             "pre-empted.",
             Cause::preemption},
        Case{"submitit INFO (2022-07-12 04:18:45,881) - Job has not timed out. Ran 1 minutes out "
             "of requested 20 minutes.",
             Cause::preemption},
        Case{"submitit INFO (2022-07-12 04:18:45,881) - Job has timed out. Ran 20 minutes out of "
             "requested 20 minutes.",
             Cause::time_limit},
        Case{"RuntimeError: CUDA error: misaligned address", Cause::code_bug},
        Case{"F0601 10:27:47.313387  4577 math_functions.cpp:91] Check failed: error == "
             "cudaSuccess (30 vs. 0)  unknown error",
             Cause::cuda_error},
        Case{"F0601 10:27:47.313387  4577 syncedmem.cpp:56] Check failed: error == cudaSuccess (2 "
             "vs. 0)  out of memory",
             Cause::cuda_oom},
        Case{"src/operator/tensor/elemwise_op_common.h:123: Check failed: assign(&dattr, "
             "(*vec)[i]) Incompatible attr in node _minus0 at 1-th input: expected [128,85164], "
             "got [85164]",
             Cause::code_bug},
        Case{"OSError: [Errno 14] Bad address", Cause::code_bug},
        Case{"INTERNAL: NCCL operation ncclGetUniqueId(&id) failed: Unable to load NCCL library.",
             Cause::code_bug},
        Case{"<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
             Cause::credential_error},
        Case{"COMET ERROR: The given api key abc123 is invalid, please check it against the "
             "dashboard.",
             Cause::credential_error},
        Case{"Error: failed to run torchrun on 10.0.0.2, exception: not a valid RSA private key "
             "file",
             Cause::credential_error},
        Case{"urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='huggingface.co', "
             "port=443): Read timed out. (read timeout=10)",
             Cause::io_error},
        Case{"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.5",
             Cause::loss_nan},
        Case{"Batch 6: Invalid loss, terminating training", Cause::loss_nan},
        Case{"[rank1]: EI0006: Getting socket times out. Reason: Remote Rank did not send the data "
             "in time.",
             Cause::nccl_timeout},
        Case{"This is usually caused by a firewall on the remote host. Please",
             Cause::nccl_network},
        Case{"  what():  [gloo/transport/tcp/pair.cc:724] connect [127.0.1.1]:3210: Connection "
             "refused",
             Cause::nccl_network},
        Case{"n1:90736:91655 [0] include/socket.h:403 NCCL WARN Connect to "
             "fe80::c4eb:49ff:fe04:e32d%6<57335> failed : Network is unreachable",
             Cause::nccl_network},
        Case{"The actor is dead because its node has died. Node Id: 677df2a9", Cause::node_failure},
        Case{"  message: Pod was terminated in response to imminent node shutdown.",
             Cause::preemption},
        Case{"task X terminated with an error exit status (50001) -- Error is ignored",
             Cause::preemption},
        Case{"<0>[2315424.098863] Kernel panic - not syncing: hung_task: blocked tasks",
             Cause::node_failure},
        Case{"02/23/2020 00:26:37  S    unable to run job, send to MOM '11.11.11.3' failed",
             Cause::node_failure},
        Case{"RuntimeError: received 0 items of ancdata", Cause::shm_exhausted},
        Case{"Error while creating shared memory segment /dev/shm/nccl-F9ffgB (size 9637888)",
             Cause::shm_exhausted},
        Case{"[E socket.cpp:610] [c10d] The client socket has failed to connect to any network "
             "address of (05, 40323).",
             Cause::nccl_network},
        // ENOMEM from the verbs library is the locked-memory limit, not host RAM.
        Case{"ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.", Cause::nccl_network},
        Case{"Failed to initialize NVML: Driver/library version mismatch", Cause::cuda_error},
        Case{"RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward "
             "compatibility was attempted on non supported HW",
             Cause::cuda_error},
        Case{"wait for compute device to finish failed, runtime result = 507046.", Cause::hang},
        Case{"SystemError: (Fatal) DataLoader process (pid 1104) exited is killed by signal: "
             "Killed.",
             Cause::host_oom},
        Case{"ppdet.engine INFO: Epoch: [0] [  20/3308] loss_bbox_reg: "
             "8035386370816811357582655488.000000 loss: 8035386370",
             Cause::loss_nan},
        Case{"Compilation failure: Ran out of memory in memory space hbm. Used 8.38G of 8.00G hbm.",
             Cause::cuda_oom},
        Case{"=   EXIT CODE: 9", Cause::host_oom},
        Case{"Job exceeded its walltime limit. Job was aborted", Cause::time_limit},
        Case{"The job running on agent Azure Pipelines 2 ran longer than the maximum time of 60 "
             "minutes.",
             Cause::time_limit},
        Case{"Job exceeded a memory resource limit (vmem, pvmem, etc.). Job was aborted",
             Cause::host_oom},
        Case{"INFO dmlc.ApplicationMaster: [DMLC] Task 0 killed because of exceeding allocated "
             "virtual memory",
             Cause::host_oom},
        Case{"11/06/2019 14:54:53  L    Simulation: preempting job", Cause::preemption},
        Case{"GCP Batch task exited with VMRecreatedDuringExecution(50006).", Cause::node_failure},
        Case{"slurmstepd: error: execve(): torchrun: No such file or directory", Cause::code_bug},
        Case{"slurmstepd: error: execve(): /tmp/slurmd/job00089/slurm_script: No such file or "
             "directory",
             Cause::node_failure},
        Case{"ds4: Metal model warmup failed: Insufficient Memory "
             "(kIOGPUCommandBufferCallbackErrorOutOfMemory)",
             Cause::cuda_oom},
        Case{"[bmlib_memory][error] bm_alloc_gmem failed, dev_id = 0, size = 0x639c00",
             Cause::cuda_oom},
        Case{"requests.exceptions.ConnectionError: "
             "HTTPSConnectionPool(host='cdn-lfs.huggingface.co', "
             "port=443): Read timed out.",
             Cause::io_error},
        Case{"      MemoryError", Cause::host_oom},
        Case{"UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you "
             "run your code on all TPU hosts?",
             Cause::hang},
        Case{"The replica master 0 ran out-of-memory and exited with a non-zero status of "
             "9(SIGKILL)",
             Cause::host_oom},
        Case{"runc create failed: unable to start container process: container init was "
             "OOM-killed (memory limit too low?)",
             Cause::host_oom},
        Case{"Task hungry_hippo failed due to oom. Error: 2 worker(s) were killed due to the node "
             "running low on memory.",
             Cause::host_oom},
        Case{"INFO: Pod trial-53: Failed to pull image \"10.0.0.1/team/img:latest\": Error "
             "response from daemon: unauthorized",
             Cause::credential_error},
        Case{"ClientError: An error occurred (AccessDeniedException) when calling the "
             "CreateTrainingJob operation: User: arn:aws:sts::1:assumed-role/R is not authorized "
             "to perform: sagemaker:CreateTrainingJob",
             Cause::credential_error},
        Case{"  ifa != nullptr. Unable to find address for: ^lo", Cause::nccl_network},
        Case{"n1:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to "
             "host, retrying (31/34) after sleep for 3100 msec",
             Cause::nccl_network},
        Case{"e66a:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address "
             "family not supported by protocol",
             Cause::nccl_network},
        Case{"n1:420:437 [5] transport/nvls.cc:379 NCCL WARN Failed to bind NVLink SHARP (NVLS) "
             "Multicast memory of size 2097152",
             Cause::gpu_xid},
        Case{"FAILED: n1133 Failed during cudaGetDeviceCount: initialization error",
             Cause::gpu_xid},
        Case{"InvalidArgumentError: LossTensor is inf or nan : Tensor had NaN values",
             Cause::loss_nan},
        Case{"2018-05-23 13:05:14,925 (e2e_asr_attctc:88) WARNING: loss (=250000048.000000) is "
             "not correct",
             Cause::loss_nan},
        Case{"2024-01-14 01:03:00,826 WARNING [train.py:1057] (2/4) Grad scale is small: "
             "1.2924697071141057e-26",
             Cause::loss_nan},
        Case{"srun: error: Task launch for 36.0 failed on node cn131: Communication connection "
             "failure",
             Cause::node_failure},
        Case{"KeyboardInterrupt", Cause::hang}, Case{"all good, training finished", Cause::unknown},
        // A requeue (the supervisor's, an administrator's) is no failure cause, and ld.so's
        // warning about an LD_PRELOAD it ignores is no broken environment.
        Case{"slurmstepd-n1: error: *** JOB 2 ON n1 CANCELLED AT 2026-11-26T05:18:52 DUE TO JOB "
             "REQUEUE ***",
             Cause::unknown},
        Case{"ERROR: ld.so: object '/nonexistent-preload.so' from LD_PRELOAD cannot be preloaded "
             "(cannot open shared object file): ignored.",
             Cause::unknown},
        Case{"this line mentions a KeyError in the middle, which is not a traceback",
             Cause::unknown}),
    // Named by cause and place ("cuda_oom_0"), so that a failure names the family, and
    // `ctest -R` can pick one; unnamed, gtest names a struct by its bytes, pointers included.
    [](const auto& instance) {
        return std::string(to_string(instance.param.cause)) + "_" + std::to_string(instance.index);
    });

// Lines a healthy job prints: banners, settings, progress. No rule may take them for a failure,
// or every failed job that printed them would be blamed on them.
TEST(RuleFamily, HealthyLinesHitNoRule) {
    const auto log = LogExcerpt::from_text(
        "job.out",
        "Wall clock limit: 24:00:00\n"
        "distributed.worker - INFO -         Worker memory limit:    4.00 GiB\n"
        "n1:4242:4242 [0] NCCL INFO NET/Socket : Using [0]ib0:10.0.0.1<0>\n"
        "n1:4242:4242 [0] NCCL INFO Channel 00/02 :    0   1\n"
        "{'loss': 0.4213, 'grad_norm': 1.27, 'learning_rate': 2e-05, 'epoch': 0.5}\n"
        "iteration     1200/  250000 | lm loss: 2.318E+00 | loss scale: 65536.0 | grad norm: 0.831 "
        "| number of skipped iterations:   0 | number of nan iterations:   0 |\n"
        "Saving model checkpoint to out/checkpoint-1200\n"
        "google.api_core retry: DeadlineExceeded raised, retrying in 1.2 s\n"
        "Epoch 3: 100%|##########| 500/500 [02:11<00:00, 3.80it/s, loss=0.213]\n"
        // Ascend set-up naming its timeouts, and an address that happens to spell an error code.
        "[INFO] HCCL(1,python3): HCCL connect timeout is set to 1200 s\n"
        "stream 0x7fEE1002ab queued 0x7fEI0006cd\n"
        "saved checkpoint for global step (50006) to out/ckpt\n"
        // fp16 loss scaling halving its scale now and then is working as designed.
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0\n");
    const auto scanned = test::default_catalogue().scan(log);
    ASSERT_TRUE(scanned) << scanned.error().message;
    for (const auto& hit : scanned->hits) {
        ADD_FAILURE() << test::default_catalogue().rules()[hit.rule].id
                      << " took a healthy line: " << hit.text;
    }
}

// A wide bounded repetition (".{0,120}") multiplies the states of the one DFA every log line
// runs through: two such patterns made a 4 MB log of near-misses take 22 s instead of 0.35 s.
// Unbounded ".*" costs nothing of the kind; shipped rules keep bounds small.
TEST(RuleFamily, NoShippedPatternHasAWideBoundedRepetition) {
    // The upper count of each "{n}" or "{m,n}"; read by hand because std::regex trips
    // GCC 12's -Wmaybe-uninitialized under the sanitizer build.
    const auto check = [](const std::string& pattern, const std::string& what) {
        for (std::size_t open = pattern.find('{'); open != std::string::npos;
             open = pattern.find('{', open + 1)) {
            const auto close = pattern.find('}', open);
            if (close == std::string::npos) {
                return;
            }
            const auto inside = pattern.substr(open + 1, close - open - 1);
            if (inside.find_first_of("0123456789") == std::string::npos ||
                inside.find_first_not_of("0123456789,") != std::string::npos) {
                continue;
            }
            if (inside.back() == ',') {
                continue;  // "{m,}" has no upper bound to multiply states by
            }
            const auto count = std::stoi(inside.substr(inside.rfind(',') + 1));
            EXPECT_LE(count, 9) << what << ": " << pattern;
        }
    };
    for (const auto& rule : test::default_catalogue().rules()) {
        check(rule.pattern, rule.id);
    }
    for (const auto& marker : marker_patterns()) {
        check(std::string(marker.pattern), "marker");
    }
}

// The prefix names the host that saw the error, not the broken end of the link: the node is
// reported, but only a fault of that host's own adapter excludes it.
TEST(RuleAttribution, NcclPrefixNamesTheNode) {
    const auto d = test::diagnose_text(
        "gpu-a03.cluster:7:9 [1] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer "
        "10.0.0.2<1> with error 12, opcode 0, len 0, vendor err 129",
        test::facts("", "gpu-a[01-04]"));
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"gpu-a03"}));
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::requeue, ""}}));
    const auto own_adapter = test::diagnose_text(
        "gpu-a03.cluster:7:9 [1] transport/net_ib.cc:1 NCCL WARN NET/IB : Got async event : "
        "local catastrophic error",
        test::facts("", "gpu-a[01-04]"));
    EXPECT_EQ(
        own_adapter.suggested_actions,
        (std::vector<Action>{{ActionKind::exclude_node, "gpu-a03"}, {ActionKind::requeue, ""}}));
}

TEST(RuleAttribution, SrunLabelAndRankPrefixStillMatch) {
    EXPECT_EQ(test::diagnose_text("3: ValueError: bad config").cause, Cause::code_bug);
    EXPECT_EQ(test::diagnose_text("[rank7]: TypeError: f() missing 1 argument").cause,
              Cause::code_bug);
}

TEST(RuleAttribution, ElasticSummaryMapsRankToHost) {
    const auto d = test::diagnose_text(
        "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1 GiB\n"
        "  host      : n9\n  rank      : 4 (local_rank: 0)\n"
        "  host      : n10\n  rank      : 5 (local_rank: 1)\n");
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n10"}));
}

TEST(RuleAttribution, XidSeverityDecidesCondemnation) {
    const auto fatal = test::diagnose_text(
        "Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 95, pid=1, Uncontained: FBHUB.");
    EXPECT_EQ(fatal.xid, 95);
    EXPECT_TRUE(fatal.node_condemned);
    EXPECT_EQ(fatal.suggested_actions, (std::vector<Action>{{ActionKind::exclude_node, "n2"},
                                                            {ActionKind::drain_node, "n2"},
                                                            {ActionKind::requeue, ""}}));
    const auto pending = test::diagnose_text(
        "Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 63, pid=1, Row Remapper: New row "
        "marked for remapping, reset gpu to activate.");
    EXPECT_EQ(pending.xid, 63);
    EXPECT_FALSE(pending.node_condemned);
    EXPECT_EQ(pending.suggested_actions, (std::vector<Action>{{ActionKind::requeue, ""}}));
    const auto failed = test::diagnose_text(
        "Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 64, pid=1, Row Remapper: row "
        "remapping failed");
    EXPECT_TRUE(failed.node_condemned);
}

TEST(RuleAttribution, CondemnationNeedsAKnownNode) {
    // A condemning Xid with no way to tell the host: no exclusion, honest requeue only.
    const auto d =
        test::diagnose_text("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.");
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_TRUE(d.nodes.empty());
    EXPECT_FALSE(d.node_condemned);
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::requeue, ""}}));
}

}  // namespace
}  // namespace recovery
