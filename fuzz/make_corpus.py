#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/): small, real-looking
examples of each input. The files are checked in; run this again only to refresh them (it
rewrites the seeds it makes and leaves other files, such as kept crash inputs, alone).

    python3 fuzz/make_corpus.py            # from the repository root

Zips come from Python's zipfile (stored, deflated, data descriptors, Zip64 extras) and from a
small writer below that lays out an archive the way torch.save does (Zip64 end record and
locator always present); the two real torch.save files of tests/data/checkpoints are copied.
Logs come from tests/data/diagnosis, with the Slurm facts of their .expect files.
"""
import io
import json
import os
import shutil
import struct
import sys
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


# ------------------------------------------------------------------------------------ zip
def python_zip(entries, compression=zipfile.ZIP_STORED, force_zip64=False, comment=b"",
               streamed=False):
    buffer = io.BytesIO()

    class Unseekable(io.RawIOBase):  # zipfile writes data descriptors when it cannot seek
        def writable(self):
            return True

        def write(self, b):
            return buffer.write(b)

    target = Unseekable() if streamed else buffer
    with zipfile.ZipFile(target, "w", compression=compression) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2025, 3, 2, 10, 14, 7))
            info.compress_type = compression
            with archive.open(info, "w", force_zip64=force_zip64) as f:
                f.write(data)
        archive.comment = comment
    return buffer.getvalue()


def torch_like_zip(entries, zip64=True):
    """Stored entries, each local header padded like torch's writer, then the central
    directory, the Zip64 end record and locator, and the classic end record."""
    out = bytearray()
    central = bytearray()
    for name, data in entries:
        name = name.encode()
        offset = len(out)
        crc = zipfile.crc32(data) & 0xFFFFFFFF
        pad = (64 - (offset + 30 + len(name) + 4) % 64) % 64
        extra = struct.pack("<HH", 0xFB1E, pad) + b"Z" * pad
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, 0, 0, 0, 0, crc,
                           len(data), len(data), len(name), len(extra))
        out += name + extra + data
        c_extra = b""
        sizes = (len(data), len(data), offset)
        if zip64:
            c_extra = struct.pack("<HHQQQ", 0x0001, 24, *sizes)
            sizes = (0xFFFFFFFF,) * 3
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0, crc,
                               sizes[0], sizes[1], len(name), len(c_extra), 0, 0, 0, 0,
                               sizes[2])
        central += name + c_extra
    directory_at = len(out)
    out += central
    count = len(entries)
    if zip64:
        record_at = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count,
                           len(central), directory_at)
        out += struct.pack("<IIQI", 0x07064B50, 0, record_at, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                           0xFFFFFFFF, 0)
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(central),
                           directory_at, 0)
    return bytes(out)


TORCH_ENTRIES = [
    ("archive/data.pkl", b"\x80\x02}q\x00(X\x04\x00\x00\x00stepq\x01K\x14u."),
    ("archive/byteorder", b"little"),
    ("archive/data/0", bytes(range(48))),
    ("archive/version", b"3\n"),
    (".data/serialization_id", b"1234567890123456789012345678901234567890"),
]


def zip_seeds():
    fixtures = os.path.join(ROOT, "tests", "data", "checkpoints")
    for name in ("torch_zip.pt", "torch_legacy.pt"):
        shutil.copyfile(os.path.join(fixtures, name), os.path.join(CORPUS, "zip", name))
    write("zip", "torch_like_zip64.pt", torch_like_zip(TORCH_ENTRIES))
    write("zip", "torch_like_classic.pt", torch_like_zip(TORCH_ENTRIES[:3], zip64=False))
    write("zip", "stored.zip", python_zip([("a.txt", b"hello\n"), ("dir/b.bin", b"\0" * 16)]))
    write("zip", "deflated.zip",
          python_zip([("archive/data.pkl", b"x" * 200)], compression=zipfile.ZIP_DEFLATED))
    write("zip", "zip64_extras.zip", python_zip(TORCH_ENTRIES[:2], force_zip64=True))
    write("zip", "data_descriptor.zip", python_zip(TORCH_ENTRIES[:2], streamed=True))
    write("zip", "comment.zip", python_zip([("last.ckpt/data.pkl", b"}.")], comment=b"epoch=3"))
    write("zip", "empty.zip", python_zip([]))
    whole = torch_like_zip(TORCH_ENTRIES)
    write("zip", "cut_short.pt", whole[: len(whole) - 30])
    write("zip", "legacy_bad_magic.pt", b"\x80\x02\x8a\x0a" + b"\0" * 12)


# ---------------------------------------------------------------------------- safetensors
def safetensors(tensors, metadata=None, pad=0, cut=0, header_extra=b""):
    header = {}
    data = b""
    for name, dtype, shape, size in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + size]}
        data += bytes((i * 7) & 0xFF for i in range(size))
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode() + header_extra + b" " * pad
    blob = struct.pack("<Q", len(text)) + text + data
    return blob[: len(blob) - cut] if cut else blob


def safetensors_seeds():
    write("safetensors", "two_tensors.safetensors",
          safetensors([("weight", "F32", [4, 3], 48), ("bias", "F32", [4], 16)]))
    write("safetensors", "metadata.safetensors",
          safetensors([("model.embed.weight", "BF16", [8, 2], 32)], {"format": "pt"}))
    write("safetensors", "dtypes.safetensors",
          safetensors([("a", "I64", [2], 16), ("b", "F16", [3], 6), ("c", "BOOL", [5], 5),
                       ("d", "U8", [], 1), ("e", "F8_E4M3", [2, 2], 4), ("f", "I32", [0], 0)]))
    write("safetensors", "padded_header.safetensors",
          safetensors([("x", "F64", [1, 1], 8)], pad=5))
    write("safetensors", "unknown_dtype.safetensors", safetensors([("q", "Q4_K", [32], 18)]))
    write("safetensors", "truncated.safetensors",
          safetensors([("weight", "F32", [16], 64)], cut=10))
    write("safetensors", "shape_mismatch.safetensors", safetensors([("w", "F32", [3], 8)]))
    write("safetensors", "empty_header.safetensors", struct.pack("<Q", 2) + b"{}")
    write("safetensors", "not_json.safetensors", struct.pack("<Q", 5) + b"{\"a\":")


# ------------------------------------------------------------------------- checkpoint_dir
def checkpoint_dir_seeds():
    state = json.dumps({"global_step": 10, "epoch": 0.5, "log_history": [{"loss": 2.1}]})
    index = json.dumps({"metadata": {"total_size": 96},
                        "weight_map": {"model.embed.weight": "model.safetensors",
                                       "lm_head.weight": "model.safetensors"}})
    tensors = safetensors([("model.embed.weight", "F32", [4, 3], 48),
                           ("lm_head.weight", "F32", [12], 48)])
    metadata = (b"\x80\x04\x95\x10\x01\x00\x00\x00\x00\x00\x00\x8c\x1etorch.distributed."
                b"checkpoint\x94\x8c\x0c__0_0.distcp\x94\x8c\x0c__1_0.distcp\x94.")
    sep = b"\n====\n"

    def sections(*parts):
        return sep.join(p if isinstance(p, bytes) else p.encode() for p in parts)

    write("checkpoint_dir", "huggingface_full",
          sections(state, index, "global_step10\n", "300\n", metadata, tensors))
    write("checkpoint_dir", "huggingface_single_weights",
          sections(state, "", "", "", "", tensors))
    write("checkpoint_dir", "deepspeed_tag_only", sections(state, "{}", "global_step10"))
    write("checkpoint_dir", "trackers_release",
          sections("{", "not json", "global_step20", "release", b"", b""))
    write("checkpoint_dir", "megatron_iteration",
          sections("{}", "{\"weight_map\": {\"a\": \"missing.bin\"}}", "..", "100"))
    write("checkpoint_dir", "dcp_metadata_missing_shard",
          sections("{}", "{}", "", "0000100", b"x\x8c\x0c__7_0.distcp\x94.", b""))
    write("checkpoint_dir", "names",
          sections("epoch=3-step=900.ckpt", "*step*", "tmp-global_step40.tmp",
                   "iter_0000300", "checkpoint-500.partial", "model-00001-of-00002.bin"))


# --------------------------------------------------------------- logs: excerpt, diagnosis
def diagnosis_cases():
    directory = os.path.join(ROOT, "tests", "data", "diagnosis")
    cases = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".log"):
            continue
        stem = name[:-4]
        with open(os.path.join(directory, name), "rb") as f:
            log = f.read()
        with open(os.path.join(directory, stem + ".expect"), "rb") as f:
            expect = tomllib.load(f)
        cases.append((stem, log, expect))
    return cases


def facts_line(expect):
    states = ";".join(f"{n['name']}:{n['state']}:{n.get('reason', '')}"
                      for n in expect.get("node_states", []))
    fields = [expect.get("slurm_state", ""), str(expect.get("exit_code", "")),
              str(expect.get("signal", "")), "", expect.get("node_list", ""), states, ""]
    return "|".join(fields).encode() + b"\n"


def log_seeds():
    cases = diagnosis_cases()
    # One case per cause, the smallest, until about 20 seeds.
    seen = set()
    chosen = []
    for stem, log, expect in sorted(cases, key=lambda c: len(c[1])):
        if expect["cause"] not in seen:
            seen.add(expect["cause"])
            chosen.append((stem, log, expect))
    for stem, log, expect in chosen[:18]:
        write("diagnosis", stem, facts_line(expect) + log)
    # Two logs of one job (stdout, then kernel log after a NUL), and a facts-only case.
    by_name = {stem: (log, expect) for stem, log, expect in cases}
    if len(chosen) >= 2:
        write("diagnosis", "two_logs",
              facts_line(chosen[0][2]) + chosen[0][1] + b"\0" + chosen[1][1])
    write("diagnosis", "facts_only",
          b"NODE_FAIL|||NodeDown|n[1-4]|n2:DOWN*:Not responding;n3:IDLE:|1\n")

    # log_excerpt: mode, head, tail, stream bytes, then the log.
    samples = [c[1] for c in chosen[:6]]
    modes = [(0, 0, 0, 0), (1, 64, 128, 0), (1, 255, 255, 0), (2, 40, 80, 0), (2, 200, 30, 9),
             (1, 0, 16, 0), (2, 0, 0, 1), (1, 17, 3, 0)]
    for i, (mode, head, tail, stream) in enumerate(modes):
        log = samples[i % len(samples)]
        write("log_excerpt", f"mode{mode}_{head}_{tail}_{stream}_{i}",
              bytes([mode, head, tail, stream]) + log[:3000])
    write("log_excerpt", "crlf_and_partial_lines",
          bytes([1, 10, 10, 0]) + b"first\r\nsecond line\r\n\r\nno newline at end")
    write("log_excerpt", "only_newlines", bytes([2, 3, 3, 0]) + b"\n" * 40)


# -------------------------------------------------------------------------- rules_toml
def rules_toml_seeds():
    with open(os.path.join(ROOT, "recovery", "rules", "default.toml"), "rb") as f:
        text = f.read().decode()
    blocks = text.split("[[rule]]")
    header = "version = 1\n"
    write("rules_toml", "default_head.toml", "[[rule]]".join(blocks[:8]))
    write("rules_toml", "default_tail.toml", header + "[[rule]]" + "[[rule]]".join(blocks[-6:]))
    write("rules_toml", "groups.toml", header + """
