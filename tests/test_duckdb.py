"""The DuckDB SQL functions (``sashite_epin.duckdb.register``) against a real in-process
DuckDB: every function gives what ``parse_many`` / ``tokenize_many`` give, over tables
past DuckDB's vector size (2,048 rows) and with NULLs, and the struct types are the
public schema's."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from conftest import optional

import sashite_epin
from sashite_epin import Epin, Pin
from sashite_epin._corpora import PLACEMENTS, with_invalid

# Libraries without a free-threaded wheel: their tests skip where missing.
duckdb: Any = optional("duckdb")
engine: Any = optional("sashite_epin.duckdb")

# Past two of DuckDB's vectors, with NULLs, near misses and placements.
ENTRIES: list[str | None] = [*with_invalid(5000, seed=4), None, "", "K''", None, *PLACEMENTS]


@pytest.fixture(scope="module")
def con() -> Any:
    connection = duckdb.connect()
    engine.register(connection)
    table = pa.table({"n": pa.array(range(len(ENTRIES)), pa.int64()), "t": ENTRIES})
    connection.register("entries", table)
    return connection


def column(con: Any, sql: str) -> list[Any]:
    return [row[0] for row in con.sql(f"{sql} FROM entries ORDER BY n").fetchall()]


@pytest.mark.parametrize(("notation", "prefix"), [(Epin, "epin"), (Pin, "pin")])
def test_parse_gives_every_field_of_the_result(con: Any, notation: Any, prefix: str) -> None:
    want = pa.table(notation.parse_many(ENTRIES, errors="mark")).to_pylist()
    assert column(con, f"SELECT {prefix}_parse(t)") == want


@pytest.mark.parametrize(("notation", "prefix"), [(Epin, "epin"), (Pin, "pin")])
def test_valid_and_reason(con: Any, notation: Any, prefix: str) -> None:
    result = notation.parse_many(ENTRIES, errors="mark")
    reasons = pa.table(result).column("reason").to_pylist()
    assert column(con, f"SELECT {prefix}_valid(t)") == list(result.valid_mask())
    assert column(con, f"SELECT {prefix}_reason(t)") == reasons
    assert "MISSING" in reasons and len(set(reasons)) > 5  # many reasons, not just one


@pytest.mark.parametrize(("notation", "prefix"), [(Epin, "epin"), (Pin, "pin")])
def test_tokens_lists_a_placements_tokens(con: Any, notation: Any, prefix: str) -> None:
    rows = notation.tokenize_many(ENTRIES, errors="mark").by_row()
    want = pa.table(rows).column("tokens").to_pylist()
    got = column(con, f"SELECT {prefix}_tokens(t)")
    assert got == want
    assert got[ENTRIES.index(None)] is None and got[ENTRIES.index("")] == []
    first = got[ENTRIES.index(PLACEMENTS[0])]
    assert [t["token"] for t in first[:3]] == ["-r", "n", "b"] and first[1]["offset"] == 2


def test_null_in_is_a_missing_entry_not_a_null_struct(con: Any) -> None:
    (row,) = con.sql(
        "SELECT epin_parse(NULL::VARCHAR), epin_valid(NULL), epin_reason(NULL), epin_tokens(NULL)"
    ).fetchall()
    parsed, valid, reason, tokens = row
    assert parsed["valid"] is False and parsed["reason"] == "MISSING"
    assert parsed["token"] is None and parsed["abbr"] is None
    assert (valid, reason, tokens) == (False, "MISSING", None)


def test_struct_types_are_the_public_schemas_plain_form(con: Any) -> None:
    for prefix in ("epin", "pin"):
        kind = con.sql(f"SELECT {prefix}_parse('K') AS p").types[0]
        plain = sashite_epin.schema(prefix, "plain")
        assert [name for name, _ in kind.children] == plain.names
        listed = con.sql(f"SELECT {prefix}_tokens('K') AS p").types[0]
        assert [name for name, _ in listed.child.children] == [*plain.names, "offset"]


def test_reason_counts_group_by_in_sql(con: Any) -> None:
    counts = dict(con.sql("SELECT epin_reason(t) r, count(*) FROM entries GROUP BY r").fetchall())
    result = Epin.parse_many(ENTRIES, errors="mark")
    want: dict[str | None, int] = {}
    for reason in pa.table(result).column("reason").to_pylist():
        want[reason] = want.get(reason, 0) + 1
    assert counts == want


def test_register_refuses_what_is_not_a_connection_and_registers_again() -> None:
    with pytest.raises(TypeError, match="DuckDB connection"):
        engine.register("memory")
    with pytest.raises(ValueError, match="prefixes"):
        engine.register(duckdb.connect(), prefixes=("fen",))
    connection = duckdb.connect()
    engine.register(connection, prefixes=("pin",))
    engine.register(connection, prefixes=("pin",))  # again: replaced, not refused
    assert connection.sql("SELECT pin_valid('K''')").fetchall() == [(False,)]
    with pytest.raises(duckdb.CatalogException):
        connection.sql("SELECT epin_valid('K')")
