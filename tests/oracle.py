"""The specs' regexes, the oracle every core is checked against (tests and fuzz targets).

Whole-string matches go through ``re.fullmatch``: never ``$``, which matches before a
final "\\n".  Greedy scanning is the longest match at a position: the same regexes,
unanchored at the end; runs of other characters are what tokenize passes through.
"""

from __future__ import annotations

import re

PIN_RE = re.compile(r"[-+]?[A-Za-z]\^?")
EPIN_RE = re.compile(r"[-+]?[A-Za-z]\^?'?")
OTHER = {True: re.compile(r"[^-+A-Za-z^']+"), False: re.compile(r"[^-+A-Za-z^]+")}


def is_token(s: str, epin: bool) -> bool:
    return (EPIN_RE if epin else PIN_RE).fullmatch(s) is not None


def oracle_tokenize(s: str, epin: bool) -> list[str] | int:
    """The tokens and other runs of s as str, or the position where tokenize must fail."""
    token, other = (EPIN_RE if epin else PIN_RE), OTHER[epin]
    out, i = [], 0
    while i < len(s):
        m = other.match(s, i) or token.match(s, i)
        if m is None:
            return i
        out.append(m.group())
        i = m.end()
    return out


# strict tokenize: between tokens only what FEEN's piece placement puts there, runs of
# empty squares (digits) and the rank and layer separators ("/", "//").
BETWEEN = re.compile(r"[0-9/]+")
STRICT_PLACEMENT = {
    True: re.compile(r"(?:[-+]?[A-Za-z]\^?'?|[0-9/])*"),
    False: re.compile(r"(?:[-+]?[A-Za-z]\^?|[0-9/])*"),
}


def oracle_strict_tokenize(s: str, epin: bool) -> list[str] | int:
    """strict tokenize's items of s as str, or the position where it must fail: greedy
    as oracle_tokenize, with only digits and "/" between tokens."""
    token = EPIN_RE if epin else PIN_RE
    out, i = [], 0
    while i < len(s):
        m = BETWEEN.match(s, i) or token.match(s, i)
        if m is None:
            return i
        out.append(m.group())
        i = m.end()
    return out


def is_strict_placement(s: str, epin: bool) -> bool:
    """Whether strict tokenize accepts s: the whole string matches the placement regex."""
    return STRICT_PLACEMENT[epin].fullmatch(s) is not None
