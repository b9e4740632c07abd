"""Ray Data's functions (``sashite_epin.ray``): on pyarrow blocks directly (every run),
then in a real local Ray (``ray.init(num_cpus=2)``, started once for the module; the
tests that need it skip where ray is not installed: ``pip install '.[engines]'``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from conftest import optional

import sashite_epin
import sashite_epin.ray as engine
from sashite_epin import Epin, Pin
from sashite_epin._corpora import PLACEMENTS, with_invalid

ray: Any = optional("ray")

# Past Ray's batches and blocks (the dataset below is cut into several), with gaps.
ENTRIES: list[str | None] = [*with_invalid(6000, seed=5), None, "", "K''", None]
TABLE = pa.table({"n": pa.array(range(len(ENTRIES)), pa.int64()), "token": ENTRIES})
TEXTS = pa.table(
    {"game": ["a", "b", "c", "d", "e"], "board": [PLACEMENTS[0], None, "", "K2q", "x^^"]}
)


def fields_of(notation: Any, entries: Any, strings: str = "dictionary") -> pa.Table:
    """What the result's own export gives, without token (the input column holds it)."""
    table = pa.table(notation.parse_many(entries, errors="mark"))
    if strings == "plain":
        table = table.cast(sashite_epin.schema(notation.__name__.lower(), "plain"))
    return table.drop_columns(["token"])


@pytest.mark.parametrize("notation", [Epin, Pin])
@pytest.mark.parametrize("strings", ["dictionary", "plain"])
def test_parse_keeps_the_block_and_adds_the_fields(notation: Any, strings: str) -> None:
    fn = engine.parse("token", prefix="p_", notation=notation.__name__.lower(), strings=strings)
    out = fn(TABLE)
    want = fields_of(notation, ENTRIES, strings)
    assert out.column_names == ["n", "token", *("p_" + name for name in want.column_names)]
    assert out.select(["n", "token"]).equals(TABLE)
    assert out.drop_columns(["n", "token"]).rename_columns(want.column_names).equals(want)


def test_parse_reads_a_block_of_many_chunks_and_refuses_a_clash() -> None:
    chunked = pa.concat_tables([TABLE.slice(0, 100), TABLE.slice(100)])
    assert engine.parse("token")(chunked).equals(engine.parse("token")(TABLE))
    with pytest.raises(ValueError, match="'valid'"):
        engine.parse("token")(TABLE.append_column("valid", TABLE.column("n")))
    with pytest.raises(ValueError, match="notation"):
        engine.parse("token", notation="fen")
    with pytest.raises(ValueError, match="strings"):
        engine.tokens("token", strings="view")


def test_tokens_gives_one_row_per_token_with_its_row() -> None:
    out = engine.tokens("board")(TEXTS)
    result = Epin.tokenize_many(TEXTS.column("board"), errors="mark")
    rows = list(result.rows)
    assert out.column("game").to_pylist() == [TEXTS.column("game")[r].as_py() for r in rows]
    assert out.column("token").to_pylist() == pa.table(result).column("token").to_pylist()
    assert out.column("offset").to_pylist() == list(result.offsets)
    assert "row" not in out.column_names  # the block's own columns say which row
    assert set(out.column("game").to_pylist()) == {"a", "d", "e"}  # no token: no row


# Ray's own deprecations (of its settings, warned as they are read) are not ours.
ray_warnings = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield ray
    finally:
        ray.shutdown()


@ray_warnings
def test_map_batches_in_a_real_ray(local_ray: Any) -> None:
    dataset = local_ray.data.from_arrow(TABLE).repartition(4)
    parsed = dataset.map_batches(
        engine.parse("token", prefix="piece_"), batch_format="pyarrow", batch_size=1000
    )
    out = pa.concat_tables(local_ray.get(parsed.to_arrow_refs())).sort_by("n")
    want = fields_of(Epin, ENTRIES)
    assert out.column("token").to_pylist() == ENTRIES
    for name in want.column_names:
        assert out.column("piece_" + name).to_pylist() == want.column(name).to_pylist(), name
    reasons = out.column("piece_reason").to_pylist()
    assert reasons.count("MISSING") == 2 and reasons.count(None) == sum(want["valid"].to_pylist())


@ray_warnings
def test_tokens_in_a_real_ray(local_ray: Any) -> None:
    dataset = local_ray.data.from_arrow(TEXTS).repartition(2)
    out = dataset.map_batches(engine.tokens("board"), batch_format="pyarrow").take_all()
    want = engine.tokens("board")(TEXTS).to_pylist()
    key = lambda row: (row["game"], row["offset"])  # noqa: E731
    assert sorted(out, key=key) == sorted(want, key=key)


@ray_warnings
def test_the_docs_ray_job_runs(local_ray: Any) -> None:
    # docs/engines.md shows it as text (its page runs without Ray): run it here, as shown.
    page = (Path(__file__).parent.parent / "docs" / "engines.md").read_text()
    section = page.split("## Ray", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"^```text\n(.*?)^```$", section, re.S | re.M)
    names: dict[str, Any] = {}
    exec(compile(code, "docs/engines.md", "exec"), names)
    out = pa.concat_tables(local_ray.get(names["reasons"])).sort_by("square")
    assert out.column("piece_reason").to_pylist() == ["MISSING", None, "OTHER_CHARACTER"]
    assert out.column_names[:3] == ["square", "token", "piece_abbr"]
