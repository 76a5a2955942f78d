"""The Soul's files are read by one rule: regular files inside the Soul, bounded in size, YAML
without anchors or aliases and not nested without end. Each hostile tree is refused at once,
naming the file, where it used to block, read a device to the end or walk an expansion."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml

from agent_runtime.soul import files as soul_files
from agent_runtime.soul.doctor import problems
from agent_runtime.soul.loader import Soul, SoulError, load_soul


def refused(soul: Path) -> SoulError:
    started = time.monotonic()
    with pytest.raises(SoulError) as caught:
        load_soul(soul)
    assert time.monotonic() - started < 5, "a refusal is immediate"
    return caught.value


def test_a_named_pipe_for_soul_yaml_is_refused_without_opening_it(soul_copy: Path) -> None:
    (soul_copy / "soul.yaml").unlink(missing_ok=True)
    os.mkfifo(soul_copy / "soul.yaml")
    error = refused(soul_copy)
    assert error.path == soul_copy / "soul.yaml"
    assert "not a regular file" in str(error)


def test_a_soul_file_linked_to_a_device_is_refused(soul_copy: Path) -> None:
    (soul_copy / "guardrails.yaml").unlink()
    (soul_copy / "guardrails.yaml").symlink_to("/dev/zero")
    assert "links outside the Soul" in str(refused(soul_copy))


def test_any_file_of_the_tree_linked_outside_is_refused_even_one_never_read(
    soul_copy: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("edited where no reviewer of the Soul looks\n")
    (soul_copy / "NOTES.md").symlink_to(outside)
    error = refused(soul_copy)
    assert error.path == soul_copy / "NOTES.md" and "links outside the Soul" in str(error)


def test_a_link_to_a_file_since_removed_is_refused_naming_the_link(soul_copy: Path) -> None:
    (soul_copy / "shared-notes.md").write_text("kept beside the Soul's files\n")
    (soul_copy / "NOTES.md").symlink_to("shared-notes.md")
    (soul_copy / "shared-notes.md").unlink()  # the link is left dangling
    error = refused(soul_copy)
    assert error.path == soul_copy / "NOTES.md", error.path
    assert "unreadable" in str(error)


def test_an_agent_folder_linked_outside_is_refused(soul_copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "agent"
    (soul_copy / "agents" / "finance").rename(elsewhere)
    (soul_copy / "agents" / "finance").symlink_to(elsewhere, target_is_directory=True)
    assert "links outside the Soul" in str(refused(soul_copy))


def test_a_link_inside_the_soul_is_read_where_it_points(soul_copy: Path, eval_soul: Soul) -> None:
    guards = soul_copy / "guardrails.yaml"
    (soul_copy / "shared-guardrails.yaml").write_bytes(guards.read_bytes())
    guards.unlink()
    guards.symlink_to("shared-guardrails.yaml")
    assert load_soul(soul_copy).guardrails == eval_soul.guardrails


def test_an_oversized_soul_file_is_refused_before_it_is_read(soul_copy: Path) -> None:
    """Refused by its size on disk, which the reason names (the operator sees how far over it
    is), never by reading the file to its limit."""
    with (soul_copy / "soul.yaml").open("a") as handle:
        handle.write("#" * (soul_files.MAX_FILE_BYTES + 1))
    size = (soul_copy / "soul.yaml").stat().st_size
    error = refused(soul_copy)
    assert error.path == soul_copy / "soul.yaml", error.path
    assert f"{size} bytes: over the {soul_files.MAX_FILE_BYTES} limit" in str(error), str(error)


@pytest.mark.parametrize("special", ["/dev/null", "."], ids=["device", "directory"])
def test_a_file_that_is_not_regular_by_the_time_it_is_read_is_refused_unopened(
    special: str, tmp_path: Path
) -> None:
    """The tree check refuses a pipe, socket or device before any file is read; the read itself
    refuses one too, for a file that changed between the two (or a caller that checked nothing):
    a device read as an empty Soul file, or a directory's error, is not the reason."""
    file = tmp_path / special if special == "." else Path(special)
    with pytest.raises(soul_files.SoulFileError) as caught:
        soul_files.read_text(file)
    assert (caught.value.path, caught.value.reason) == (
        file,
        "not a regular file (a named pipe, socket or device)",
    )