[[rule]]
id = "site.xid"
cause = "gpu_xid"
pattern = 'NVRM: Xid \\(PCI:[0-9a-f:.]+\\): (?P<xid>[0-9]+)'
xid_group = "xid"
condemns_node = true
source = "site"

[[rule]]
id = "site.rank"
cause = "code_bug"
pattern = '^\\[rank(?P<rank>[0-9]+)\\]: .*Error'
rank_group = "rank"
actions = ["escalate"]
source = "site"

[[rule]]
id = "site.node"
cause = "nccl_network"
pattern = '(?P<host>[a-z0-9-]+):[0-9]+:[0-9]+ \\[[0-9]+\\] NCCL'
node_group = "host"
weight = 0.5
priority = 420
actions = ["requeue", "exclude_node", "set_env:NCCL_SOCKET_IFNAME"]
source = "site"
""")
    write("rules_toml", "override.toml", header + """
[[rule]]
id = "torch.cuda_oom"
cause = "cuda_oom"
pattern = 'CUDA out of memory'
source = "base"

[[rule]]
id = "kernel.oom_kill"
cause = "host_oom"
pattern = 'Out of memory: Kill'
source = "base"
#---
version = 1
[[rule]]
id = "torch.cuda_oom"
disabled = true

[[rule]]
id = "kernel.oom_kill"
cause = "host_oom"
pattern = '(Memory cgroup out of memory|Out of memory): Kill(ed)? process [0-9]+'
weight = 1
actions = ["reduce_workers", "requeue"]
source = "site override"
""")
    write("rules_toml", "bad_group.toml",
          "[[rule]]\nid = \"x\"\ncause = \"hang\"\npattern = 'a(b)'\nnode_group = \"n\"\n"
          "source = \"s\"\n")
    write("rules_toml", "bad_syntax.toml", "version = 1\n[[rule]\nid = \"x\n")
    write("rules_toml", "bad_disable.toml", "#---\n[[rule]]\nid = \"nothing\"\ndisabled = true\n")


# ------------------------------------------------------------------------- config_toml
def config_toml_seeds():
    write("config_toml", "readme_example.toml", """poll_interval_ms = 10000   # time between two looks at Slurm
