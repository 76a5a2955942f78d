"""What one model call costs the binding on the wire, before the vendor's own time.

    uv run python bench/wire_call.py [N]      (default N = 300)

A loopback OpenAI-wire vendor (``bench/loopback.py``, no delay) answers N calls of
``post_json`` on one kept connection. Prints the first call (it imports the HTTP client and
connects), then the per-call wall and CPU time of the rest: the binding's cost per model
request of a real-model Trial. CPU is this process's (client side), the figure that moves
least with a shared machine's load.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loopback import SlowVendor

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    vendor = SlowVendor(delay=0.0)
    url = f"{vendor.url}/chat/completions"
    started, cpu = time.perf_counter(), time.process_time()
    from eval_bindings.wire.transport import Connections, post_json

    with Connections() as client:
        post_json(client, url, {}, BODY, 10.0)
        first = time.perf_counter() - started, time.process_time() - cpu
        walls: list[float] = []
        cpu = time.process_time()
        for _ in range(count):
            began = time.perf_counter()
            post_json(client, url, {}, BODY, 10.0)
            walls.append(time.perf_counter() - began)
        per_cpu = (time.process_time() - cpu) / count
    vendor.close()
    print(
        f"first call (import + connect)  {first[0] * 1000:.1f} ms wall, "
        f"{first[1] * 1000:.1f} ms CPU"
    )
    print(
        f"each later call ({count})        median {statistics.median(walls) * 1000:.2f} ms wall, "
        f"{per_cpu * 1000:.2f} ms CPU"
    )


if __name__ == "__main__":
    main()
