#!/usr/bin/env python3
"""Score `supervisor diagnose --log FILE --json` on the field corpus, and peers on the same logs.

For each case in the corpus (NAME.log + NAME.expect, see tests/data/field/README.md) it runs the
supervisor exactly as a user would, one process per log with no Slurm facts, and compares the
cause and the first suggested action with the labels. It prints, per split: the accuracy of
cause and first action, code bugs given an automatic fix, `unknown` answers, per-cause precision
and recall, and the confusion matrix (rows: the label, columns: the answer), the held-out split also per
collection round; then the same for
each peer (cause only; a peer's first action is the README's table action for its cause).

Peers: `--peer grep` runs keyword_grep.sh beside this file; `--peer NAME=FILE` reads a peer's
answers from FILE (lines `CASE<TAB>CAUSE`, already mapped to our causes).

Misses are listed only for the dev split (`--misses`): held-out cases are scored, never read,
while rules change. Exit status 0 unless a tool could not be run.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# The README's table: the first action that goes with a cause when nothing names a node.
TABLE_ACTION = {
    "cuda_oom": "reduce_batch_size",
    "host_oom": "reduce_workers",
    "shm_exhausted": "reduce_workers",
    "nccl_timeout": "requeue",
    "nccl_network": "requeue",
    "gpu_xid": "requeue",
    "ecc_error": "requeue",
    "cuda_error": "requeue",
    "node_failure": "requeue",
    "time_limit": "extend_time_limit",
    "preemption": "requeue",
    "io_error": "requeue",
    "checkpoint_corrupt": "restore_older_checkpoint",
    "loss_nan": "restore_older_checkpoint",
    "credential_error": "escalate",
    "hang": "requeue",
    "code_bug": "escalate",
    "unknown": "escalate",
}


def load_cases(corpus):
    cases = []
    for expect in sorted(corpus.glob("*.expect")):
        label = tomllib.loads(expect.read_text())
        label["name"] = expect.stem
        label["log"] = expect.with_suffix(".log")
        cases.append(label)
    return cases


def first_action(actions):
    if not actions:
        return "none"
    head = actions[0]
    return head["action"] + (":" + head["argument"] if head["action"] == "set_env" else "")


def run_supervisor(binary, case):
    out = subprocess.run([binary, "diagnose", "--log", str(case["log"]), "--json"],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"{case['name']}: exit {out.returncode}: {out.stderr.strip()}")
    answer = json.loads(out.stdout)
    actions = [a["action"] for a in answer["actions"]]
    rules = sorted({e["rule"] for e in answer.get("evidence", []) if e.get("supports_cause")})
    return {"cause": answer["cause"], "action": first_action(answer["actions"]),
            "auto_fix": any(a != "escalate" for a in actions),
            "decided_by": answer["cause"] + ": " + (" + ".join(rules) or "(no rule)")}


def peer_answers(spec, cases):
    if spec == "grep":
        logs = [str(c["log"]) for c in cases]
        out = subprocess.run([str(HERE / "keyword_grep.sh"), *logs], capture_output=True,
                             text=True, check=True)
        text = out.stdout
    else:
        text = pathlib.Path(spec).read_text()
    causes = dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)
    answers = {}
    for case in cases:
        cause = causes.get(case["name"], "unknown").strip()
        action = TABLE_ACTION.get(cause, "escalate")
        answers[case["name"]] = {"cause": cause, "action": action,
                                 "auto_fix": action != "escalate"}
    return answers


def report(title, cases, answers, show_misses):
    n = len(cases)
    if n == 0:
        print(f"### {title}: no cases\n")
        return
    right_cause = sum(answers[c["name"]]["cause"] == c["cause"] for c in cases)
    right_action = sum(answers[c["name"]]["action"] == c["action"] for c in cases)
    code_bugs = [c for c in cases if c["cause"] == "code_bug"]
    fixed_bugs = [c["name"] for c in code_bugs if answers[c["name"]]["auto_fix"]]
    unknowns = sum(answers[c["name"]]["cause"] == "unknown" for c in cases)
    labelled_unknown = sum(c["cause"] == "unknown" for c in cases)
    print(f"### {title}\n")
    print(f"| cases | right cause | right first action | code bugs given an automatic fix "
          f"| answered unknown (labelled unknown) |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {n} | {right_cause} ({100 * right_cause / n:.1f} %) "
          f"| {right_action} ({100 * right_action / n:.1f} %) "
          f"| {len(fixed_bugs)} of {len(code_bugs)} | {unknowns} ({labelled_unknown}) |\n")
    # Cases a keyword reading gets wrong by design (the thread concluded against the log's
    # look) apart from the rest, which are the logs a person reads at a glance.
    for title, part in (("not marked misleading", [c for c in cases if not c.get("misleading")]),
                        ("marked misleading", [c for c in cases if c.get("misleading")])):
        if part:
            cause_ok = sum(answers[c["name"]]["cause"] == c["cause"] for c in part)
            action_ok = sum(answers[c["name"]]["action"] == c["action"] for c in part)
            print(f"- {title}: {len(part)} cases, right cause {cause_ok} "
                  f"({100 * cause_ok / len(part):.1f} %), right first action {action_ok} "
                  f"({100 * action_ok / len(part):.1f} %)")
    print()
    if fixed_bugs and show_misses:
        print("Code bugs given an automatic fix: " + ", ".join(fixed_bugs) + "\n")
        rule_costs(cases, answers)

    labels = sorted({c["cause"] for c in cases} | {answers[c["name"]]["cause"] for c in cases})
    confusion = collections.Counter((c["cause"], answers[c["name"]]["cause"]) for c in cases)
    print("| cause | labelled | answered | right | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for cause in labels:
        labelled = sum(v for (l, _), v in confusion.items() if l == cause)
        answered = sum(v for (_, a), v in confusion.items() if a == cause)
        right = confusion[(cause, cause)]
        precision = f"{right / answered:.2f}" if answered else "—"
        recall = f"{right / labelled:.2f}" if labelled else "—"
        print(f"| {cause} | {labelled} | {answered} | {right} | {precision} | {recall} |")
    print()
    print("Confusion (rows: label, columns: answer; only non-zero columns):\n")
    columns = [a for a in labels if any(confusion[(l, a)] for l in labels)]
    print("| label \\ answer | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for label in labels:
        if not any(confusion[(label, a)] for a in columns):
            continue
        cells = [str(confusion[(label, a)]) if confusion[(label, a)] else "." for a in columns]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    if show_misses:
        for c in cases:
            a = answers[c["name"]]
            if a["cause"] != c["cause"] or a["action"] != c["action"]:
                print(f"- miss {c['name']}: label {c['cause']}/{c['action']}, "
                      f"answer {a['cause']}/{a['action']}")
        print()


def rule_costs(cases, answers):
    """What gating each deciding rule set would trade: its code bugs given a fix against its
    right automatic first actions (the recoveries a gate on it would lose)."""
    per = collections.defaultdict(lambda: [0, 0])
    for c in cases:
        a = answers[c["name"]]
        if "decided_by" not in a or not a["auto_fix"]:
            continue
        if c["cause"] == "code_bug":
            per[a["decided_by"]][0] += 1
        elif a["action"] == c["action"]:
            per[a["decided_by"]][1] += 1
    rows = sorted(((k, v) for k, v in per.items() if v[0]), key=lambda kv: (-kv[1][0], kv[0]))
    if rows:
        print("| decided by (cause: rules) | code bugs given a fix | right automatic first actions |")
        print("|---|---:|---:|")
        for key, (bugs, right) in rows:
            print(f"| {key} | {bugs} | {right} |")
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--supervisor", default=str(ROOT / "build/src/supervisor"))
    parser.add_argument("--corpus", default=str(ROOT / "tests/data/field"))
    parser.add_argument("--peer", action="append", default=[],
                        help="'grep', or NAME=FILE with CASE<TAB>CAUSE lines")
    parser.add_argument("--misses", action="store_true",
                        help="list the dev split's misses, and per deciding rule its code bugs "
                             "given a fix against its right automatic first actions")
    args = parser.parse_args()

    cases = load_cases(pathlib.Path(args.corpus))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        ours = dict(zip((c["name"] for c in cases),
                        pool.map(lambda c: run_supervisor(args.supervisor, c), cases)))
    held_out = [c for c in cases if c.get("split") == "held_out"]
    splits = [("dev", [c for c in cases if c.get("split") == "dev"]), ("held_out", held_out)]
    for collection in sorted({c.get("round", 1) for c in held_out}):
        splits.append((f"held_out, round {collection}",
                       [c for c in held_out if c.get("round", 1) == collection]))
    unstamped = [c["name"] for c in cases if c.get("split") not in ("dev", "held_out")]
    if unstamped:
        print(f"warning: {len(unstamped)} cases have no split (run split.py)", file=sys.stderr)

    print(f"## slurm-supervisor ({args.supervisor})\n")
    for split, members in splits:
        report(f"supervisor, {split}", members, ours, args.misses and split == "dev")
    for spec in args.peer:
        name, _, source = spec.partition("=") if "=" in spec else (spec, "", spec)
        answers = peer_answers(source, cases)
        print(f"## peer: {name}\n")
        for split, members in splits:
            report(f"{name}, {split}", members, answers, False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
