"""Every public call of sashite_epin, typed: ``mypy --strict`` checks this file (CI).

``main()`` runs the core and the data-frame parts (pandas, polars, pyarrow, numpy);
``engines()`` runs DuckDB's SQL functions and a Ray Data batch function on a pyarrow
block; ``spark_columns`` is checked, and run where a SparkSession is at hand."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Literal

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
from numpy.typing import NDArray

import sashite_epin.duckdb
import sashite_epin.ray
from sashite_epin import (
    CODE_LIMIT,
    EPIN_MAX_LENGTH,
    EPIN_TOKEN_COUNT,
    IMPLEMENTATION,
    PIN_MAX_LENGTH,
    PIN_TOKEN_COUNT,
    Epin,
    NativeStyles,
    ParseError,
    Pin,
    Reason,
    Side,
    State,
    TokenArray,
    __version__,
)
from sashite_epin import spark as epin_spark
from sashite_epin.pandas import EpinAccessor
from sashite_epin.polars import EpinExpr, EpinSeries, PinExpr

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


def main() -> None:
    pin: Pin = Pin.parse("+K^")
    maybe: Pin | None = Pin.safe_parse("x")
    valid: bool = Pin.is_valid("K") and Epin.is_valid("K'")
    built: Pin = Pin("K", Side.SECOND, State.ENHANCED, terminal=True)
    abbr: str = pin.abbr
    side: Side = pin.side
    state: State = pin.state
    flags: list[bool] = [
        pin.is_terminal,
        pin.is_normal,
        pin.is_enhanced,
        pin.is_diminished,
        pin.is_first,
        pin.is_second,
    ]
    text: list[str] = [pin.letter, pin.prefix, pin.suffix, str(pin), repr(pin)]
    pins: list[Pin] = [
        pin.enhance(),
        pin.diminish(),
        pin.normalize(),
        pin.flip(),
        pin.terminal(),
        pin.non_terminal(),
        pin.with_abbr("Q"),
        pin.with_side(Side.FIRST),
        pin.with_state("diminished"),
        pin.with_terminal(False),
        Pin.from_code(pin.code),
    ]
    same: list[bool] = [
        pin.same_abbr(built),
        pin.same_side(built),
        pin.same_state(built),
        pin.same_terminal(built),
        pin < built,
        pin <= built,
        pin > built,
        pin >= built,
    ]

    epin: Epin = Epin.parse("+K^'")
    other: Epin | None = Epin.safe_parse("K''")
    made: Epin = Epin(pin, derived=True)
    epins: list[Epin] = [
        epin.derive(),
        epin.native(),
        epin.with_pin(pin),
        epin.with_derived(False),
        Epin.from_code(epin.code),
        made,
    ]
    more: list[bool] = [epin.is_derived, epin.is_native, epin.same_derived(made), epin < made]
    inner: Pin = epin.pin

    found, end = Epin.scan("xx+K^'", 2)
    found_pin, pin_end = Pin.scan("K^", 0)
    items: list[Epin | str] = Epin.tokenize("-rnbqk^bn-r/8/2PB")
    pin_items: list[Pin | str] = Pin.tokenize("K^+R")

    buf = bytearray()
    epin.append_to(buf)
    pin.append_to(buf)
    offset: int = epin.write_into(bytearray(8), 0) + pin.write_into(memoryview(bytearray(4)), 0)

    result: TokenArray = Epin.parse_many(["K^", "q", "+p'"])
    pin_result: TokenArray = Pin.parse_many(b"K q +p", errors="mark")
    tokens: list[str] = result.tokens()
    joined: bytes = result.to_bytes(b" ")
    codes = result.codes()
    ordered: TokenArray = result.sorted()
    first = result[0]
    count: int = len(result) + len(pin_result.invalid) + len(ordered)
    notation: str = result.notation
    again: TokenArray = pickle.loads(pickle.dumps(result))

    styles: NativeStyles[str] = NativeStyles(first="chess", second="shogi")
    style: str = styles.resolve(epin)
    of_side: str = styles.of_side(Side.SECOND)
    token_for: Epin = styles.epin(pin, "shogi")

    limits: tuple[int, int, int, int] = (
        PIN_MAX_LENGTH,
        EPIN_MAX_LENGTH,
        PIN_TOKEN_COUNT,
        EPIN_TOKEN_COUNT,
    )
    number: int = Reason.MULTIPLE_DERIVATION_MARKERS.value
    try:
        Epin.parse("K''")
    except ParseError as err:
        details: tuple[object, Reason | str, str, int | None, int | None] = (
            err.token,
            err.reason,
            err.notation,
            err.index,
            err.position,
        )
        print(details, limits, number)

    print(
        maybe,
        valid,
        abbr,
        side,
        state,
        flags,
        text,
        pins,
        same,
        other,
        epins,
        more,
        inner,
        found,
        end,
        found_pin,
        pin_end,
        items,
        pin_items,
        bytes(buf),
        offset,
        tokens,
        joined,
        list(codes),
        first,
        count,
        notation,
        again == result,
        style,
        of_side,
        token_for,
        CODE_LIMIT,
        IMPLEMENTATION,
        __version__,
    )


def frames() -> None:
    errors: Literal["raise", "mark"] = "mark"
    result: TokenArray = Epin.parse_many(["K^", "x1", None], errors=errors)
    mask: NDArray[np.bool_] = result.valid_mask()
    numbers: NDArray[np.uint8] = result.reason_codes()
    table: pa.Table = result.to_arrow()
    frame: pd.DataFrame = result.to_pandas(index=False)
    polars_frame: pl.DataFrame = result.to_polars()
    rows = Epin.tokenize_many(["K^/8/+p", None]).by_row()
    row_frames: tuple[pa.Table, pd.DataFrame, pl.DataFrame] = (
        rows.to_arrow(),
        rows.to_pandas(),
        rows.to_polars(),
    )

    # pandas: import sashite_epin.pandas gives every Series .epin / .pin (pandas has
    # no types for the attribute; the accessor class is the typed spelling).
    series = pd.Series(["K^", "x1"])
    accessor = EpinAccessor(series)
    parsed: pd.DataFrame = accessor.parse(errors="mark")
    valid: pd.Series = accessor.is_valid()
    reasons: pd.Series = accessor.reason()
    again: TokenArray = accessor.parse_many("mark")

    # polars: the namespaces' classes wrap an expression or a Series the same way.
    exprs: list[pl.Expr] = [
        EpinExpr(pl.col("t")).parse(errors="mark"),
        EpinExpr(pl.col("t")).is_valid(),
        PinExpr(pl.col("t")).reason(),
    ]
    out: pl.DataFrame = pl.DataFrame({"t": ["K^", "x1"]}).select(exprs[1])
    polars_series = EpinSeries(pl.Series("t", ["K^", "x1"]))
    parsed_polars: pl.DataFrame = polars_series.parse(errors="mark")
    valid_polars: pl.Series = polars_series.is_valid()
    print(mask, numbers, table, frame, polars_frame, row_frames, parsed, valid, reasons)
    print(again, out, parsed_polars, valid_polars, polars_series.reason())


def engines() -> None:
    con = duckdb.connect()
    sashite_epin.duckdb.register(con)
    counts = con.sql(
        "SELECT epin_reason(t) AS r, count(*) FROM (VALUES ('K^'), ('x1')) v(t) GROUP BY r"
    )
    parse = sashite_epin.ray.parse("t", prefix="piece_", notation="pin", strings="plain")
    block: pa.Table = parse(pa.table({"t": ["K^", "x1"]}))
    rows: pa.Table = sashite_epin.ray.tokens("t")(pa.table({"t": ["K2q"]}))
    plain: pa.Schema = sashite_epin.schema("pin", "plain")
    print(counts.fetchall(), block.column_names, rows.num_rows, plain.names)


def spark_columns(spark: SparkSession, df: DataFrame) -> DataFrame:
    notation: epin_spark.Notation = "pin"
    columns: list[Column] = [
        epin_spark.parse("t"),
        epin_spark.valid(df["t"], notation),
        epin_spark.reason("t"),
        epin_spark.tokens("t", "epin"),
    ]
    names: tuple[str, ...] = epin_spark.register(spark)
    print(epin_spark.schema(notation).fieldNames(), names)
    return df.select(*columns)


if __name__ == "__main__":
    main()
    frames()
    engines()
