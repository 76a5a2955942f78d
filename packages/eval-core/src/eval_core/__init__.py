"""eval_core: the small core of an offline eval harness for tool-using LLM agents.

The public contract for plug-ins lives in :mod:`eval_core.hookspecs` and :mod:`eval_core.kinds`.
Nothing here names an Expectation kind, a fixture block or a runtime.
"""

__version__ = "0.1.0"
