"""Running and scoring: a Trial, a Sweep of Trials, the scripted binding, the Scorecard they make,
and progress.
"""