def test_a_tree_that_cannot_be_listed_by_the_time_it_is_walked_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    """load_soul checks the root is a directory, then walks it: a tree gone (or unlistable) by
    then, or handed to the walk unchecked, is refused as unreadable naming the root, the same
    one-line refusal as any Soul file's, never an OSError."""
    gone = tmp_path / "soul"
    with pytest.raises(soul_files.SoulFileError) as caught:
        soul_files.check_tree(gone)
    assert caught.value.path == gone
    assert caught.value.reason.startswith("unreadable: [Errno 2] No such file or directory")


def test_anchors_and_aliases_are_refused_in_the_souls_yaml(soul_copy: Path) -> None:
    (soul_copy / "soul.yaml").write_text("name: &n Tulip Farm\ndescription: *n\n")
    error = refused(soul_copy)
    assert error.path == soul_copy / "soul.yaml"
    assert "anchors and aliases are not allowed" in str(error)


def test_yaml_nested_past_the_bound_is_refused(soul_copy: Path) -> None:
    depth = soul_files.MAX_YAML_DEPTH + 1
    (soul_copy / "guardrails.yaml").write_text("[" * depth + "]" * depth + "\n")
    assert "nested deeper than" in str(refused(soul_copy))


def test_the_depth_bound_holds_on_both_sides_of_the_quick_load() -> None:
    """A text with few collection indicators is loaded without the event pass; the bound is
    the same either way: 64 levels load, 65 do not, in flow and in block style."""
    bound = soul_files.MAX_YAML_DEPTH
    flow = "[" * bound + "]" * bound
    block = "".join(f"{' ' * level}k:\n" for level in range(bound - 1)) + " " * (bound - 1) + "k: v"
    assert soul_files.load_yaml(flow) == yaml.safe_load(flow)
    assert soul_files.load_yaml(block) == yaml.safe_load(block)
    for deeper in ("[" + flow + "]", "k:\n" + "\n".join(" " + line for line in block.split("\n"))):
        with pytest.raises(yaml.YAMLError, match="nested deeper than"):
            soul_files.load_yaml(deeper)
    assert soul_files.load_yaml("note: 'fish & chips'\nglob: 'payout_*'\n") == {
        "note": "fish & chips",
        "glob": "payout_*",
    }


def test_the_routine_lint_refuses_an_alias_chain_instead_of_walking_its_expansion() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 30)]
    started = time.monotonic()
    found = problems("\n".join(lines) + "\n")
    assert time.monotonic() - started < 2
    assert found and "anchors and aliases are not allowed" in found[0]


def test_an_agent_folder_whose_name_ends_in_a_newline_is_not_a_slug(soul_copy: Path) -> None:
    (soul_copy / "agents" / "finance").rename(soul_copy / "agents" / "finance\n")
    assert "is not a lowercase-hyphenated slug" in str(refused(soul_copy))


def test_a_tree_of_more_entries_than_a_soul_holds_is_refused(
    soul_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory of more entries than :data:`MAX_ENTRIES` is not a Soul (a home directory
    given by mistake): refused while walking it, before any file is read. The limit is lowered
    for the test; the walk that counts is the real one."""
    entries = sum(1 for _ in soul_copy.rglob("*"))
    monkeypatch.setattr(soul_files, "MAX_ENTRIES", entries)
    load_soul(soul_copy)  # exactly at the limit: a Soul
    (soul_copy / "notes.md").write_text("one entry more\n")
    error = refused(soul_copy)
    assert error.path == soul_copy
    assert f"more than {entries} entries: not a Soul" in str(error)
