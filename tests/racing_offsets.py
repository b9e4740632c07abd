"""Arrow columns whose offsets another process rewrites while they are read, for
test_concurrent_offsets.py.  Two roles, each a process of its own:

    python racing_offsets.py read FILE SECONDS TEXTS READERS  # builds the file, starts
                                                   #   the writer, reads the columns with
                                                   #   READERS; prints a JSON line
    python racing_offsets.py write FILE SECONDS TEXTS  # rewrites the file's columns

TEXTS is "tokens" (ASCII tokens, which the lane readers take) or "other" (some entries
not ASCII, invalid tokens that parse_many names and tokenize_many reads apart); READERS
"parse_many", "tokenize_many" or "all".

The file holds the buffers of four columns over the same tokens (utf8, large_utf8,
string_view, a dictionary of utf8), mapped shared by both processes: pyarrow reads its
buffers where they are.  The writer turns each column's offsets, views and indices
hostile and back, over and over: offsets huge, negative, past the data buffer or going
backwards; views too long for their buffer, or in a buffer that is not there; indices
outside the dictionary.  It never writes a column's last offset, so a reader that uses
each offset as it checked it never leaves the data buffer, whatever it reads.  The
reader calls parse_many and tokenize_many on every column meanwhile: each call must
give a result or a ValueError (ParseError is one).  The reader reports how each call
ended, any other exception by its type and message; a crash ends its process with
another status than 0.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import subprocess
import sys
import time

ROWS = 4096
WORDS = 64  # the first bytes: the writer's rounds, then the reader's request to stop
VOCABULARIES = {
    "tokens": ["K", "+K", "k^", "-p'", "+K^'", "S", "-r^", "b'"],
    "other": ["K", "é", "k^", "-p'", "ö", "S", "-r^", "b'"],
}
VOCABULARY = VOCABULARIES["tokens"]


def tokens() -> list[bytes]:
    return [VOCABULARY[(7 * i + i // 5) % len(VOCABULARY)].encode() for i in range(ROWS)]


def aligned(n: int) -> int:
    return (n + 63) & ~63


def pack(fmt: str, values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}{fmt}", *values)


def hostile_offsets(good: list[int], size: int, huge: int) -> list[int]:
    """good with every offset but the last replaced by one no reader may use: huge,
    negative, past the data buffer, or half its own (going backwards)."""
    bad = [(huge, -huge, -1, size + 1, good[k] // 2)[k % 5] for k in range(len(good))]
    bad[-1] = good[-1]
    return bad


def regions() -> dict[str, tuple[int, bytes, bytes]]:
    """Each region of the file: where it starts, its good bytes and its hostile ones
    (data and the dictionary's data are never rewritten: hostile the same as good)."""
    words = tokens()
    data = b"".join(words)
    offsets = [0]
    for word in words:
        offsets.append(offsets[-1] + len(word))
    views = b"".join(
        struct.pack("<i", len(w)) + w.ljust(12, b"\0") for w in words
    )  # inline: a token is at most 4 bytes
    lies = [
        struct.pack("<iiii", -1, 0, 0, 0),
        struct.pack("<i4sii", 0x7FFFFFFF, b"K\0\0\0", 0, 0),
        struct.pack("<i4sii", 100, b"K\0\0\0", 0x7FFFFFFF, 0),
        struct.pack("<i4sii", 13, b"K\0\0\0", 0, 0x7FFFFFF0),
        struct.pack("<i4sii", 20, b"K\0\0\0", -1, 0),
    ]
    bad_views = b"".join(lies[k % len(lies)] for k in range(ROWS))
    vocabulary = [w.encode() for w in VOCABULARY]
    entries = b"".join(vocabulary)
    bounds = [0]
    for word in vocabulary:
        bounds.append(bounds[-1] + len(word))
    indices = [vocabulary.index(w) for w in words]
    bad_indices = [(len(vocabulary) + k, -1, 0x7FFFFFFF)[k % 3] for k in range(ROWS)]
    huge = 2**31 - 256  # an int32 offset gigabytes past any buffer here
    parts = [
        ("data", data, data),
        ("offsets32", pack("i", offsets), pack("i", hostile_offsets(offsets, len(data), huge))),
        ("offsets64", pack("q", offsets), pack("q", hostile_offsets(offsets, len(data), 2**62))),
        ("views", views, bad_views),
        ("entries", entries, entries),
        ("bounds", pack("i", bounds), pack("i", hostile_offsets(bounds, len(entries), huge))),
        ("indices", pack("i", indices), pack("i", bad_indices)),
    ]
    at, out = WORDS, {}
    for name, good, bad in parts:
        out[name] = (at, good, bad)
        at = aligned(at + len(good))
    return out


def size() -> int:
    return max(at + len(good) for at, good, _ in regions().values()) + 64


def write(path: str, seconds: float, texts: str) -> None:
    rewritten = [
        (slice(at, at + len(good)), good, bad)
        for name, (at, good, bad) in regions().items()
        if good != bad
    ]
    with open(path, "r+b") as f:
        shared = mmap.mmap(f.fileno(), size())
    rounds, stop, reader = 0, time.monotonic() + seconds, os.getppid()
    # until the reader asks, or is gone (crashed: its request never comes)
    while not struct.unpack_from("<q", shared, 8)[0] and os.getppid() == reader:
        if time.monotonic() > stop:
            break
        for where, good, bad in rewritten:
            for _ in range(8):
                shared[where] = bad
                shared[where] = good
        rounds += 1
        struct.pack_into("<q", shared, 0, rounds)


def met(outcomes: dict[str, dict[str, int]]) -> dict[str, bool]:
    """Whether each reader (the first word of a call's name) had a call refused."""
    readers: dict[str, bool] = {}
    for what, counts in outcomes.items():
        reader = what.split()[0]
        readers[reader] = readers.get(reader, False) or counts["refused"] > 0
    return readers


def read(path: str, seconds: float, texts: str, readers: str) -> None:
    import pyarrow as pa

    import sashite_epin
    from sashite_epin import Epin

    layout = regions()
    with open(path, "wb") as f:
        f.write(bytes(size()))
    with open(path, "r+b") as f:
        shared = mmap.mmap(f.fileno(), size())
    for at, good, _ in layout.values():
        shared[at : at + len(good)] = good
    whole = pa.py_buffer(shared)

    def buffer(name: str) -> pa.Buffer:
        at, good, _ = layout[name]
        return whole.slice(at, len(good))

    columns = {
        "utf8": pa.Array.from_buffers(
            pa.string(), ROWS, [None, buffer("offsets32"), buffer("data")]
        ),
        "large_utf8": pa.Array.from_buffers(
            pa.large_string(), ROWS, [None, buffer("offsets64"), buffer("data")]
        ),
        "string_view": pa.Array.from_buffers(
            pa.string_view(), ROWS, [None, buffer("views"), buffer("data")]
        ),
        "dictionary": pa.DictionaryArray.from_arrays(
            pa.Array.from_buffers(pa.int32(), ROWS, [None, buffer("indices")]),
            pa.Array.from_buffers(
                pa.string(), len(VOCABULARY), [None, buffer("bounds"), buffer("entries")]
            ),
        ),
    }
    calls = [
        (f"{reader} {name}", call, column)
        for name, column in columns.items()
        for reader, call in [
            ("parse_many", lambda c: Epin.parse_many(c)),
            ("parse_many mark", lambda c: Epin.parse_many(c, errors="mark")),
            ("tokenize_many", lambda c: Epin.tokenize_many(c)),
        ]
    ]
    # The offsets' lane readers most often: where a check and a use could be two reads
    # of an offset, the race is only won while both processes run at once.
    calls += [call for call in calls if call[0] in ("parse_many utf8", "parse_many large_utf8")] * 4
    calls = [call for call in calls if readers == "all" or call[0].startswith(f"{readers} ")]
    outcomes: dict[str, dict[str, int]] = {what: {"ok": 0, "refused": 0} for what, _, _ in calls}
    writer = subprocess.Popen([sys.executable, __file__, "write", path, str(seconds + 60), texts])
    try:
        # (no bound of time: the test's timeout ends a writer that never starts)
        while not struct.unpack_from("<q", shared, 0)[0]:
            if writer.poll() is not None:
                raise SystemExit("the writer did not start")
            time.sleep(0.001)
        # For the time asked, and on until each reader (parse_many, tokenize_many) met
        # the writer's lies in some call (a writer the machine starves could leave none
        # in that time), within a bound: the tests check that each did.
        started = time.monotonic()
        while time.monotonic() - started < seconds or (
            not all(met(outcomes).values()) and time.monotonic() - started < 30 * seconds
        ):
            for what, call, column in calls:
                try:
                    call(column)
                except ValueError:  # ParseError too
                    outcomes[what]["refused"] += 1
                except Exception as error:  # reported, for the test to judge
                    other = f"{type(error).__name__}: {error}"
                    outcomes[what][other] = outcomes[what].get(other, 0) + 1
                else:
                    outcomes[what]["ok"] += 1
    finally:
        struct.pack_into("<q", shared, 8, 1)
        writer.wait(timeout=60)
    rounds = struct.unpack_from("<q", shared, 0)[0]
    report = {
        "implementation": sashite_epin.IMPLEMENTATION,
        "kernel": sashite_epin.BYTES_KERNEL,
        "rounds": rounds,
        "outcomes": outcomes,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    role, file, duration, texts = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    VOCABULARY = VOCABULARIES[texts]
    if role == "read":
        read(file, duration, texts, sys.argv[5])
    else:
        write(file, duration, texts)
