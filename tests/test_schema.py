"""The public schema of a result (``sashite_epin.schema``), the export in the form a
consumer asks for (the PyCapsule interface's ``requested_schema``), and the frames'
``token`` and ``prefix``: on both cores."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from conftest import optional

import sashite_epin
import sashite_epin.pandas
from sashite_epin import Epin, Pin
from sashite_epin._corpora import with_invalid

pl: Any = optional("polars")
optional("sashite_epin.polars")  # registers the namespace where polars is installed

ENTRIES: list[str | None] = [*with_invalid(3000, seed=6), None, "", "K''"]
DICTIONARY_FIELDS = ("abbr", "side", "state", "reason")


@pytest.mark.parametrize(("notation", "name"), [(Epin, "epin"), (Pin, "pin")])
def test_the_schema_is_the_exports_whatever_the_data(notation: Any, name: str) -> None:
    exported = pa.table(notation.parse_many(ENTRIES, errors="mark")).schema
    assert sashite_epin.schema(name) == exported
    assert ("derived" in exported.names) == (name == "epin")
    tokenized = pa.table(notation.tokenize_many(["K2q", None], errors="mark")).schema
    assert sashite_epin.schema(name, tokens=True) == tokenized
    plain = sashite_epin.schema(name, "plain")
    assert plain.names == exported.names
    for field in plain:
        want = pa.string() if field.name in DICTIONARY_FIELDS else exported.field(field.name).type
        assert field.type == want


def test_the_schema_refuses_what_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="notation"):
        sashite_epin.schema("feen")
    with pytest.raises(ValueError, match="strings"):
        sashite_epin.schema(strings="view")


@pytest.mark.parametrize(("notation", "name"), [(Epin, "epin"), (Pin, "pin")])
def test_a_plain_request_gives_plain_strings(notation: Any, name: str) -> None:
    result = notation.parse_many(ENTRIES, errors="mark")
    plain = sashite_epin.schema(name, "plain")
    table = pa.table(result, schema=plain)  # through __arrow_c_stream__
    assert table.schema == plain
    assert table.equals(pa.table(result).cast(plain))
    array = pa.array(result, type=pa.struct(list(plain)))  # through __arrow_c_array__
    assert array.type == pa.struct(list(plain)) and array.to_pylist() == table.to_pylist()
    assert not any(pa.types.is_dictionary(f.type) for f in table.schema)
    # large_string asked for: given too
    large = pa.schema(
        [f.with_type(pa.large_string()) if f.type == pa.string() else f for f in plain]
    )
    assert pa.table(result, schema=large).schema == large
    # the export's own schema, asked for: the export
    assert pa.table(result, schema=sashite_epin.schema(name)).equals(pa.table(result))


def test_a_request_the_result_cannot_honour_is_refused_by_name() -> None:
    result = Epin.parse_many(["K^", "x1"], errors="mark")
    exported = sashite_epin.schema()
    wrong_type = exported.set(exported.get_field_index("valid"), pa.field("valid", pa.int8()))
    with pytest.raises(ValueError, match="export valid as bool, not int8"):
        pa.table(result, schema=wrong_type)
    with pytest.raises(ValueError, match="export the fields"):
        pa.table(result, schema=sashite_epin.schema("pin"))
    with pytest.raises(ValueError, match="export the fields"):
        pa.array(result, type=pa.struct([pa.field("token", pa.string())]))
    with pytest.raises(ValueError, match="export terminal as bool, not string"):
        pa.table(result, schema=exported.set(4, pa.field("terminal", pa.string())))


@pytest.mark.parametrize("frame", ["arrow", "pandas", "polars"])
def test_frames_leave_out_or_prefix_the_token(frame: str) -> None:
    library = {"arrow": "pyarrow", "pandas": "pandas", "polars": "polars"}[frame]
    pytest.importorskip(library, reason=f"{library} is not installed for this interpreter")
    result = Epin.parse_many(ENTRIES, errors="mark")
    made = getattr(result, f"to_{frame}")
    names = sashite_epin.schema().names

    def columns(table: Any) -> list[str]:
        return list(table.column_names if frame == "arrow" else table.columns)

    assert columns(made()) == names
    assert columns(made(token=False)) == names[1:]
    assert columns(made(prefix="p_")) == ["p_" + n for n in names]
    assert columns(made(token=False, prefix="p_")) == ["p_" + n for n in names[1:]]
    whole, without = made(), made(token=False, prefix="p_")
    for name in names[1:]:  # the same columns, only named otherwise
        left, right = whole[name], without["p_" + name]
        if frame == "pandas":
            assert left.reset_index(drop=True).equals(right.reset_index(drop=True).rename(name))
        else:
            assert left.equals(right)
    with pytest.raises(TypeError, match="token"):
        made(token="no")
    with pytest.raises(TypeError, match="prefix"):
        made(prefix=1)


def test_the_accessors_parse_joins_back_in_one_line() -> None:
    frame = pd.DataFrame({"square": [f"s{i}" for i in range(len(ENTRIES))], "token": ENTRIES})
    joined = frame.join(frame["token"].epin.parse(errors="mark"))
    assert list(joined.columns) == ["square", *sashite_epin.schema().names]
    assert joined["token"].equals(frame["token"])
    with_token = frame["token"].epin.parse(errors="mark", token=True)
    assert list(with_token.columns) == sashite_epin.schema().names
    polars_frame = pl.DataFrame({"square": frame["square"].tolist(), "token": ENTRIES})
    stacked = polars_frame.hstack(polars_frame["token"].epin.parse(errors="mark"))
    assert stacked.columns == ["square", *sashite_epin.schema().names]


def test_the_tokenize_accessors_give_a_row_per_token_with_its_input_row() -> None:
    boards = ["K2q", None, "", "-r1+P^'", "x^^"]
    series = pd.Series(boards, index=[f"g{i}" for i in range(len(boards))])
    result = Epin.tokenize_many(boards, errors="mark")
    tokens = series.epin.tokenize(errors="mark")
    assert list(tokens.index) == [series.index[r] for r in result.rows]
    assert tokens["row"].tolist() == list(result.rows)
    assert tokens["token"].tolist() == pa.table(result).column("token").to_pylist()
    polars_tokens = pl.Series(boards).epin.tokenize(errors="mark")
    assert polars_tokens["row"].to_list() == list(result.rows)
    assert polars_tokens["offset"].to_list() == list(result.offsets)
    assert polars_tokens["reason"].dtype == pl.Series(boards).epin.reason().dtype
    with pytest.raises(sashite_epin.ParseError):
        series.epin.tokenize()


def test_a_non_nullable_request_over_nulls_is_refused(core: Any) -> None:
    """A request that says a field holds no null where it holds some is refused, as
    pyarrow's cast refuses it (the export would claim "not null" over nulls, and a
    reader may trust the claim); where the field has no null, it is honoured."""
    result = core.parse_many(["K^", "x1", None], True, "mark")
    for form in ("dictionary", "plain"):
        asked = sashite_epin.schema("epin", form)
        strict = pa.schema([f.with_nullable(False) for f in asked])
        with pytest.raises(ValueError, match="token with 1 null"):
            pa.table(result, schema=strict)
        with pytest.raises(ValueError, match="token with 1 null"):
            pa.array(result, type=pa.struct(list(strict)))
        only_valid = asked.set(6, asked.field(6).with_nullable(False))  # "valid": no null
        assert pa.table(result, schema=only_valid).schema == only_valid
    clean = core.parse_many(["K^", "q'"], True, "mark")
    plain = sashite_epin.schema("epin", "plain")
    strict = pa.schema([f.with_nullable(f.name == "reason") for f in plain])  # null: valid
    table = pa.table(clean, schema=strict)
    assert table.schema == strict and table.column("abbr").to_pylist() == ["K", "Q"]
