"""Where one machine is not enough: examples/dask_tokens.py parses a multi-file Parquet
dataset of token columns with Dask, on a local cluster of process workers and with the
threaded scheduler, and examples/polars_tokens.py with polars' streaming engine; both
report the piece counts and the invalid rows; the per-partition results pickle and
combine.  Small data, real Dask, real polars, real processes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sashite_epin import Epin
from sashite_epin._corpora import with_invalid


def needs(library: str) -> pytest.MarkDecorator:
    """Skip where the library has no wheel for this interpreter (free-threaded CPython)."""
    missing = importlib.util.find_spec(library) is None
    return pytest.mark.skipif(missing, reason=f"{library} is not installed for this interpreter")


EXAMPLE = Path(__file__).parent.parent / "examples" / "dask_tokens.py"
POLARS_EXAMPLE = EXAMPLE.with_name("polars_tokens.py")
FILES = 4
ROWS = 3000


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str | None]]:
    folder = tmp_path_factory.mktemp("games")
    everything: list[str | None] = []
    for k in range(FILES):
        tokens: list[str | None] = list(with_invalid(ROWS, seed=k))
        tokens[k * 7] = None
        everything += tokens
        squares = [f"s{i}" for i in range(ROWS)]
        pq.write_table(pa.table({"square": squares, "piece": tokens}), folder / f"part-{k}.parquet")
    return folder, everything


Report = tuple[dict[str, int], int, list[str], dict[str, int]]


def expected_report(tokens: list[str | None]) -> Report:
    result = Epin.parse_many(tokens, errors="mark")
    counts: dict[str, int] = {}
    for epin in result.valid():
        counts[epin.pin.abbr] = counts.get(epin.pin.abbr, 0) + 1
    sample = [f"{e.token!a} {e.reason.name}" for e in result.errors()[:5]]  # type: ignore[union-attr]
    reasons: dict[str, int] = {}
    for error in result.errors():
        name = error.reason.name  # type: ignore[union-attr]
        reasons[name] = reasons.get(name, 0) + 1
    return counts, len(result.invalid), sample, reasons


def run_example(example: Path, *args: str) -> Report:
    done = subprocess.run(
        [sys.executable, str(example), *args], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "abbr count"
    at = next(i for i, line in enumerate(lines) if line.startswith("invalid "))
    by = lines.index("reason count")
    counts = {abbr: int(n) for abbr, n in (line.split() for line in lines[1:at])}
    reasons = {name: int(n) for name, n in (line.split() for line in lines[by + 1 :])}
    sample = [line.strip() for line in lines[at + 1 : by]]
    return counts, int(lines[at].split()[1]), sample, reasons


@needs("distributed")
def test_process_workers_report_what_one_process_finds(
    dataset: tuple[Path, list[str | None]],
) -> None:
    folder, tokens = dataset
    assert run_example(EXAMPLE, str(folder), "--column", "piece") == expected_report(tokens)


@needs("dask")
def test_the_threaded_scheduler_reports_the_same(dataset: tuple[Path, list[str | None]]) -> None:
    folder, tokens = dataset
    got = run_example(EXAMPLE, str(folder), "--column", "piece", "--threads")
    assert got == expected_report(tokens)


@needs("polars")
def test_polars_streaming_reports_the_same(dataset: tuple[Path, list[str | None]]) -> None:
    folder, tokens = dataset
    assert run_example(POLARS_EXAMPLE, str(folder), "--column", "piece") == expected_report(tokens)


@needs("dask")
def test_the_column_is_an_argument(tmp_path: Path) -> None:
    tokens: list[str | None] = ["K^", "x1", "q"]
    pq.write_table(pa.table({"token": tokens}), tmp_path / "part-0.parquet")
    want = expected_report(tokens)
    assert run_example(EXAMPLE, str(tmp_path), "--threads") == want
    assert run_example(POLARS_EXAMPLE, str(tmp_path)) == want


@needs("dask")
def test_partition_results_pickle_and_combine(
    dataset: tuple[Path, list[str | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The example is imported by name, here and in the workers (which are handed the
    # parent's path), so its folder goes on the path for this test only.
    monkeypatch.syspath_prepend(EXAMPLE.parent)
    import dask
    from dask_tokens import parsed_arrays  # type: ignore[import-not-found]

    with dask.config.set(scheduler="processes", num_workers=2):
        combined = parsed_arrays(str(dataset[0]), "piece")
    whole = Epin.parse_many(dataset[1], errors="mark")
    assert combined == whole and list(combined.invalid) == list(whole.invalid)
    assert [e.token for e in combined.errors()] == [e.token for e in whole.errors()]
