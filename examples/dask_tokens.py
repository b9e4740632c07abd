"""Parse a token column of a multi-file Parquet dataset with Dask: count the pieces,
report the invalid rows and count them by reason.

    python examples/dask_tokens.py DATASET_DIR [--column NAME] [--threads]

Each partition's column reaches ``Epin.parse_many`` as Arrow data (no Python object
per token).  The parsed frame is on the partition's own index and has the same dtypes
in every partition, invalid rows included (``valid``, ``reason``), so Dask's ``meta``
is the parse of an empty column and the rows can be joined back to the dataset's
other columns.  With process workers (the default, a ``distributed`` LocalCluster)
partitions are parsed in parallel processes; with ``--threads`` in threads of one
process, which run in parallel too because the core releases the GIL while it reads
Arrow buffers.  On a real cluster the same code runs unchanged: pass the scheduler's
address to ``Client`` instead of a LocalCluster.  The per-partition results are
TokenArrays, which pickle, so they travel between processes and combine with ``+``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd

from sashite_epin import Epin, TokenArray

SAMPLE = 5  # invalid rows shown


def parse_partition(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """One partition's tokens parsed, invalid ones marked, on the partition's index."""
    return Epin.parse_many(frame[column], errors="mark").to_pandas()


def parse_dataset(path: str, column: str) -> dd.DataFrame:
    tokens = dd.read_parquet(path, columns=[column])
    meta = Epin.parse_many([], errors="mark").to_pandas()  # the same dtypes as every partition
    return tokens.map_partitions(parse_partition, column, meta=meta)


def parsed_arrays(path: str, column: str = "token") -> TokenArray:
    """The TokenArray of every partition, joined in order (they pickle and combine)."""
    tokens = dd.read_parquet(path, columns=[column])
    parts = [dask.delayed(lambda f: Epin.parse_many(f[column], errors="mark"))(part)
             for part in tokens.to_delayed()]  # fmt: skip
    arrays: Any = dask.compute(*parts)
    total = arrays[0]
    for array in arrays[1:]:
        total = total + array
    return total  # type: ignore[no-any-return]


def report(path: str, column: str) -> str:
    """The piece counts of the valid rows, then the invalid rows: how many, and a
    sample with their reasons."""
    parsed = parse_dataset(path, column)
    counts, reasons, invalid = dask.compute(
        parsed["abbr"].value_counts(),
        parsed["reason"].value_counts(),  # the categorical's missing (valid) rows left out
        parsed.loc[~parsed["valid"], ["token", "reason"]],
    )
    lines = ["abbr count", *(f"{abbr} {n}" for abbr, n in counts.sort_index().items() if n)]
    lines.append(f"invalid {len(invalid)}")
    for token, reason in invalid.head(SAMPLE).itertuples(index=False):
        shown = None if pd.isna(token) else token  # a missing value, not the text "nan"
        lines.append(f"  {shown!a} {reason}")  # !a: a look-alike shows as its escape
    lines.append("reason count")
    lines += [f"{reason} {n}" for reason, n in reasons.sort_index().items() if n]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("dataset")
    options.add_argument("--column", default="token", help="the column of tokens")
    options.add_argument("--threads", action="store_true", help="threads, not processes")
    args = options.parse_args(argv)
    if args.threads:
        with dask.config.set(scheduler="threads"):
            print(report(args.dataset, args.column))
    else:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
            with Client(cluster):
                print(report(args.dataset, args.column))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
