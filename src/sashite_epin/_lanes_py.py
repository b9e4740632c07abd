"""Many tokens at once, pure Python: the twin's fast road through a whole buffer.

Looking every token up in a dict costs a Python-level call per token, no faster than
the obvious code a user would write.  Here a buffer of ASCII text is read a window
(32 KiB, which stays in cache) at a time instead, each pass one C loop of CPython:
``bytes.translate`` maps every byte to its class, ``int.from_bytes`` makes the
classes the 8-bit lanes of one big integer, masks and shifts line each byte up with
its neighbours, and one more translate keeps a lane per letter.  That lane, the
letter's *context*, holds what stands around it, so it is the rest of the token:

    bit  0     the byte is a letter (every other lane is dropped)
    bit  1     the byte two before it is a separator
    bits 2..4  the byte before it: 1 a letter, 2 "+", 4 "-", 6 a separator, 0 other
    bits 5..6  the byte after it: 1 "'", 2 "^", 0 other
    bit  7     the byte two after it is "'"

Each sign, caret and apostrophe a context claims is a distinct byte (the one just
before, just after, or two after behind a caret), so counting proves the text is
exactly tokens: the letters and the markers they claim are every byte but the
separators, and no lane is in a shape the grammar forbids.  Anything else gives None,
and the caller reads that input entry by entry for its reasons: the fast road never
decides an error, only that there is none.  ``tests/test_lanes.py`` checks it against
the regex oracle on every short text over a tricky alphabet.
"""

from __future__ import annotations

# typing is not imported at run time; annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# How the tokens of a text are delimited.
LINES = "lines"  # exactly one token between "\n" separators: joined list items
WORDS = "words"  # one token per run of non-whitespace: bytes.split()'s parts
STREAM = "stream"  # tokens back to back, no separator: an Arrow column's data

_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
_WHITESPACE = b" \t\n\x0b\x0c\r"
_NOT_LETTERS = bytes(b for b in range(256) if b not in _LETTERS)


def _table(values: dict[int, int]) -> bytes:
    return bytes(values.get(b, 0) for b in range(256))


# The "before" class of a byte, as seen from the letter after it (bits 0..2 once
# shifted into bits 2..4), and whether it is a letter itself (bit 0, unshifted).
_BEFORE = _table({**dict.fromkeys(_LETTERS, 1), ord("+"): 2, ord("-"): 4, ord("\n"): 6})
# The "after" class of a byte, as seen from the letter before it (bits 0..1 shifted
# into bits 5..6) and from the letter two before it (bit 0, "'", into bit 7).  Bit 1 of
# the lane two after lands in bit 0 of the lane one after: a caret's claim on the byte
# before it, always a letter in a text of tokens (otherwise the count of letter lanes
# disagrees with the count of letters, and the text is refused).
_AFTER = _table({ord("'"): 1, ord("^"): 2})
# A separator, as seen from the letter two after it (bit 1).
_SEPARATOR = _table({ord("\n"): 2})

_PREV_LETTER, _PREV_PLUS, _PREV_MINUS, _PREV_SEPARATOR = 1, 2, 4, 6
_NEXT_APOSTROPHE, _NEXT_CARET = 1, 2


def _fields(context: int) -> tuple[int, int, int, int]:
    """(prev, next, next2 apostrophe, prev2 separator) of a context byte."""
    return (context >> 2) & 7, (context >> 5) & 3, context >> 7, (context >> 1) & 1


def _shape_tables() -> dict[str, bytes]:
    """Per context byte: the record's state, terminal, derived and the token's length
    (1 + the markers the letter claims)."""
    state, terminal, derived, length = ([0] * 256 for _ in range(4))
    for c in range(256):
        prev, after, after2, _ = _fields(c)
        has_sign = prev in (_PREV_PLUS, _PREV_MINUS)
        state[c] = {_PREV_PLUS: 1, _PREV_MINUS: 2}.get(prev, 0)
        terminal[c] = int(after == _NEXT_CARET)
        derived[c] = int(after == _NEXT_APOSTROPHE or (after == _NEXT_CARET and after2 == 1))
        length[c] = 1 + has_sign + terminal[c] + derived[c]
    return {
        "state": bytes(state),  # the rest: one byte per value, for translate
        "terminal": bytes(terminal),
        "derived": bytes(derived),
        "length": bytes(length),
        "bits": bytes((1 << n) - 1 for n in length),
    }


_SHAPE = _shape_tables()


# Context bytes a letter lane may have (translate deletes them; what is left is
# refused).  Between separators a token starts a part: the byte before its letter is
# a separator, or a sign with a separator before it; in a stream anything may stand
# before (a stray byte there is caught by the count).  Two apostrophes after a letter
# ("K''") never form one token.
def _allowed(grammar: str) -> bytes:
    def forbidden(c: int) -> bool:
        prev, after, after2, separated = _fields(c)
        signed = prev in (_PREV_PLUS, _PREV_MINUS)
        if grammar != STREAM and not (prev == _PREV_SEPARATOR or (signed and separated)):
            return True
        return after == _NEXT_APOSTROPHE and after2 == 1

    return bytes(c for c in range(256) if not forbidden(c))


