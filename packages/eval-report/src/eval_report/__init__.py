"""eval-report: a saved Sweep read back, outside the core.

``eval report`` writes one self-contained HTML file from trial logs and saved Scorecards;
``eval rescore`` re-scores a trial log's recorded Evidence with the installed plug-ins. Both
are sub-commands added through the ``eval.commands`` hook, so the core stays small and a
machine that only sweeps need not install a template engine.
"""
