"""Files as the vendors take them: which attached bytes go over the wire as a binary part.

The runtime attaches a File as a neutral ``file`` / ``image`` part (``mediaType``, ``filename``,
base64 ``data``). Both vendors take PNG, JPEG, GIF and WebP images and PDF documents as bytes;
a File of any other type goes as text instead: a text File's own characters, else a line saying
it could not be sent. (The reference runtime never hands a binding such a part: it sends an
office or text document as one text part, ``"<name>:\n\n<full extracted text>"``.)
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Literal

PDF = "application/pdf"
IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_DATA_URL = re.compile(r"^data:(?P<media>[^;,]*)(?:;[^,]*)?;base64,(?P<data>.*)$", re.DOTALL)


def is_file(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in ("file", "image")


def sent_as(part: dict[str, Any]) -> Literal["image", "document", "text"]:
    """How a File part goes over the wire: its media type decides, on both vendors."""
    media = str(part.get("mediaType") or "")
    if media in IMAGES:
        return "image"
    if media == PDF:
        return "document"
    return "text"


def as_text(part: dict[str, Any]) -> str:
    """The text sent for a File no vendor takes as bytes."""
    name, media = part.get("filename") or "file", part.get("mediaType") or "unknown type"
    if str(media).startswith("text/"):
        try:
            text = base64.b64decode(str(part.get("data", "")), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            pass
        else:
            return f"[File {name}]\n{text}"
    return f"[File {name} ({media}) was not sent: the wire takes no binary part of this type]"


def data_url(part: dict[str, Any]) -> str:
    return f"data:{part.get('mediaType')};base64,{part.get('data', '')}"


def from_data_url(url: Any) -> tuple[str | None, str]:
    """``(media type, base64 data)`` of a ``data:`` URL; ``(None, "")`` for anything else."""
    found = _DATA_URL.match(url) if isinstance(url, str) else None
    if found is None:
        return None, ""
    return found["media"] or None, found["data"]


def neutral(kind: str, media: Any, filename: Any, data: Any) -> dict[str, Any]:
    """A File part back in the neutral shape (as the runtime would have written it)."""
    part: dict[str, Any] = {"type": kind, "mediaType": media, "data": data if data else ""}
    if filename is not None:
        part["filename"] = filename
    return part
