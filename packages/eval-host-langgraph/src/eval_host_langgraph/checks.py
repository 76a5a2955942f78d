"""What a Case may not ask of the langgraph Host, refused at load with the reason.

The graph is the team's: its Tools are its own (a Case names them in ``platformTools``, never
adds one), it has no File store and no account authority (a family needing one asks whether
the Host offers it). It parks no call for an approval or a retry: the core refuses a Case
scripting one, as on every Host without ``parks_calls``. Each rule applies only when
the chosen Host is this one (its tier, L2 only, is the core's check: the Host declares
``tiers``).
"""

from __future__ import annotations

from collections.abc import Iterator

from eval_core.hosts import CaseBase, FilePart, LoadContext

HOST = "Host 'langgraph'"


def problems(case: CaseBase, context: LoadContext) -> Iterator[tuple[str, str]]:
    from eval_host_langgraph.host import LangGraphHost

    host = context.host
    if not isinstance(host, LangGraphHost):
        return
    for index, tool in enumerate(case.tools):
        yield (
            f"$.tools[{index}]",
            f"{HOST} runs the agent's own Tools: a Case cannot add {tool.name!r}; name the "
            "agent's Tools in platformTools",
        )
    for m_index, message in enumerate(case.input):
        parts = message.content if isinstance(message.content, list) else []
        for p_index, part in enumerate(parts):
            if isinstance(part, FilePart):
                yield (
                    f"$.input[{m_index}].content[{p_index}]",
                    f"{HOST} has no File store: a Case's input is text only",
                )
