"""A long call stopped by Ctrl-C, in a process of its own (tests/test_interrupts.py).

    python tests/interrupts.py CASE [--tokens N] [--at FRACTION]

Builds the case's input (unless told, 30M tokens, or up to 60M where the call would
take under a tenth of a second of CPU) and runs the call whole twice, timing the
shorter in the process's CPU time.  Then it runs the call again under a timer on the process's CPU
clock that expires FRACTION of the way into it (a third unless told) and sends SIGINT,
handled by Ctrl-C's own handler (``signal.default_int_handler``, which raises
KeyboardInterrupt).  Prints

    interrupted whole W after A handler H allowance U

W: the call's CPU seconds; A: the CPU seconds the process spent from the timer's expiry
to KeyboardInterrupt out of the call, H of them before the handler ran (the timer's
own lateness, at most a scheduler tick, and the wait for the core's next check; the
rest is the unwinding, freeing what the call had built); U: the CPU seconds CPython
itself may spend in one step no extension can interrupt (list_allocation()), 0 for most
cases.  Or ``finished`` if the call
ended first three times running.  Then ``ok`` once the interned token strings have the
reference counts they had before and a small parse gives the right result: the
process goes on working.

CPU time, not wall time: while other processes have the CPUs this one does nothing, so
neither the timer's expiry nor the measure depends on how busy the machine is (on a
quiet machine the wall seconds are the same figures).  The timer is POSIX's
``timer_create`` on the process's CPU clock (Linux, through ctypes: the kernel fires it
from the precise clock, at most a tick late); elsewhere ``setitimer(ITIMER_PROF)``,
whose clock may be sampled at ticks, sending SIGPROF to the same handler.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
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
# A case whose call would take less CPU time than this (in seconds) gets more tokens
# (up to twice as many, sized for 1.5x this): the timer's lateness and the core's piece
# must stay well inside a third of the call.
SHORTEST = 0.1


class _Sigevent(ctypes.Structure):  # struct sigevent, as far as SIGEV_SIGNAL reads it
    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),  # SIGEV_SIGNAL: 0
        ("padding", ctypes.c_byte * 64),  # the kernel reads 64 bytes
    ]


class _Timespec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("interval", _Timespec), ("value", _Timespec)]


class CpuTimer:
    """A one-shot timer on the process's CPU clock that sends ``signum``."""

    def __init__(self) -> None:
        self.libc = None
        if sys.platform.startswith("linux"):
            for name in (None, ctypes.util.find_library("rt")):  # librt before glibc 2.34
                lib = ctypes.CDLL(name, use_errno=True)
                if hasattr(lib, "timer_create"):
                    self.libc = lib
                    break
        if self.libc is not None:
            self.signum = signal.SIGINT
            self.timer = ctypes.c_void_p()
            event = _Sigevent(None, self.signum, 0)
            clock = time.CLOCK_PROCESS_CPUTIME_ID
            if self.libc.timer_create(clock, ctypes.byref(event), ctypes.byref(self.timer)):
                raise OSError(ctypes.get_errno(), "timer_create")
        else:
            self.signum = signal.SIGPROF

    def set(self, seconds: float) -> None:
        """Expires after ``seconds`` of CPU time from now; 0 disarms."""
        if self.libc is None:
            signal.setitimer(signal.ITIMER_PROF, seconds)
            return
        whole = int(seconds)
        value = _Timespec(whole, int((seconds - whole) * 1e9))
        spec = _Itimerspec(_Timespec(0, 0), value)
        if self.libc.timer_settime(self.timer, 0, ctypes.byref(spec), None):
            raise OSError(ctypes.get_errno(), "timer_settime")

    def close(self) -> None:
        if self.libc is not None:
            self.libc.timer_delete(self.timer)


