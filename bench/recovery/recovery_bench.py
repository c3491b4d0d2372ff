#!/usr/bin/python3
"""Helper for bench/recovery/latency.sh and footprint.sh (stdlib only).

  watch JOBID [--floor] [--interval S] [--timeout S]
      Poll `squeue -j JOBID` every S seconds (default 0.05) with wall-clock timestamps in ms and
      follow one job through run 1 -> failure -> run 2. With --floor, act like the fastest
      possible person: at the first poll that shows the job no longer RUNNING, run
      `scontrol requeue` (retried while Slurm refuses it, e.g. still COMPLETING) and
      `scontrol update jobid=ID StartTime=now+2`. Prints one JSON object.
  latency-table RESULTS.jsonl
      Markdown table from the JSON lines latency.sh collected (watch output + supervisor facts).
  annotate --config C --method M --poll P WATCH_JSON [EVENTS_JSON_FILE]
      One JSON line for latency-table: the watch output, labelled, plus from
      `supervisor events --json` the times of "observed attempt 1 ended" (detected_ms) and
      "started attempt 2" (started2_event_ms).
  rusage -- CMD...
      Run CMD, print JSON {wall_s, user_s, sys_s} of it and its children.
"""
import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import time

RUNNING_STATES = {"RUNNING", "CONFIGURING"}
WAITING_STATES = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED"}


def now_ms():
    return time.time() * 1000.0


def slurm_seconds(text):
    """Slurm's whole-second local time 'YYYY-MM-DDTHH:MM:SS' -> epoch ms (None for N/A)."""
    if not text or text in ("N/A", "Unknown", "None"):
        return None
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp() * 1000.0


def iso_ms(text):
    """The supervisor's '2026-11-22T03:15:56.016Z' (UTC) -> epoch ms."""
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1000.0


def squeue(job):
    out = subprocess.run(["squeue", "-h", "-t", "all", "-j", job, "-o", "%T|%S|%e"],
                         capture_output=True, text=True).stdout.strip()
    if not out:
        return None, None, None
    state, start, end = (out.splitlines()[0].split("|") + ["", ""])[:3]
    return state, start, end


def watch(args):
    job, result = args.job, {"job": args.job, "floor": args.floor, "interval_s": args.interval}
    phase = "run1"  # run1 -> failed -> run2
    deadline = time.monotonic() + args.timeout
    polls = 0
    while time.monotonic() < deadline:
        t = now_ms()
        state, start, end = squeue(job)
        polls += 1
        if phase == "run1":
            if state in RUNNING_STATES:
                result.setdefault("seen_running1_ms", t)
                result["slurm_start1"] = start
            elif state is not None and "seen_running1_ms" in result:
                # after RUNNING, anything else is the failure, PENDING included: a fast requeue
                # can take the job from FAILED back to PENDING between two polls
                phase = "failed"
                result["seen_failed_ms"] = t
                result["seen_failed_state"] = state
                result["slurm_end1"] = end
                if args.floor:
                    tries = 0
                    while True:
                        tries += 1
                        r = subprocess.run(["scontrol", "requeue", job], capture_output=True, text=True)
                        if r.returncode == 0 or time.monotonic() > deadline:
                            break
                        time.sleep(args.interval)
                    result["requeue_tries"] = tries
                    result["requeued_ms"] = now_ms()
                    subprocess.run(["scontrol", "update", "jobid=" + job, "StartTime=now+2"],
                                   capture_output=True, text=True, check=True)
                    result["start_time_set_ms"] = now_ms()
        elif phase == "failed":
            if state in RUNNING_STATES:
                result["seen_running2_ms"] = t
                result["slurm_start2"] = start
                phase = "run2"
                break
        time.sleep(args.interval)
    result["polls"] = polls
    result["complete"] = phase == "run2"
    print(json.dumps(result))
    return 0 if phase == "run2" else 1


def fmt(values, unit_ms=True, digits=2):
    if not values:
        return "—", "—"
    scale = 1000.0 if unit_ms else 1.0
    med, top = statistics.median(values) / scale, max(values) / scale
    return f"{med:.{digits}f}", f"{top:.{digits}f}"


def latency_table(args):
    rows = {}
    for line in open(args.results):
        line = line.strip()
        if line:
            r = json.loads(line)
            rows.setdefault(r["config"], []).append(r)
    print("| method | poll interval | failures measured | detection: Slurm EndTime → detected (s), median / max "
          "| detection: outside poller saw the failure → detected (s), median / max "
          "| recovery: Slurm EndTime → Slurm StartTime of run 2 (s), median / max "
          "| recovery: Slurm EndTime → \"started attempt 2\" event (s), median / max "
          "| recovery: outside poller, failure seen → RUNNING seen (s), median / max |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for config, rs in rows.items():
        ok = [r for r in rs if r.get("complete")]
        det_slurm, det_ext, rec_slurm, rec_event, rec_ext = [], [], [], [], []
        for r in ok:
            e1 = slurm_seconds(r["slurm_end1"])
            s2 = slurm_seconds(r["slurm_start2"])
            detected = r.get("detected_ms") or r.get("seen_failed_ms")
            if e1 is not None and detected is not None:
                det_slurm.append(detected - e1)
            if r.get("detected_ms"):
                det_ext.append(r["detected_ms"] - r["seen_failed_ms"])
            if e1 is not None and s2 is not None:
                rec_slurm.append(s2 - e1)
            if e1 is not None and r.get("started2_event_ms"):
                rec_event.append(r["started2_event_ms"] - e1)
            rec_ext.append(r["seen_running2_ms"] - r["seen_failed_ms"])
        cells = [fmt(v, digits=d) for v, d in
                 ((det_slurm, 2), (det_ext, 2), (rec_slurm, 0), (rec_event, 2), (rec_ext, 2))]
        method = rs[0]["method"]
        poll = rs[0]["poll"]
        print(f"| {method} | {poll} | {len(ok)} of {len(rs)} | "
              + " | ".join(f"{m} / {x}" for m, x in cells) + " |")


def annotate(args):
    r = json.loads(args.watch)
    r.update({"config": args.config, "method": args.method, "poll": args.poll})
    if args.events:
        for e in json.load(open(args.events)):
            if e["kind"] == "observed" and e["message"].startswith("attempt 1 ended") and "detected_ms" not in r:
                r["detected_ms"] = iso_ms(e["at"])
            if e["kind"] == "started" and e.get("data", {}).get("attempt") == 2:
                r["started2_event_ms"] = iso_ms(e["at"])
    print(json.dumps(r))
    return 0


def rusage(args):
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.run(args.cmd).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"rc": rc, "wall_s": time.monotonic() - start,
                      "user_s": after.ru_utime - before.ru_utime,
                      "sys_s": after.ru_stime - before.ru_stime,
                      "maxrss_kb": after.ru_maxrss}))
    return rc


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("watch")
    w.add_argument("job")
    w.add_argument("--floor", action="store_true")
    w.add_argument("--interval", type=float, default=0.05)
    w.add_argument("--timeout", type=float, default=90)
    t = sub.add_parser("latency-table")
    t.add_argument("results")
    a = sub.add_parser("annotate")
    a.add_argument("--config", required=True)
    a.add_argument("--method", required=True)
    a.add_argument("--poll", required=True)
    a.add_argument("watch")
    a.add_argument("events", nargs="?")
    r = sub.add_parser("rusage")
    r.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command == "rusage" and args.cmd and args.cmd[0] == "--":
        args.cmd = args.cmd[1:]
    return {"watch": watch, "latency-table": latency_table, "annotate": annotate,
            "rusage": rusage}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
