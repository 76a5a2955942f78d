"""Detection of instructions aimed at the agent, including disguised ones.

Attackers disguise "ignore previous instructions" with leetspeak, separators and base64, so text
is normalised before matching and inline base64 runs are decoded and matched too. The two large
patterns are compiled on first use: a substring gate keeps ordinary text from ever needing them,
and a process that screens nothing suspicious never pays their compile. Every Turn's input and
Tool output is screened, so what the regexes say of ordinary text is said by byte translations
first (separators, leetspeak, a long enough run for base64), the regexes run only where those
cannot answer alone.
"""

from __future__ import annotations

import binascii
import re
from functools import cache

import msgspec

_LEET: tuple[tuple[str, str], ...] = (
    ("4", "a"), ("3", "e"), ("1", "i"), ("0", "o"), ("5", "s"), ("7", "t"), ("@", "a"), ("$", "s"),
)  # fmt: skip
# Runs of three or more single characters ("i g n o r e") are words spelt out: join them.
_SPELT_OUT = re.compile(r" [a-z0-9](?: [a-z0-9]){2,}(?= )")
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/\-_])[A-Za-z0-9+/\-_]{16,}={0,2}")
_PRINTABLE = bytes(range(32, 127)) + b"\t\n\r"
_URLSAFE = str.maketrans("-_", "+/")
# The same classes as byte tables over lowercased text encoded to ASCII (anything else becomes
# "?", a separator to both): a word character of normalised text stays, a leet character becomes
# its letter, every other byte a space; a base64 character becomes "x", every other a space.
_WORD_BYTES = b"abcdefghijklmnopqrstuvwxyz0123456789"
_LEET_BYTES = {ord(digit): ord(letter) for digit, letter in _LEET}
_NORMALISED = bytes(_LEET_BYTES.get(c, c if c in _WORD_BYTES else 0x20) for c in range(256))
_SINGLES = bytes(0x78 if c in _WORD_BYTES else c for c in range(256))  # a word's letters: "x"
_BASE64_BYTES = _WORD_BYTES + b"ABCDEFGHIJKLMNOPQRSTUVWXYZ+/-_"
_BASE64_CLASS = bytes(0x78 if c in _BASE64_BYTES else 0x20 for c in range(256))
_BASE64_LEAST = b"x" * 16  # the shortest run _BASE64_RUN takes


def _any(*alternatives: str) -> str:
    return "(?:" + "|".join(alternatives) + ")"


