"""`python -m eval_cli` is the same CLI as the `eval` console script."""

from eval_cli.entry import main

main()
