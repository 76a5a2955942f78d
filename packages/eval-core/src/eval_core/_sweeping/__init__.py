"""The Sweep driver: the flags of `eval sweep`, its legs, their trial logs, the text Scorecard
and the files a Sweep writes. The release gate is a plug-in (eval-release) on its hooks."""