max_backoff_ms = 60000
start_delay_s = 2
requeue_backoff_s = 60
requeue_backoff_max_s = 1800
same_failure_limit = 3
max_excluded_nodes = 2
time_limit_max_factor = 2
log_head_bytes = 65536
log_tail_bytes = 4194304
rules = ["/etc/slurm-supervisor/site-rules.toml"]
metrics_file = "/var/lib/prometheus/node-exporter/slurm-supervisor.prom"

[notify]
smtp_url = "smtp://mail.example.org:587"
smtp_from = "slurm-supervisor@example.org"
smtp_secrets_file = "/etc/slurm-supervisor/smtp.secret"
default_targets = ["mailto:hpc-team@example.org"]
""")
    write("config_toml", "notify_full.toml", """[notify]
smtp_url = "smtps://mail.example.org:465"
smtp_tls = "required"
twilio_base_url = "http://127.0.0.1:8025"
twilio_account_sid = "AC0123456789abcdef"
twilio_from = "+15550001111"
twilio_secrets_file = "/etc/slurm-supervisor/twilio.secret"
default_targets = ["sms:+15551234567", "https://hooks.example.org/T000/B000", "mailto:a@b.c"]
retry_initial_s = 30
retry_max_s = 3600
cooldown_s = 3600
sms_per_hour = 4
timeout_s = 30
""")
    write("config_toml", "small.toml",
          "log_head_bytes = 1024\nlog_tail_bytes = 4096\nrules = [\"/etc/a.toml\", \"b.toml\"]\n")
    write("config_toml", "errors.toml", "poll_interval_ms = -5\nrules = \"one.toml\"\n")
    write("config_toml", "unknown_key.toml", "pol_interval_ms = 10\n[notify]\nsmtp_tls = \"maybe\"\n")
    write("config_toml", "inline_tables.toml",
          "notify = { retry_initial_s = 7200, retry_max_s = 60 }\nmetrics_file = \"relative.prom\"\n")
    write("config_toml", "empty.toml", "")


# ------------------------------------------------------------------------------- sbatch
def sbatch_seeds():
    write("sbatch_directives", "full.sh", """#!/bin/bash
