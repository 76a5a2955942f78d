"""``python -m eval_local_model [--slots N] [--port P] [--threads T]``: serve the local model.

Starts llama.cpp's OpenAI-compatible server on 127.0.0.1 (a free port unless ``--port``), with
``--slots`` parallel slots, prints the pin to add to a models file, and serves until Ctrl-C or
SIGTERM. Exit 2, saying how to install them, when the server or the weights are not installed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from eval_local_model.server import announce, serve
from eval_local_model.weights import missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eval_local_model", description=(__doc__ or "").split("\n\n")[1]
    )
    parser.add_argument("--slots", type=int, default=1, help="requests served at once")
    parser.add_argument("--port", type=int, default=0, help="0 (the default): a free port")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default 1)")
    args = parser.parse_args(argv)
    if not 1 <= args.slots <= 16 or not 0 <= args.port <= 65535:
        parser.error("--slots must be 1 to 16 and --port 0 to 65535")
    why = missing()
    if why is not None:
        print(f"eval-local-model: {why}", file=sys.stderr)
        return 2
    server = serve(slots=args.slots, port=args.port, threads=args.threads)
    announce(f"{server.listening_address}/v1", args.slots, sys.stdout)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    sys.stdout.flush()
    os._exit(0)  # the server's native threads end with the process, not with a join


if __name__ == "__main__":
    raise SystemExit(main())