# Patterns over normalised text: lowercase, leet undone, separators collapsed to one space.
# Words are joined by " ?" so a run spelt out letter by letter (joined, spaceless) also matches.
_OVERRIDE_VERB = _any("ignore", "disregard", "forget", "override", "bypass", "discard", "drop")
_FILLER = _any("all", "any", "of", "the", "these", "those", "my", "your")
_QUALIFIER = _any(
    "previous", "prior", "earlier", "above", "preceding", "former", "original", "initial",
    "system", "safety", "existing", "your", "all", "any", "every",
)  # fmt: skip
_INSTRUCTIONS = _any(
    "instructions?", "prompts?", "rules", "directives?", "guidelines", "guardrails", "policies",
    "constraints", "programming", "orders",
)  # fmt: skip
_REVEAL = _any(
    "reveal", "show", "print", "display", "repeat", "output", "leak", "dump", "share",
    "disclose", "recite", "tell me", "give me", "what (?:is|are)",
)  # fmt: skip
_SECRET_PROMPT = _any(
    "system ?prompt", "hidden ?(?:prompt|instructions)", "initial ?(?:prompt|instructions)",
    "original ?instructions", "developer ?(?:message|prompt)", "confidential ?instructions",
)  # fmt: skip
_NEW_IDENTITY = _any(
    "ai", "assistant", "admin", "administrator", "dan", "developer", "system", "unrestricted",
    "unfiltered", "jailbroken", "root", "superuser", "mode", "bot", "model", "agent", "god",
)  # fmt: skip
_PRIVILEGED = _any(
    "system ?administrator", "sysadmin", "administrator", "admin", "root", "superuser",
    "developer", "system", "unrestricted", "jailbroken", "dan",
)  # fmt: skip
_ARTICLE = "(?:(?:a|an|the|my|in) ?)?"
_INJECTION_PATTERNS: tuple[str, ...] = (
    rf"\b{_OVERRIDE_VERB} ?(?:{_FILLER} ?)*{_QUALIFIER} ?(?:[a-z]+ ?)?{_INSTRUCTIONS}\b",
    rf"\b{_REVEAL} ?(?:me ?)?(?:your|the) ?(?:full ?|exact ?|hidden ?|secret ?)?{_SECRET_PROMPT}",
    rf"\byou ?are ?now ?{_ARTICLE}(?:[a-z]+ ?){{0,2}}?{_NEW_IDENTITY}\b",
    r"\b(?:developer|god|admin|debug|sudo|unrestricted|jailbreak|dan) ?mode\b",
    rf"\b(?:act|behave|pose|respond|operate|roleplay) ?as ?{_ARTICLE}(?:[a-z]+ ?)?{_PRIVILEGED}\b",
    rf"\bpretend ?(?:to ?be|you ?are|that ?you ?are) ?{_ARTICLE}(?:[a-z]+ ?)?{_PRIVILEGED}\b",
    r"\b(?:new|updated|revised|real) ?(?:system ?)?instructions ?(?:are|follow)\b",
    r"\bdo ?anything ?now\b",
    r"\bjailbr(?:ea|o)k",
    r"\bfrom ?now ?on ?you ?(?:will|are|must|shall) ?(?:ignore|obey|only|no ?longer)\b",
    r"\bsystem ?override\b",
)


@cache
def injection_pattern() -> re.Pattern[str]:
    """Every injection pattern as one regex, compiled once."""
    return re.compile("|".join(f"(?:{p})" for p in _INJECTION_PATTERNS))


# Every injection pattern contains one of these (spaced or joined) in normalised text: a cheap
# substring gate that lets ordinary text skip the regex.
_INJECTION_ANCHORS: tuple[str, ...] = (
    "ignore", "disregard", "forget", "override", "bypass", "discard", "drop",
    "prompt", "hidden", "initial", "original", "developer", "confidential",
    "are now", "arenow", "now on", "nowon", "mode", "pretend", "instructions", "anything", "jailbr",
    "act as", "actas", "behave as", "behaveas", "pose as", "poseas", "respond as", "respondas",
    "operate as", "operateas", "roleplay",
)  # fmt: skip

# Orders aimed at the agent, matched on lowercased, leet-undone text that keeps its punctuation.
_ADDRESSEE = _any(
    "ai agent", "ai assistant", "ai model", "language model", "assistant", "chatbot", "llm", "ai",
    "bot",
)  # fmt: skip
_OBLIGATION = _any(
    "must", "should", "shall", "need to", "have to", "will",
    "are (?:required|instructed|ordered|authori[sz]ed) to",
)  # fmt: skip
_ORDER_PATTERNS: tuple[str, ...] = (
    rf"(?:^|[\n.!?>\"'\]]\s*)\s*{_ADDRESSEE}\s*:",
    rf"\b{_ADDRESSEE}\s*[,:!]\s*(?:you\s+)?(?:{_OBLIGATION}|now|immediately|please)\b",
    rf"\bagent\s*[,:!]\s*you\s+{_OBLIGATION}\b",
    rf"\b(?:note|message|attention|instructions?) (?:to|for) (?:the |any )?{_ADDRESSEE}\b",
    rf"\bif you are an? {_ADDRESSEE}\b",
    r"\b(?:call|invoke|execute|trigger|run|use) (?:the )?(?:tool |function )?"
    r"[`'\"]?[a-z]+_[a-z_]+\b",
)


@cache
def agent_order_pattern() -> re.Pattern[str]:
    """Every order pattern as one regex, compiled once."""
    return re.compile("|".join(f"(?:{p})" for p in _ORDER_PATTERNS))


