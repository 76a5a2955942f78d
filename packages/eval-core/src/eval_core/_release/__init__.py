"""The release gate: Baselines, deltas, the Matrix, JUnit and rendering, and the eval sweep command
that ties them.
"""
