"""The exit codes of `eval`, one meaning each, and how `eval --help` explains them."""

from __future__ import annotations

CLEARED, NOT_CLEARED, COMPARISON_REFUSED, INTERRUPTED = 0, 1, 3, 130

EXIT_CODES = """Exit codes: 0 cleared; 1 not cleared (a NOT CLEARED block names each reason);
2 refused input or bad usage (malformed Corpus, broken or unpinned plug-ins, unknown flag, an
input over a limit, an empty --option=, an output path that cannot be written; also an output
write that failed after the Sweep or a Host that failed to close, with the Scorecard already on
stdout, and a stdout that is closed or full: one line on stderr); 3 comparison refused (different
corpusHash or model: no delta computed); 130 interrupted before the first Trial."""