# Every order pattern names an addressee or a call verb: a word-level gate over normalised text.
_ORDER_ANCHORS = frozenset(
    {
        "ai", "assistant", "chatbot", "llm", "bot", "model", "agent", "call", "invoke", "execute",
        "trigger", "run", "use", "note", "message", "attention", "instruction", "instructions",
    }
)  # fmt: skip


class Finding(msgspec.Struct, frozen=True):
    """What matched, and where: ``via`` is "text", "base64" or "order"."""

    matched: str
    via: str


def _unleet(text: str) -> str:
    for digit, letter in _LEET:
        if digit in text:
            text = text.replace(digit, letter)
    return text


def normalise(text: str) -> str:
    """Lowercase, undo leetspeak, collapse separators and join spelt-out words.

    Every run of characters other than ``[a-z0-9]`` becomes one space (as ``re.sub`` of
    ``[^a-z0-9]+`` would make it, see the property test), by one byte translation and a split;
    the spelt-out regex runs only over text that has three one-letter words in a row."""
    words = b" ".join(text.lower().encode("ascii", "replace").translate(_NORMALISED).split())
    if b" x x x " in b" %s " % words.translate(_SINGLES):
        return _SPELT_OUT.sub(_join_spelt_out, f" {words.decode()} ").strip()
    return words.decode()


def _join_spelt_out(match: re.Match[str]) -> str:
    return " " + match.group().replace(" ", "")


def _has_long_run(text: str) -> bool:
    """Whether ``_BASE64_RUN`` finds a run in ``text``: 16 base64 characters in a row."""
    return _BASE64_LEAST in text.encode("ascii", "replace").translate(_BASE64_CLASS)


def decoded_base64_runs(text: str) -> list[str]:
    """Inline base64 runs of 16+ characters that decode to mostly printable ASCII."""
    if not _has_long_run(text):
        return []  # the common case, said without the regex
    decoded: list[str] = []
    for match in _BASE64_RUN.finditer(text):
        run = match.group().rstrip("=").translate(_URLSAFE)
        run = run[: len(run) - len(run) % 4] if len(run) % 4 == 1 else run
        try:
            raw = binascii.a2b_base64(run + "=" * (-len(run) % 4))
        except binascii.Error:
            continue
        if raw and len(raw.translate(None, _PRINTABLE)) <= 0.1 * len(raw):
            decoded.append(raw.decode("ascii", "replace"))
    return decoded


def _injection_in(normalised: str) -> re.Match[str] | None:
    for anchor in _INJECTION_ANCHORS:  # a plain loop: every text of every Turn passes here
        if anchor in normalised:
            return injection_pattern().search(normalised)
    return None


def _scan(text: str) -> tuple[str, Finding | None, list[tuple[str, str]]]:
    """The text normalised, an injection in it or in its inline base64, and each decoded run
    with its normalised form (none when the text itself matched)."""
    normalised = normalise(text)
    found = _injection_in(normalised)
    if found is not None:
        return normalised, Finding(found.group().strip(), "text"), []
    decoded = [(plain, normalise(plain)) for plain in decoded_base64_runs(text)]
    for _plain, plain_normalised in decoded:
        found = _injection_in(plain_normalised)
        if found is not None:
            return normalised, Finding(found.group().strip(), "base64"), decoded
    return normalised, None, decoded


def find_injection(text: str) -> Finding | None:
    """An instruction to override the agent, in the text itself or in inline base64."""
    return _scan(text)[1]


def _order_in(text: str, normalised: str) -> str | None:
    if _ORDER_ANCHORS.isdisjoint(normalised.split()):
        return None
    found = agent_order_pattern().search(_unleet(text.lower()))
    return found.group().strip() if found is not None else None


def find_agent_order(text: str) -> Finding | None:
    """An injection, or an imperative order addressed to the agent (for untrusted content), in
    the text itself or in inline base64."""
    normalised, finding, decoded = _scan(text)
    if finding is not None:
        return finding
    found = _order_in(text, normalised)
    if found is not None:
        return Finding(found, "order")
    for plain, plain_normalised in decoded:
        found = _order_in(plain, plain_normalised)
        if found is not None:
            return Finding(found, "base64")
    return None
