"""`python -m eval_core` is the same CLI as the `eval` console script."""

from eval_core.cli import main

main()
