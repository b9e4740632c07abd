"""Arrow columns whose offsets, views and dictionary indices another process rewrites
while parse_many and tokenize_many read them, under every kernel this CPU runs and on
the twin: no reader crashes, and each call gives a result or a ValueError.  A kernel
that checks an offset and then reads it again from the column for its loads reads
wherever the writer pointed it meanwhile (a segmentation fault within a second here).
Each case runs in a process of its own, with the writer in another one sharing the
column's buffers by a mapped file (racing_offsets.py): a crash fails the case, not the
run, and the writer never waits on the reader's GIL."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from conftest import CORES

pytest.importorskip("pyarrow")

KIT = Path(__file__).with_name("racing_offsets.py")
SECONDS = 1.5  # of reading per case, at least (on until a call met the writer's lies)
CASES = [
    (core.IMPLEMENTATION, kernel)
    for core in CORES
    for kernel in (core.KERNELS if core.IMPLEMENTATION == "cython" else ("python",))
]


@functools.cache
def race(
    implementation: str, kernel: str, texts: str = "tokens", readers: str = "all"
) -> dict[str, object]:
    """What the reader's process reports: the kernel it ran, the writer's rounds, and how
    each reader's calls ended on each column (of ASCII tokens, or "other": some entries
    not ASCII)."""
    env = {k: v for k, v in os.environ.items() if k != "SASHITE_EPIN_KERNEL"}
    env["SASHITE_EPIN_IMPLEMENTATION"] = implementation
    if implementation == "cython":
        env["SASHITE_EPIN_KERNEL"] = kernel
    with TemporaryDirectory() as folder:
        file = str(Path(folder) / "columns")
        done = subprocess.run(
            [sys.executable, str(KIT), "read", file, str(SECONDS), texts, readers],
            capture_output=True, text=True, env=env, timeout=300,
        )  # fmt: skip
    if done.returncode < 0:
        pytest.fail(f"{kernel}: the reader died of {signal.Signals(-done.returncode).name}")
    assert done.returncode == 0, (kernel, done.returncode, done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def others(counts: dict[str, int]) -> dict[str, int]:
    """The ways calls ended that are neither a result nor a ValueError."""
    return {how: n for how, n in counts.items() if how not in ("ok", "refused")}


@pytest.mark.parametrize(("implementation", "kernel"), CASES)
def test_offsets_rewritten_while_read_crash_no_reader(implementation: str, kernel: str) -> None:
    report = race(implementation, kernel)
    assert report["kernel"] == kernel
    assert isinstance(report["rounds"], int) and report["rounds"] > 0
    outcomes: dict[str, dict[str, int]] = report["outcomes"]  # type: ignore[assignment]
    # the readers met the writer's lies (and were not merely lucky)
    parsed = [counts for what, counts in outcomes.items() if what.startswith("parse_many")]
    assert any(counts["refused"] for counts in parsed), outcomes
    for what, counts in outcomes.items():
        if what.startswith("parse_many"):
            assert not others(counts), (what, counts)


@pytest.mark.parametrize(("implementation", "kernel"), CASES)
def test_offsets_rewritten_while_read_are_a_value_error_for_tokenize_many(
    implementation: str, kernel: str
) -> None:
    outcomes: dict[str, dict[str, int]] = race(implementation, kernel)["outcomes"]  # type: ignore[assignment]
    tokenized = {what: counts for what, counts in outcomes.items() if what.startswith("tokenize")}
    # tokenize_many met the writer's lies too (the rewritten offsets were read)
    assert tokenized and any(counts["refused"] for counts in tokenized.values()), outcomes
    for what, counts in tokenized.items():
        assert not others(counts), (what, counts)


@pytest.mark.parametrize(("implementation", "kernel"), CASES)
def test_entries_not_ascii_rewritten_while_read_crash_no_parse_many(
    implementation: str, kernel: str
) -> None:
    # invalid entries, which parse_many reads again to name (indices and offsets
    # checked again there: an index read again unchecked was a segmentation fault)
    report = race(implementation, kernel, "other", "parse_many")
    outcomes: dict[str, dict[str, int]] = report["outcomes"]  # type: ignore[assignment]
    assert any(counts["refused"] for counts in outcomes.values()), outcomes
    for what, counts in outcomes.items():
        assert not others(counts), (what, counts)


@pytest.mark.parametrize(("implementation", "kernel"), CASES)
def test_rows_not_ascii_rewritten_while_read_crash_no_tokenize_many(
    implementation: str, kernel: str
) -> None:
    report = race(implementation, kernel, "other", "tokenize_many")
    outcomes: dict[str, dict[str, int]] = report["outcomes"]  # type: ignore[assignment]
    assert any(counts["refused"] for counts in outcomes.values()), outcomes
    for what, counts in outcomes.items():
        assert not others(counts), (what, counts)
