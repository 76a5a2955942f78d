"""The release gate: Baselines (read, compared, promoted), ``eval compare``, and JUnit for CI.

A plug-in of the ``eval`` harness like any other: it judges each leg of ``eval sweep`` through
the Sweep's hooks (:mod:`eval_release.plugin`) and adds ``eval compare`` through the commands
hook (:mod:`eval_release.commands`). Its public names are in :mod:`eval_release.api`.
"""
