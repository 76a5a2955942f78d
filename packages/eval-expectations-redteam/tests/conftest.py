"""The root suite's ``corpus_dir`` (an empty Corpus beside a copy of the Eval Soul), shared
rather than written again: these tests sweep such a Corpus through the real ``eval`` commands."""

from __future__ import annotations

from tests.conftest import corpus_dir

__all__ = ["corpus_dir"]