_ALLOWED = {grammar: _allowed(grammar) for grammar in (LINES, WORDS, STREAM)}
_DROP_UNKEPT = bytes(range(0, 256, 2))  # lanes without bit 0 are not letters
_UPPER = bytes(range(256)).translate(bytes.maketrans(_LETTERS[26:], _LETTERS[:26]))
_SIDE = _table(dict.fromkeys(_LETTERS[26:], 1))
_TO_NEWLINE = bytes.maketrans(_WHITESPACE, b"\n" * len(_WHITESPACE))


def _alphabet(epin: bool, grammar: str) -> bytes:
    marks = b"+-^'" if epin else b"+-^"
    separators = {LINES: b"\n", STREAM: b""}[grammar]
    return _LETTERS + marks + separators


# (WORDS has none of its own: its whitespace is made newlines first, then read as LINES.)
_ALPHABETS = {(e, g): _alphabet(e, g) for e in (False, True) for g in (LINES, STREAM)}


# Everything the lanes take from a byte, in one byte, so that a window is one
# translate and one int.from_bytes: bits 0-2 its _BEFORE class, bits 3-4 its _AFTER
# class, bit 5 a separator, bit 7 a byte no token or separator holds (WORDS' text has
# its whitespace made newlines first).  Masks of each field pick it out of the window's
# integer.
def _classes(epin: bool, grammar: str) -> bytes:
    alphabet = _ALPHABETS[(epin, LINES if grammar == WORDS else grammar)]
    return bytes(
        _BEFORE[b] | _AFTER[b] << 3 | (_SEPARATOR[b] >> 1) << 5 if b in alphabet else _BAD
        for b in range(256)
    )


_BAD = 0x80
_CLASSES = {(e, g): _classes(e, g) for e in (False, True) for g in (LINES, WORDS, STREAM)}
# What stands before a window: a separator (for the first letter's "before" and, two
# bytes on, a sign's), whatever the grammar.
_FRAME = bytes([_PREV_SEPARATOR | 1 << 5])
# Text is read a window of about this many bytes at a time (ending at a separator, or
# at an entry's end for a stream): the integers stay in cache, and a window's masks
# are made once.
WINDOW = 1 << 15
_MASKS: dict[int, tuple[int, int, int, int]] = {}


def _masks(size: int) -> tuple[int, int, int, int]:
    """The before, after, separator and bad-byte masks of size bytes or more."""
    size = max(size, WINDOW + 64)
    if size not in _MASKS:
        _MASKS.clear()  # one size in use at a time
        before, after, separator, bad = (
            int.from_bytes(bytes([field]) * size, "little") for field in (0x07, 0x18, 0x20, _BAD)
        )
        _MASKS[size] = before, after, separator, bad
    return _MASKS[size]


def _window(
    text: bytes, start: int, end: int, epin: bool, grammar: str
) -> tuple[bytes, int, int] | None:
    """The context bytes of text[start:end]'s letters, the bytes their tokens take and the
    separators in it; None where a byte is outside the grammar or a context is one it
    forbids."""
    classes = _FRAME + text[start:end].translate(_CLASSES[(epin, grammar)])
    before, after, separator, bad = _masks(len(classes))
    v = int.from_bytes(classes, "little")
    if v & bad:
        return None  # a byte no token or separator holds
    b, a, s = v & before, v & after, v & separator
    lanes = b | (b << 10) | (a >> 6) | (a >> 12) | (s << 12)
    context = lanes.to_bytes(len(classes) + 2, "little").translate(None, _DROP_UNKEPT)
    if context.translate(None, _ALLOWED[grammar]):
        return None
    # The bytes the tokens take: their lengths as that many set bits, counted.
    taken = int.from_bytes(context.translate(_SHAPE["bits"]), "little").bit_count()
    separators = s.bit_count() - 1 if grammar == WORDS else 0  # the frame's is not text
    return context, taken, separators


def contexts(text: bytes, epin: bool, grammar: str, parts: int = 0) -> tuple[bytes, bytes] | None:
    """The context byte of each letter of text, in order, and the letters, when text
    is exactly tokens of the notation delimited as grammar says (LINES: parts lines;
    WORDS: any whitespace); None otherwise.  A stream is read whole: the caller cuts it
    into windows at its entries' ends."""
    if grammar == WORDS:
        text = text.translate(_TO_NEWLINE)
    found, taken, separators, at, size = [], 0, 0, 0, len(text)
    while True:
        end = size
        if grammar != STREAM and size - at > WINDOW:
            end = text.find(b"\n", at + WINDOW)
            end = size if end < 0 else end
        window = _window(text, at, end, epin, grammar)
        if window is None:
            return None
        found.append(window[0])
        taken += window[1]
        separators += window[2]
        if end == size:
            break
        at = end + 1
        separators += 1  # the newline between two windows
    if grammar == LINES:
        # parts - 1 separators; one more is an empty line, or a line break inside an
        # item, and leaves the count below short.
        separators = parts - 1
    context = b"".join(found)
    letters = text.translate(None, _NOT_LETTERS)
    if len(context) != len(letters) or taken != size - separators:
        return None  # a marker no letter claims
    return context, letters


