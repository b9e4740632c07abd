"""Parse a token column of a multi-file Parquet dataset with polars' streaming engine:
count the pieces, report the invalid rows and count them by reason: the same report as
dask_tokens.py.

    python examples/polars_tokens.py DATASET_DIR [--column NAME]

``import sashite_epin.polars`` gives expressions ``.epin``: the parse is one
expression in a lazy plan, whose schema polars knows before it runs (the output type
is fixed), and the streaming engine runs it batch by batch, so the dataset need not
fit in memory.
"""

from __future__ import annotations

import argparse
import sys

import polars as pl

import sashite_epin.polars  # noqa: F401  (registers the .epin namespace)

SAMPLE = 5  # invalid rows shown


def parsed(path: str, column: str) -> pl.LazyFrame:
    """The dataset's rows with the parse beside them: epin_token, epin_abbr, ...,
    epin_valid, epin_reason."""
    fields = pl.col(column).epin.parse(errors="mark").alias("epin")
    return pl.scan_parquet(f"{path}/*.parquet").with_columns(fields).unnest("epin", separator="_")


def report(path: str, column: str) -> str:
    rows = parsed(path, column)
    counts = (
        rows.filter(pl.col("epin_valid"))
        .group_by(pl.col("epin_abbr").cast(pl.String))
        .len()
        .sort("epin_abbr")
        .collect(engine="streaming")
    )
    invalid = rows.filter(~pl.col("epin_valid")).select(
        pl.col(column), pl.col("epin_reason").cast(pl.String)
    )
    total = invalid.select(pl.len()).collect(engine="streaming").item()
    reasons = (
        invalid.group_by(pl.col("epin_reason"))
        .len()
        .sort("epin_reason")
        .collect(engine="streaming")
    )
    sample = invalid.head(SAMPLE).collect(engine="streaming")
    lines = ["abbr count", *(f"{abbr} {n}" for abbr, n in counts.iter_rows())]
    lines.append(f"invalid {total}")
    for token, reason in sample.iter_rows():
        lines.append(f"  {token!a} {reason}")  # !a: a look-alike shows as its escape
    lines.append("reason count")
    lines += [f"{reason} {n}" for reason, n in reasons.iter_rows()]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("dataset")
    options.add_argument("--column", default="token", help="the column of tokens")
    args = options.parse_args(argv)
    print(report(args.dataset, args.column))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
