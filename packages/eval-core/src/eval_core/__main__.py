"""`python -m eval_core` is the same CLI as the `eval` console script."""

from eval_core._cli.entry import main

main()
