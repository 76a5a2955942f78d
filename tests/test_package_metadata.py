"""Every workspace package builds as a wheel with complete metadata, so a plug-in elsewhere can
declare ``eval-core>=0.3`` as a real dependency line. (``tests/test_new_plugin.py`` builds some
of them and reads their METADATA; ``uvx twine check`` passes on all of them.)"""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT

WORKSPACE = {p.parent.name for p in (ROOT / "packages").glob("*/pyproject.toml")}


def test_each_package_declares_complete_metadata_and_bounded_workspace_dependencies() -> None:
    for path in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(path.read_text())["project"]
        for key in ("name", "version", "description", "readme", "requires-python", "authors"):
            assert project.get(key), (path, key)
        assert (path.parent / project["readme"]).is_file(), path
        assert any(
            c.startswith("Programming Language :: Python :: 3") for c in project["classifiers"]
        )
        for dependency in project.get("dependencies", []):
            name = re.split(r"[<>=!~\[; ]", dependency, maxsplit=1)[0]
            if name in WORKSPACE:
                assert ">=" in dependency, (path, dependency)  # a real dependency line
