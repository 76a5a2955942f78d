"""The author's scaffold: ``eval new-plugin`` (:mod:`eval_scaffold.scaffold`) and ``eval init``
(:mod:`eval_scaffold.starter`), added to ``eval`` through the commands hook
(:mod:`eval_scaffold.commands`)."""
