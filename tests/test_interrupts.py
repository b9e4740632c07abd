"""Ctrl-C stops a long call at once: each case in a process of its own
(tests/interrupts.py) that measures the call's CPU time, then runs it again under a
timer on the process's CPU clock that sends SIGINT a third of the way into it, on the
compiled core.  KeyboardInterrupt must come out of the call before two thirds of it
have run, where a call that checked no signal would run to its end; the call leaves
no partial result, and the process goes on working.  All is counted in the process's
CPU time, so other work on the machine moves nothing, and no absolute time is
asserted.  (The pure-Python twin stops where Python itself checks: between
bytecodes.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import sashite_epin

CHILD = Path(__file__).with_name("interrupts.py")
CASES = [
    "bytes",
    "numpy S4",
    "numpy U4",
    "numpy StringDType",
    "pyarrow large_string",
    "pyarrow chunked (a stream)",
    "pyarrow chunks, marked",
    "list",
    "iterator",
    "numpy object",
    "tokens()",
    "to_bytes()",
    "codes()",
    "Arrow export",
    "from_codes",
    "tokenize",
    "tokenize_many",
    "boards",
    "Boards.squares()",
    "Boards.placements()",
]

pytestmark = [
    pytest.mark.skipif(
        sashite_epin.IMPLEMENTATION != "cython", reason="the twin stops between bytecodes"
    ),
    pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no CPU-time timer"),
]


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_stops_a_long_call_at_once(case: str) -> None:
    env = {**os.environ, "SASHITE_EPIN_KERNEL": "portable"}
    done = subprocess.run(
        [sys.executable, str(CHILD), case],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    lines = done.stdout.split("\n")
    assert lines[0].startswith("interrupted "), (done.stdout, done.stderr, done.returncode)
    figures = lines[0].split()
    whole, after, allowance = float(figures[2]), float(figures[4]), float(figures[-1])
    # The signal came a third of the way into the call: one that checked no signal
    # would end two thirds of its length after it; one that checks ends within a piece
    # (and the timer's own lateness, a scheduler tick), or after a step of CPython's
    # own that no extension can interrupt (allowance: a result list's allocation).
    assert after < whole / 3 + allowance, lines[0]
    assert (lines[1], done.returncode) == ("ok", 0), done.stderr
