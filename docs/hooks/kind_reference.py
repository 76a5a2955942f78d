"""The kind reference page, generated from the installed plug-ins at every docs build.

Like the CLI reference (``cli_reference.py``), nothing here is copied by hand: the page lists
the Case's generic fields, every installed Expectation kind and every plug-in Case field, read
from the plug-in set and its Case JSON Schema (``eval_cli.reference``), where
``docs/kinds.md`` holds the marker below. A kind or Case field without a description or an
example, or with an example the loader refuses (``eval_cli.examples``), fails the
build, naming it and its distribution.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eval_core._plugins.plugin_set import PluginSet

MARKER = "<!-- kind-reference: generated from the installed plug-ins at build time -->"


class IncompleteReference(RuntimeError):  # noqa: N818 - it names an outcome
    """A kind or Case field has no reference material; the message lists each one."""


def reference(plugins: PluginSet | None = None) -> str:
    """The generated part of the page, for ``plugins`` (default: the installed set)."""
    from eval_cli.examples import missing
    from eval_cli.reference_render import page
    from eval_core._loading import opening

    found = opening.plugins() if plugins is None else plugins
    problems = missing(found)
    if problems:
        raise IncompleteReference(
            f"the kind reference (docs/kinds.md) lacks {len(problems)} thing(s):\n"
            + "\n".join(f"  - {line}" for line in problems)
        )
    return page(found)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs hook: fill the marker of the kind reference page."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, reference())
