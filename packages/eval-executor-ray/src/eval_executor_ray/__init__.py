"""Ray as the executor of a Sweep: Trials run on a Ray cluster."""
