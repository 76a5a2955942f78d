"""The entry point of ``eval-executor-ray`` (group ``eval.executors``): the executor ``ray``.

Light on purpose: Ray is imported only when a Sweep opens the executor.
"""

from __future__ import annotations

from collections.abc import Mapping

from eval_core.hosts import Executor, ExecutorFactory, hookimpl


def ray_executor(address: str | None) -> Executor:
    from eval_executor_ray.executor import RayExecutor

    return RayExecutor(address)


@hookimpl
def eval_executors() -> Mapping[str, ExecutorFactory]:
    return {"ray": ray_executor}
