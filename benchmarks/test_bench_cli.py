"""The command line at the library's speed (pytest-benchmark): ``validate`` of one token
a line beside ``validate --split`` of the same file, CRLF and LF, 2,000,000 lines each,
run in this process through the CLI's own ``main`` (its output to /dev/null), so that
start-up does not count.  Goal: ``validate`` within 1.5x ``validate --split`` on the
same file, whatever its line ends.

    python -m pytest benchmarks/test_bench_cli.py --benchmark-group-by=group

Compare the means of one group: ``validate, CRLF`` / ``validate --split, CRLF`` is the
ratio the goal bounds.  The same figures by hand, as a user runs them::

    python -c "from sashite_epin._corpora import uniform; \\
        open('crlf.txt', 'wb').write('\\r\\n'.join(uniform(2_000_000)).encode() + b'\\r\\n')"
    time python -m sashite_epin validate crlf.txt
    time python -m sashite_epin validate --split crlf.txt
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from sashite_epin import _cli
from sashite_epin._corpora import uniform, with_invalid

pytest.importorskip("pytest_benchmark")

LINES = 2_000_000
# uniform: every line a valid token; with invalid: the corpus with invalid tokens among
# them (findings written, to /dev/null).
CORPORA = {"uniform": uniform(LINES), "with invalid": with_invalid(LINES)}
ENDS = {"CRLF": "\r\n", "LF": "\n"}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    folder = tmp_path_factory.mktemp("cli")
    made = {}
    for corpus, tokens in CORPORA.items():
        for ends, end in ENDS.items():
            path = folder / f"{corpus.replace(' ', '_')}.{ends.lower()}.txt"
            path.write_bytes((end.join(tokens) + end).encode("utf-8", "surrogateescape"))
            made[corpus, ends] = path
    return made


def validate(*args: str) -> int:
    """The command, in this process: its output (findings, counts) to /dev/null."""
    with open(os.devnull, "w") as devnull:
        with contextlib.redirect_stdout(devnull), contextlib.redirect_stderr(devnull):
            return _cli.main(["validate", *args])


@pytest.mark.parametrize("ends", ENDS)
@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("split", [False, True], ids=["validate", "validate --split"])
def test_validate_a_file(benchmark, files, corpus, ends, split):  # type: ignore[no-untyped-def]
    benchmark.group = f"CLI validate of 2M lines ({corpus})"
    benchmark.name = f"{'validate --split' if split else 'validate'}, {ends}"
    path = str(files[corpus, ends])
    args = ["--split", path] if split else [path]
    status = benchmark(validate, *args)
    assert status == (0 if corpus == "uniform" else 1)
