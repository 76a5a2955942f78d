"""The `eval` command line: the core's commands and every command plug-in's, parsed by typer.

The core (eval-core) declares what a command is and does its work; this package is the
front-end: the console script, the flags, the help and its cache, the exit codes.
"""
