"""The first export to a data library, from many threads at once, in a fresh process.

``to_arrow`` / ``to_polars`` / ``to_pandas`` import their library on first use.  While
one thread runs that import, the module already sits in ``sys.modules``, half made: a
thread that took it from there got ``AttributeError: partially initialized module
'polars' has no attribute 'DataFrame'``.  Each run here is a process that has imported
sashite_epin and none of the libraries; eight threads meet at a barrier and each makes
the three exports, in a different order, so that every library's first import is raced.

Runs are forked from one driver process that imported sashite_epin alone (a fork costs
milliseconds; the libraries' imports are the run's cost): ``SASHITE_EPIN_FIRST_IMPORT_RUNS``
sets how many (CI runs 50 for each core).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import sashite_epin

pytest.importorskip("polars")
pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

RUNS = int(os.environ.get("SASHITE_EPIN_FIRST_IMPORT_RUNS", "4"))

DRIVER = textwrap.dedent(
    """
    import os, sys, threading
    import sashite_epin
    from sashite_epin import Epin

    LIBRARIES = ("pyarrow", "polars", "pandas")
    already = [name for name in LIBRARIES if name in sys.modules]
    if already:
        sys.exit(f"imported with sashite_epin already: {already}")

    def run():
        result = Epin.parse_many(["K", "x^^", "+q'"], errors="mark")
        exports = (
            ("to_arrow", lambda: result.to_arrow().num_rows),
            ("to_polars", lambda: result.to_polars().height),
            ("to_pandas", lambda: len(result.to_pandas())),
        )
        barrier = threading.Barrier(8)
        failures = []

        def work(k):
            barrier.wait()
            for j in range(len(exports)):
                name, export = exports[(k + j) % len(exports)]
                try:
                    rows = export()
                except Exception as error:
                    failures.append(f"{name}: {error!r}")
                else:
                    if rows != 3:
                        failures.append(f"{name}: {rows} rows")

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return failures

    failed = 0
    for _ in range(int(sys.argv[1])):
        pid = os.fork()
        if pid == 0:  # a fresh process: none of the libraries imported yet
            failures = run()
            for failure in failures:
                print(failure, flush=True)
            os._exit(1 if failures else 0)
        _, status = os.waitpid(pid, 0)
        failed += status != 0
    print(f"{failed} of {sys.argv[1]} runs failed ({sashite_epin.IMPLEMENTATION})")
    sys.exit(1 if failed else 0)
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the runs are forked")
def test_the_first_exports_from_eight_threads_at_once_all_work() -> None:
    env = {**os.environ, "SASHITE_EPIN_IMPLEMENTATION": sashite_epin.IMPLEMENTATION}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(RUNS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60 + 30 * RUNS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"0 of {RUNS} runs failed" in done.stdout, done.stdout