def case(name: str, count: int = COUNT) -> Callable[[], object]:
    tokens = uniform(1 << 16)
    repeat = max(1, count // len(tokens))
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

        chunks = pa.chunked_array([pa.array(tokens * max(1, repeat // 4))] * 4)
        return lambda: Epin.parse_many(chunks)
    if name == "pyarrow chunks, marked":  # many chunks, each one piece, all marked
        import pyarrow as pa

        bad = pa.array(["K^^"] * 20_000)  # a marked entry costs ten clean ones: a tenth
        chunks = pa.chunked_array([bad] * max(1, count // 10 // 20_000))
        return lambda: Epin.parse_many(chunks, errors="mark")
    if name == "tokenize_many":
        column = list(PLACEMENTS) * max(1, count // 30 // len(PLACEMENTS))
        return lambda: Epin.tokenize_many(column)
    if name in ("boards", "Boards.squares()", "Boards.placements()"):
        column = list(PLACEMENTS) * max(1, count // 30 // len(PLACEMENTS))
        if name == "boards":
            return lambda: Epin.boards(column)
        board = Epin.boards(column)  # made once: the case is the call on it
        return board.squares if name == "Boards.squares()" else board.placements
    if name == "tokenize":
        text = "".join(PLACEMENTS) * max(1, count // 250)
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
        codes = np.tile(np.asarray(Epin.parse_many(tokens).codes()), repeat)
        result = Epin.from_codes(codes)
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


def cpu_seconds(call: Callable[[], object]) -> float:
    """The CPU time of a warm call, the shorter of two: a first call also pays for its
    result's fresh memory.  The result is freed after the clock is read."""
    spent = []
    for _ in range(2):
        started = time.process_time()
        result = call()
        spent.append(time.process_time() - started)
        del result
    return min(spent)


def list_allocation(n: int) -> float:
    """The CPU seconds CPython itself takes to make a list of n entries (PyList_New,
    which tokens() calls first): no extension can check a signal inside it.  Under the
    GIL its entries are calloc'd, pages faulted later (in tokens()'s loop, between its
    checks); a free-threaded build zeroes them at once, and a fifth of a second for 60M
    entries when the memory is fresh from the system.  The slower of two lists alive
    together: the second cannot reuse the first's memory."""
    new_list = ctypes.pythonapi.PyList_New
    new_list.restype, new_list.argtypes = ctypes.py_object, [ctypes.c_ssize_t]
    spent = []
    lists = []
    for _ in range(2):
        started = time.process_time()
        lists.append(new_list(n))  # entries NULL: only ever freed
        spent.append(time.process_time() - started)
    del lists
    return max(spent)


def interrupted(call: Callable[[], object], whole: float, at: float) -> str:
    """The call run with the timer set at ``at`` of its length; what it printed."""
    timer = CpuTimer()
    handled: list[float] = []
    calling = [False]

    def handler(signum: int, frame: object) -> None:
        if calling[0]:  # not a timer that expired just after the call
            handled.append(time.process_time())  # when the core let Python see it
            signal.default_int_handler(signum, frame)

    was = signal.signal(timer.signum, handler)
    try:
        # A call shorter this time than measured may end before the timer: run it
        # again, remeasured.
        for _ in range(3):
            started = time.process_time()
            calling[0] = True
            timer.set(whole * at)
            try:
                result = call()
                calling[0] = False
            except KeyboardInterrupt:
                stopped = time.process_time()
                expiry = started + whole * at
                return (
                    f"interrupted whole {whole:.6f} after {stopped - expiry:.6f}"
                    f" handler {handled[0] - expiry:.6f}"
                )
            finally:
                calling[0] = False
                timer.set(0)
            del result
            whole = cpu_seconds(call)
        return "finished"
    finally:
        signal.signal(timer.signum, was)
        timer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case")
    parser.add_argument("--tokens", type=int)
    parser.add_argument("--at", type=float, default=1 / 3)
    args = parser.parse_args()
    count = args.tokens
    if count is None:  # sized to last: an eighth first, timed, tells how many
        probe = cpu_seconds(case(args.case, COUNT // 8))
        wanted = int(COUNT / 8 * 1.5 * SHORTEST / max(probe, 1e-6))
        count = min(2 * COUNT, max(COUNT, wanted))
    call = case(args.case, count)
    whole = cpu_seconds(call)
    # The interned token strs (not the one-character ones: CPython shares those with
    # any code that uses the character, which may run at any moment).
    interned = [s for s in Epin.parse_many(list(EPIN_TOKENS)).tokens() if len(s) > 1]
    counts = [sys.getrefcount(s) for s in interned]
    # What the call spends in CPython's own allocation of a result list, where no signal
    # can be checked: the parent allows it on top of the core's own lateness.
    allowance = list_allocation(len(call())) if args.case == "tokens()" else 0.0
    print(f"{interrupted(call, whole, args.at)} allowance {allowance:.6f}", flush=True)
    # Nothing the interrupted call took is kept (tokens() had references to add).
    after = [sys.getrefcount(s) for s in interned]
    changed = [(str(s), a - c) for s, a, c in zip(interned, after, counts, strict=True) if a != c]
    assert not changed, (len(changed), changed[:5])
    small = Epin.parse_many(b"K^ +p' q")
    assert [str(t) for t in small] == ["K^", "+p'", "q"]
    print("ok", flush=True)


if __name__ == "__main__":
    main()
