"""The platform Tools' declarations as data, one module per domain, each a ``DECLARED`` tuple.

:data:`agent_runtime.tools.PLATFORM_TOOLS` gathers them by name."""