def records(context: bytes, letters: bytes) -> bytes:
    """The 5-byte records of the tokens contexts() found."""
    out = bytearray(5 * len(context))
    out[0::5] = letters.translate(_UPPER)
    out[1::5] = letters.translate(_SIDE)
    out[2::5] = context.translate(_SHAPE["state"])
    out[3::5] = context.translate(_SHAPE["terminal"])
    out[4::5] = context.translate(_SHAPE["derived"])
    return bytes(out)


def read_lines(items: Sequence[object], epin: bool, binary: bool = False) -> bytes | None:
    """The records of a list of str (binary: of bytes) that are all tokens, or None
    (some item is not of that type, or not a token: the caller reads the items one by
    one).  Items are read by their characters, as join reads them: a str subclass's
    methods are not called."""
    try:
        if binary:
            text = b"\n".join(items)  # type: ignore[arg-type]
        else:
            joined = "\n".join(items)  # type: ignore[arg-type]
            if not joined.isascii():
                return None
            text = joined.encode("ascii")
    except TypeError:
        return None
    found = contexts(text, epin, LINES, len(items))
    if found is None or len(found[0]) != len(items):
        return None
    return records(*found)


def read_words(data: bytes, epin: bool) -> bytes | None:
    """The records of whitespace-separated bytes tokens, or None."""
    found = contexts(data, epin, WORDS)
    return None if found is None else records(*found)


def read_stream(data: bytes, offsets: bytes, width: int, epin: bool) -> bytes | None:
    """The records of tokens back to back in data, entry i between the little-endian
    offsets i and i + 1 (each width bytes: 4 or 8; data begins at offset 0), or None
    where some entry is not exactly one token."""
    count = len(offsets) // width - 1
    if count <= 0:
        return b"" if count == 0 and not data else None
    # No separator, so the windows end at entries' ends: every group entries (a
    # window's worth of the longest tokens), the data between read as one stream.
    group = max(WINDOW // 4, 1)
    first = int.from_bytes(offsets[:width], "little", signed=True)
    cuts = [
        int.from_bytes(offsets[j * width : (j + 1) * width], "little", signed=True) - first
        for j in range(group, count, group)
    ]
    pieces = []
    for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
        piece = contexts(data[start:end], epin, STREAM) if start <= end else None
        if piece is None:
            return None
        pieces.append(piece)
    found = b"".join(p[0] for p in pieces), b"".join(p[1] for p in pieces)
    if len(found[0]) != count:
        return None
    # Each entry's size as a lane of the offsets minus the offsets shifted by one lane.
    # With no offset negative (no top bit set), the first lane that went back would
    # borrow and show its top bit: lanes with every byte but the lowest zero are the
    # exact sizes.
    if not offsets[width - 1 :: width].isascii():
        return None
    starts = int.from_bytes(offsets[:-width], "little")
    ends = int.from_bytes(offsets[width:], "little")
    if ends < starts:
        return None
    sizes = (ends - starts).to_bytes(width * count, "little")
    zeros = bytes(count)
    if any(sizes[k::width] != zeros for k in range(1, width)):
        return None
    if sizes[0::width] != found[0].translate(_SHAPE["length"]):
        return None
    return records(*found)


# A view's first four inline bytes, each as its bit of a mask where the byte is not 0;
# and the mask a token of each length has: its bytes first, zeros after.
_NONZERO = [bytes(0 if b == 0 else 1 << k for b in range(256)) for k in range(4)]
_PREFIX_MASK = bytes((1 << n) - 1 if n <= 4 else 255 for n in range(256))


def read_views(views: bytes, epin: bool) -> bytes | None:
    """The records of an Arrow string_view column's 16-byte views (a little-endian
    int32 length, then the string inline, zero-padded, up to 12 bytes) when every
    entry is a token, or None."""
    count = len(views) // 16
    if count == 0:
        return b""
    zeros = bytes(count)
    if any(views[k::16] != zeros for k in (1, 2, 3)):
        return None  # a length of 256 or more, or negative
    # Each entry's bytes are its first length bytes: no zero among them, only zeros
    # after them (a token is at most 4 bytes, all non-zero).
    mask = 0
    for k in range(4):
        mask |= int.from_bytes(views[4 + k :: 16].translate(_NONZERO[k]), "little")
    if mask.to_bytes(count, "little") != views[0::16].translate(_PREFIX_MASK):
        return None
    joined = bytearray(5 * count)
    for k in range(4):
        joined[k::5] = views[4 + k :: 16]
    joined[4::5] = b"\n" * count
    text = joined.translate(None, b"\0")[:-1]  # the entries, a line each
    found = contexts(bytes(text), epin, LINES, count)
    if found is None or len(found[0]) != count:
        return None
    return records(*found)
