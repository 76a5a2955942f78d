"""Model bindings: real models reached over their wire formats, pinned, priced and preflighted.

A plug-in of the ``eval.plugins`` group like any family: it provides the core's model source
(:mod:`eval_bindings.source`) and the Judge client. Without it the scripted binding still runs.
"""
