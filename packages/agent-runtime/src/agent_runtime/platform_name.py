"""The platform's own name, as the original's documents spell it: ``tulipfarm``.

This runtime reproduces that platform, and the Souls and Cases written for it carry its name in
three places this runtime reads: the ``apiVersion`` of a canonical Routine
(:data:`agent_runtime.routines.forms.API_VERSION`), the slug of the platform's default agent
(:data:`agent_runtime.soul.default_agent.DEFAULT_AGENT_SLUG`), and the hosting authority a Case
names for the platform. The name is data of that format, so it is spelled once, here.
"""

from __future__ import annotations

PLATFORM_NAME = "tulipfarm"
