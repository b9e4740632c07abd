"""A tokenize_many result's offsets, row_offsets and missing_rows are its own arrays,
which a caller may change: a selection, ``+`` and every export then refuse them
(ValueError), never reading by them; and another thread resizing or rewriting them while
an export or ``rows`` reads them without the GIL crashes nothing (the compiled core
read them where they were when it started, and wrote rows by ranges checked before)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from types import ModuleType

import pytest

from sashite_epin._marks import LYING_LAYOUT


def result(core: ModuleType) -> object:
    return core.tokenize_many(["K^Q'", None, "x^^ p", "", "q"], True, "mark")


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.row_offsets.__setitem__(-1, 10**12),  # 7 TiB of rows, made
        lambda r: r.row_offsets.__setitem__(2, 0),  # going back
        lambda r: r.row_offsets.__delitem__(slice(None)),
        lambda r: r.offsets.pop(),
    ],
)
@pytest.mark.parametrize(
    "call",
    [lambda r: r[::-1], lambda r: r[[0]], lambda r: r.valid(), lambda r: r + r],
)
def test_a_selection_or_sum_of_changed_arrays_is_a_value_error(
    core: ModuleType, change: object, call: object
) -> None:
    r = result(core)
    change(r)  # type: ignore[operator]
    with pytest.raises(ValueError, match="rows and offsets do not describe"):
        call(r)  # type: ignore[operator]


def test_to_polars_of_changed_offsets_is_a_value_error(core: ModuleType) -> None:
    pytest.importorskip("polars")
    r = result(core)
    r.offsets.pop()
    with pytest.raises(ValueError, match=LYING_LAYOUT[:20]):
        r.to_polars()


RACE = """
import threading, time
from sashite_epin import Epin
r = Epin.tokenize_many(["K^ q p B", None] * 200_000, errors="mark")
arrays = (r.offsets, r.row_offsets, r.missing_rows)
stop = False
def resize(arr):
    while not stop:
        try:
            k = len(arr)
            arr.extend(arr[:1] * 300_000)  # its items moved (mremap), the old ones unmapped
            del arr[k:]
        except BufferError:  # while an export holds it
            pass
def rewrite(arr):
    n = len(arr)
    while not stop:
        for v in (10**9, -10**9, 2**62, arr[n // 2 - 1]):
            arr[n // 2] = v
threads = [threading.Thread(target=f, args=(a,)) for a in arrays for f in (resize, rewrite)]
for t in threads:
    t.start()
calls = (r.__arrow_c_array__, lambda: r.by_row().__arrow_c_array__(), lambda: r.rows)
end = time.monotonic() + 2
while time.monotonic() < end:
    for call in calls:
        try:
            call()
        except ValueError:
            pass
stop = True
for t in threads:
    t.join()
print("ok")
"""


def test_layout_arrays_changed_by_other_threads_crash_no_export(core: ModuleType) -> None:
    env = dict(os.environ, SASHITE_EPIN_IMPLEMENTATION=core.IMPLEMENTATION)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(RACE)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    if done.returncode < 0:
        pytest.fail(f"the exporting process died of {signal.Signals(-done.returncode).name}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.offsets.__setitem__(0, -5),
        lambda r: r.missing_rows.__setitem__(0, 0),  # a row that holds tokens
        lambda r: r.missing_rows.extend([1, 1]),  # twice, not ascending
    ],
)
@pytest.mark.parametrize(
    "export",
    [
        lambda r: r.__arrow_c_array__(),
        lambda r: r.by_row().__arrow_c_array__(),
        lambda r: r[::-1],
        lambda r: r + r,
    ],
)
def test_changed_arrays_a_pickle_would_refuse_are_refused(
    core: ModuleType, change: object, export: object
) -> None:
    """What a pickle's layout may not hold (checked_layout), the result's own arrays
    changed to hold it are refused by the export too: a missing row that holds tokens
    put its tokens out of the by-row export and showed the missing one as empty."""
    import pickle

    r = result(core)
    change(r)  # type: ignore[operator]
    with pytest.raises(ValueError, match="describe"):
        pickle.loads(pickle.dumps(r))
    with pytest.raises(ValueError, match="rows and offsets do not describe"):
        export(r)  # type: ignore[operator]
