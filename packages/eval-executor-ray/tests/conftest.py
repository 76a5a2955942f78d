"""One local Ray instance (2 CPUs, on loopback), shared by every test of the module that asks
for it; these tests run on one xdist worker (``TOGETHER`` in the root conftest.py), so one
process starts it.

A module's, not the session's: the Ray tests are one module and run first (``TOGETHER``), and
an instance kept for the session idled beside every later test on that worker (its GCS server,
raylet and idle workers: about 2 s of CPU a minute), stopped only at the session's end."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

from eval_executor_ray.executor import LOCAL_ENVIRONMENT


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """The GCS address of the session's Ray instance (``--address`` for a second driver)."""
    for name, value in LOCAL_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    import ray

    for attempt in (1, 2, 3):  # Ray gives its raylet a fixed 30 s: a busy machine can miss it
        try:
            ray.init(
                num_cpus=2,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.ERROR,
            )
            break
        except Exception:
            ray.shutdown()
            if attempt == 3:
                raise
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()
