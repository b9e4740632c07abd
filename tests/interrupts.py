"""A long call stopped by Ctrl-C, in a process of its own (tests/test_interrupts.py).

    python tests/interrupts.py CASE

Builds the case's input and runs the call whole twice, printing ``whole SECONDS`` (the
shorter); then prints ``go`` and runs it again, while the parent sends SIGINT a while
after ``go``.  Prints ``interrupted T`` (time.monotonic() when the SIGINT handler ran,
raising KeyboardInterrupt out of the call) or ``finished T``, then ``ok`` once the
interned token strings have the reference counts they had before and a small parse gives
the right result: the process goes on working.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable

import numpy as np

from sashite_epin import Epin
from sashite_epin._corpora import EPIN_TOKENS, PLACEMENTS, uniform

# Tokens per case: a call of a few tenths of a second with the portable kernel (the
# parent forces it, so the case stays long on every CPU without more memory).
COUNT = 30_000_000


def case(name: str) -> Callable[[], object]:
    tokens = uniform(1 << 16)
    repeat = COUNT // len(tokens)
    if name == "bytes":
        data = (" ".join(tokens).encode() + b" ") * repeat
        return lambda: Epin.parse_many(data)
    if name == "numpy S4":
        array = np.tile(np.array([t.encode() for t in tokens], dtype="S4"), repeat)
        return lambda: Epin.parse_many(array)
    if name == "numpy U4":
        array = np.tile(np.array(tokens, dtype="U4"), repeat)
        return lambda: Epin.parse_many(array)
    if name == "pyarrow large_string":
        import pyarrow as pa

        lengths = np.tile(np.array([len(t) for t in tokens], dtype=np.int64), repeat)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        data = "".join(tokens).encode() * repeat
        column = pa.LargeStringArray.from_buffers(
            len(lengths), pa.py_buffer(offsets), pa.py_buffer(data)
        )
        return lambda: Epin.parse_many(column)
    if name == "pyarrow chunked (a stream)":
        import pyarrow as pa

        chunks = pa.chunked_array([pa.array(tokens * (repeat // 4))] * 4)
        return lambda: Epin.parse_many(chunks)
    if name == "tokenize_many":
        column = list(PLACEMENTS) * (COUNT // 30 // len(PLACEMENTS))
        return lambda: Epin.tokenize_many(column)
    if name == "tokenize":
        text = "".join(PLACEMENTS) * (COUNT // 250)
        return lambda: Epin.tokenize(text)
    if name == "numpy StringDType":
        array = np.tile(np.array(tokens, dtype=np.dtypes.StringDType()), repeat)
        return lambda: Epin.parse_many(array)
    if name == "list":
        items = tokens * repeat
        return lambda: Epin.parse_many(items)
    if name == "iterator":  # written in C: no bytecode runs while it is read
        items = tokens * repeat
        return lambda: Epin.parse_many(iter(items))
    if name == "numpy object":
        array = np.array(tokens * repeat, dtype=object)
        return lambda: Epin.parse_many(array)
    if name in ("tokens()", "to_bytes()", "codes()", "Arrow export"):
        result = Epin.parse_many(tokens * repeat)
        return {
            "tokens()": result.tokens,
            "to_bytes()": result.to_bytes,
            "codes()": result.codes,
            "Arrow export": result.__arrow_c_array__,
        }[name]
    if name == "from_codes":
        codes = np.tile(np.asarray(Epin.parse_many(tokens).codes()), repeat * 2)
        return lambda: Epin.from_codes(codes)
    raise SystemExit(f"no case {name!r}")


def main() -> None:
    call = case(sys.argv[1])
    # The length of a warm call, the shortest of two: a first call also pays for its
    # result's fresh memory, and the interrupted call, warm, could end before the
    # signal that a third of a cold one times.
    whole = []
    for _ in range(2):
        started = time.monotonic()
        call()
        whole.append(time.monotonic() - started)
    print(f"whole {min(whole):.6f}", flush=True)
    # The interned token strs (not the one-character ones: CPython shares those with
    # any code that uses the character, which may run at any moment).
    interned = [s for s in Epin.parse_many(list(EPIN_TOKENS)).tokens() if len(s) > 1]
    counts = [sys.getrefcount(s) for s in interned]
    raised = []

    def handler(signum: int, frame: object) -> None:
        raised.append(time.monotonic())  # when the core let Python see the signal
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    print("go", flush=True)
    try:
        result = call()
    except KeyboardInterrupt:
        print(f"interrupted {raised[0]:.6f}", flush=True)
    else:
        print(f"finished {time.monotonic():.6f}", flush=True)
        del result
    # Nothing the interrupted call took is kept (tokens() had references to add).
    after = [sys.getrefcount(s) for s in interned]
    changed = [(str(s), a - c) for s, a, c in zip(interned, after, counts, strict=True) if a != c]
    assert not changed, (len(changed), changed[:5])
    small = Epin.parse_many(b"K^ +p' q")
    assert [str(t) for t in small] == ["K^", "+p'", "q"]
    print("ok", flush=True)


if __name__ == "__main__":
    main()
