#!/usr/bin/python3
"""Plays a GPU node's DCGM exporter in the node-evidence integration tests.

    dcgm_push.py PUSHGATEWAY PROMETHEUS NODE METRIC VALUE [JOB]

POSTs `METRIC{gpu="0"} VALUE` to the Pushgateway's group job=JOB ("dcgm" unless given; another
plays a user forging the node's telemetry), Hostname=NODE, then waits
(60 s at most) until Prometheus has scraped it, so the job that runs this fails only once the
telemetry shows what it is about to fail of. Exits 1 when either step fails."""
import json
import sys
import time
import urllib.parse
import urllib.request


def main() -> int:
    pushgateway, prometheus, node, metric, value = sys.argv[1:6]
    job = sys.argv[6] if len(sys.argv) > 6 else "dcgm"
    body = f'{metric}{{gpu="0"}} {value}\n'.encode()
    url = (f"{pushgateway}/metrics/job/{urllib.parse.quote(job, safe='')}"
           f"/Hostname/{urllib.parse.quote(node, safe='')}")
    urllib.request.urlopen(urllib.request.Request(url, data=body, method="POST"), timeout=10)
    query = urllib.parse.urlencode(
        {"query": f'{metric}{{Hostname="{node}",gpu="0",job="{job}"}}'})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{prometheus}/api/v1/query?{query}", timeout=10) as answer:
            result = json.load(answer)["data"]["result"]
        if any(float(sample["value"][1]) == float(value) for sample in result):
            return 0
        time.sleep(0.1)
    print(f"dcgm_push: Prometheus did not show {metric}={value} for {node}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