#SBATCH -J train --nodes=4 --ntasks-per-node=8
#SBATCH --gres=gpu:8 --time=24:00:00 --open-mode=append --parsable
#SUPERVISOR --checkpoint-dir /scratch/run1/ckpt
#SUPERVISOR --allow requeue,reduce_batch_size --max-attempts 4
#SUPERVISOR --knob batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM
#SUPERVISOR --stall-timeout 20s --notify mailto:a@example.org --notify https://hook.example.org/x

srun python train.py
#SUPERVISOR --max-attempts 9
""")
    write("sbatch_directives", "quoting.sh",
          "#!/bin/sh\n#SUPERVISOR --progress-pattern '^step [0-9]+/'  # the step lines\n"
          "#SUPERVISOR --checkpoint-dir \"/scratch/my run\" --checkpoint-pattern 'ckpt_*'\n"
          "#SUPERVISOR --checkpoint-marker .done --allow set_env:NCCL_SOCKET_IFNAME=ib0\n"
          "#SBATCH --no-requeue\n#SBATCH --wrap=\"echo\\ hi\"\n")
    write("sbatch_directives", "repeated.sh",
          "#SUPERVISOR --allow requeue\n#SUPERVISOR --allow exclude_node\n"
          "#SUPERVISOR --knob batch_size=64:env=BS\n#SUPERVISOR --knob workers=8:env=NW\n"
          "#SUPERVISOR --max-attempts 2\n#SUPERVISOR --max-attempts 3\n")
    write("sbatch_directives", "errors.sh",
          "#\n#SUPERVISOR --alow requeue\n#SUPERVISOR --stall-timeout 5x\n"
          "#SUPERVISOR --progress-pattern 'step ('\n#SUPERVISOR --checkpoint-dir \"/a\n")
    write("sbatch_directives", "not_directives.sh",
          " #SUPERVISOR --allow fly\n#SUPERVISORS --allow fly\n## SUPERVISOR --allow fly\n"
          "#SBATCHX -Q\n\tsrun true\n")
    write("sbatch_arguments", "typical",
          b"\0".join([b"--parsable", b"-J", b"train", b"-N4", b"--gres=gpu:8", b"--time",
                      b"1:00:00", b"train.sh", b"--lr", b"0.1"]))
    write("sbatch_arguments", "double_dash",
          b"\0".join([b"-H", b"--open-mode=append", b"--", b"run.sh", b"-x"]))
    write("sbatch_arguments", "wrap", b"\0".join([b"--wrap", b"srun hostname", b"-W", b"-Q"]))
    write("sbatch_arguments", "short_clusters", b"\0".join([b"-vQJname", b"-o", b"%x-%j.out",
                                                            b"--no-requeue", b"script"]))
    write("sbatch_arguments", "value_at_end", b"\0".join([b"--test-only", b"--nice=5", b"-J"]))


# ---------------------------------------------------------- small values and structures
def value_seeds():
    for i, (pattern, ctx) in enumerate([
            ("/logs/%x-%j.out", "train\nana\nn1\n/home/ana\n"),
            ("slurm-%A_%4a.out", "x\nu\nn\n/w\n"),
            ("%%j %u %N %J %s %t %n %10j %99999999999a", "name\nuser\nnode\n\n"),
            ("relative/%x.err", "job name with spaces\nu\nn\n/scratch/run/\n"),
            ("", "j\nu\nn\n/w\n"),
            ("trailing%", "j\nu\nn\n/w\n"),
            ("%5", "j\nu\nn\n/w\n")]):
        write("output_path", f"pattern{i}",
              pattern.encode() + b"\n" + ctx.encode() + bytes([0, 0, 18, 99, i % 4, 7]))

    for i, text in enumerate(["n[1-3,5],gpu-a[01-10]", "n1", "node[001-003]-ib,login1",
                              "gpu[08-10]", "a[1-2],b[3],c", "x[5-3]", "y[", "z]", "n[1-3",
                              "n[00-99]", "n3.cluster.local,10.0.0.12", "n[1-2]suffix,,",
                              "n[0-99999]", "n[0-100000]"]):
        write("hostlist", f"list{i}", text)

    for i, (nodes, text) in enumerate([
            ("n1,n2", "0: n1:10:10 [0] NCCL INFO Using network IB\n"
                      "1: n2:20:21 [0] NCCL INFO Using network Socket\nstep 1/100\n"),
            ("hpc-25-14,hpc-25-15", "hpc-25-14:18622:18622 [1] NCCL INFO Using network IB\n"
                                    "hpc-25-15:21476:21476 [2] NCCL INFO NET/IB : Using "
                                    "[0]mlx5_0:1/IB ; OOB em1:172.18.28.82<0>\n"
                                    "hpc-25-15:21476:21476 [2] NCCL INFO Using network IB\n"),
            ("n1,n1,n2", "[rank0]:n1.cluster:1:1 [0] NCCL INFO Using network Socket\n"
                         "n2:2:2 [7] NCCL INFO Using network AWS Libfabric\n"),
            ("a", "a:1:2 [0] NCCL INFO Using network Socket")]):
        write("nccl_transport", f"log{i}", nodes + "\n" + text)

    for i, text in enumerate(["1234", "1234_7", "4294967293", "4294967293_0", "0", "1234_",
                              "_7", "1234_[1-3]", "1234+0", "01234", "99999999999"]):
        write("job_id", f"id{i}", text)

    request = {
        "script": "#!/bin/bash\n#SBATCH -N 2\nsrun python train.py\n", "name": "train",
        "partition": "gpu", "account": "proj", "qos": "normal", "work_dir": "/home/ana/run",
        "std_out": "/home/ana/run/train-1234.out", "std_err": "", "std_in": "",
        "open_mode_append": True, "time_limit": 1440, "min_nodes": 2, "max_nodes": None,
        "num_tasks": 16, "ntasks_per_node": 8, "cpus_per_task": None, "pn_min_memory": 4096,
        "mem_per_cpu": True, "tres_per_node": "gres:gpu:8", "excluded_nodes": "n3",
        "required_nodes": "", "comment": "supervised", "requeue": True, "hold": False,
        "environment": ["PATH=/usr/bin", "HOME=/home/ana", {"bytes_hex": "4c414e473dff"}],
        "argv": ["/home/ana/run/train.sh", "--lr", "0.1"], "user_id": 1000, "group_id": None}
    write("submit_request_json", "request.json", json.dumps(request, indent=1))
    raw = dict(request, name={"bytes_hex": "747261696e80"}, argv=[], environment=[],
               user_id=None, time_limit=None, ntasks_per_node=65535, pn_min_memory=2**63)
    write("submit_request_json", "bytes_hex.json", json.dumps(raw))
    write("submit_request_json", "unknown_key.json", json.dumps(dict(request, extra=1)))
    missing = dict(request)
    del missing["hold"]
    write("submit_request_json", "missing_key.json", json.dumps(missing))
    write("submit_request_json", "wrong_range.json",
          json.dumps(dict(request, ntasks_per_node=70000, min_nodes=-1)))
    write("submit_request_json", "not_object.json", "[1, 2, 3]")
    carried = dict(request, features="a100&ib", sharing="exclusive", reservation="maint",
                   licenses="matlab:2", time_min=60, nice=-5, wckey="proj", mail_type=3,
                   mail_user="ana@example.org", dependency="afterok:1233?afterany:1230_*",
                   tres_per_job="gres:gpu:8", tres_per_task="gres:gpu:1", tres_per_socket="",
                   cpus_per_tres="gres:gpu:4", mem_per_tres="", ntasks_per_tres=None,
                   tres_bind="gpu:closest", tres_freq="", ntasks_per_socket=None,
                   ntasks_per_core=1, sockets_per_node=2, cores_per_socket=None,
                   threads_per_core=1)
    write("submit_request_json", "request_carried.json", json.dumps(carried, indent=1))
    write("submit_request_json", "wrong_later_key.json",
          json.dumps(dict(carried, sharing="shared", nice=2**64 - 1)))

    write("progress_pattern", "step", "^step [0-9]+/\nstep 1/100 loss 2.1\nnoise\n"
          "step 2/100 loss 2.0\r\nmore noise\n")
    write("progress_pattern", "iteration",
          "iteration +(?P<it>[0-9]+)/ +[0-9]+ \\|\n iteration      300/  100000 | loss 1.9\n"
          " iteration      400/  100000 | loss 1.8\n")
    write("progress_pattern", "global_step", "global_step=(\\d+)\n{'global_step=10'}\n\n\n")
    write("progress_pattern", "bad", "step (\nstep 1\n")
    write("progress_pattern", "anchors", "(?i)^EPOCH \\d+$\nepoch 1\nEpoch 2\r\nepoch 3 x\n")

    for i, lines in enumerate([
            [0, "batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM",
             "workers=8:env=NUM_WORKERS:min=0", "batch_size=64:env=BS:compensate=GA:"
             "compensate_value=4", "batch_size=sixty:env=BS", "workers=8:env=1X",
             "time_limit=60:env=T"],
            [1, "requeue", "exclude_node", "set_env", "set_env:NCCL_SOCKET_IFNAME=ib0",
             "reduce_batch_size", "extend_time_limit"],
            [1, "set_env:NCCL_IB_DISABLE", "set_env:LD_PRELOAD=/tmp/x", "fly"],
            [2, "30", "30m", "20s", "2h", "0", "5x", "-1", "43201m", "2592000s", "720h"],
            [3, "mailto:owner@example.org", "sms:+15551234567",
             "https://hooks.example.org/services/T0/B0", "http://127.0.0.1:8080/x",
             "mailto:a@b@c", "sms:+1", "https:///path", "mailto:x\r\nBcc: y@z"],
            [4, "24.11.5", "22.05.8", "25.05.0-0rc1", "23.02", "26.05.1", "99.11.0", "22.11.1",
             "20.02.7", "x.y"],
            [5, "requeue", "set_env:NCCL_SOCKET_IFNAME", "exclude_node:n2,n5", "set_env:",
             "drain_node", "escalate"],
            [6, "6000", "6000/h", "100/min", "1.5/s", "0", "0.4", "-5", "1e4", "inf",
             "1000000/s", "2000000/s", "6000/d", ".5", "99999999999999999999999999"]]):
        write("registration_values", f"kind{lines[0]}_{i}",
              bytes([lines[0]]) + "\n".join(lines[1:]).encode())

    message = {"job": "1234_7", "job_name": "train\u202e", "status": "recovering",
               "headline": "failed, recovering", "reason": "cuda_oom at step 18410",
               "cause": "cuda_oom", "summary": "CUDA out of memory on gpu-a07",
               "evidence": ["job.out:12: torch.OutOfMemoryError: CUDA out of memory.\r\nX"],
               "nodes": ["gpu-a07"], "checkpoint": "/scratch/ckpt/checkpoint-18000",
               "actions": ["requeue", "reduce_batch_size 64 -> 32"],
               "would_have_done": ["exclude_node gpu-a07"], "notes": ["\u001b[2J"],
               "next_step": "nothing", "attempt": 2}
    write("notify_message", "message.json", json.dumps(message))
    write("notify_message", "minimal.json", json.dumps({"job": "1", "status": "enabled"}))
    write("notify_message", "long_sms.json",
          json.dumps(dict(message, attempt=350, next_step="n" * 400, cause="c" * 100)))
    write("notify_message", "wrong_types.json",
          json.dumps({"job": 5, "evidence": "x", "nodes": [1, "n1", None],
                      "attempt": -1}))
    write("notify_message", "raw_bytes", b"\x00\x1b[31m\xc2\x85\xe2\x80\xae\xff\xfe\\x41\t\n")


def journal_payload_seeds():
    """Event data and step parameters as the daemon writes them, in earlier forms, damaged."""
    write("journal_payload", "diagnosis.json", json.dumps({
        "cause": "gpu_xid", "confidence": 0.99, "nodes": ["n2"], "node_condemned": True,
        "node_attribution": "", "xid": 79, "step": 90210,
        "evidence": [{"file": "slurm.out", "line": -3, "text": "NVRM: Xid 79", "rule": "x",
                      "cause": "gpu_xid", "supports_cause": True}],
        "actions": [{"action": "exclude_node", "argument": "n2"}],
        "slurm_facts": ["state FAILED"], "summary": "s", "attempt": 2,
        "checkpoint": "/ckpt/step_9000", "rejected_checkpoints": [], "notes": [],
        "correlation": {"repeated": []}}))
    write("journal_payload", "diagnosis_earlier.json", json.dumps({
        "cause": "nccl_timeout", "suggested_actions": ["set_env:NCCL_SOCKET_IFNAME", "requeue"],
        "attempt": 1}))
    write("journal_payload", "requeue_step.json", json.dumps({
        "argument": "", "expected_restart_count": 2, "start_delay_s": 30, "hold": True}))
    write("journal_payload", "resubmit_step.json", json.dumps({
        "exclude_nodes": ["n1"], "time_limit_minutes": 120, "cancel_running": True}))
    write("journal_payload", "observed.json", json.dumps({
        "state": "RUNNING", "restart_count": 0, "stall": {"timeout_s": 60}}))
    write("journal_payload", "wrong_types.json",
          json.dumps({"attempt": 1e400, "expected_restart_count": 2.5, "nodes": ["n1", 2],
                      "xid": "79", "minutes": -1e300, "hold": "yes"}).replace("Infinity", "1e400"))


def main():
    for seeds in (zip_seeds, safetensors_seeds, checkpoint_dir_seeds, log_seeds,
                  rules_toml_seeds, config_toml_seeds, sbatch_seeds, value_seeds,
                  journal_payload_seeds):
        if seeds is zip_seeds:
            os.makedirs(os.path.join(CORPUS, "zip"), exist_ok=True)
        seeds()
    return 0


if __name__ == "__main__":
    sys.exit(main())
