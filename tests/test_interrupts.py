"""Ctrl-C stops a long call at once: each case in a process of its own (tests/interrupts.py)
that is sent SIGINT a third of the way into a call whose whole length it measured just
before, on the compiled core.  The interrupt must arrive while at least a sixth of the
call was still to run (a call that checked no signal would finish first), the call
leaves no partial result, and the process goes on working.  No absolute time is
asserted.  (The pure-Python twin stops where Python itself checks: between bytecodes.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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
]

pytestmark = pytest.mark.skipif(
    sashite_epin.IMPLEMENTATION != "cython", reason="the twin stops between bytecodes"
)


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_stops_a_long_call_at_once(case: str) -> None:
    env = {**os.environ, "SASHITE_EPIN_KERNEL": "portable"}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), case],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    try:
        whole = float(child.stdout.readline().split()[1])
        assert child.stdout.readline().strip() == "go"
        time.sleep(whole / 3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    lines = out.split("\n")
    assert len(lines[0].split()) == 2, (out, err, child.returncode)
    outcome, when = lines[0].split()
    assert outcome == "interrupted", out + err
    # A call that checked no signal would end two thirds of its length after it; one
    # that checks ends within a piece (under a loaded CI machine, with some slack).
    assert float(when) - sent < whole / 2, (whole, float(when) - sent)
    assert (lines[1], child.returncode) == ("ok", 0), err
