"""Parse the token columns of a multi-file Parquet dataset with Dask, and count pieces.

    python examples/dask_tokens.py DATASET_DIR [--threads]

Each partition's ``piece`` column reaches ``Epin.parse_many`` as Arrow data (no Python
object per token); the per-partition results are TokenArrays, which pickle, so they
travel between processes and combine with ``+``.  With process workers (the default,
a ``distributed`` LocalCluster) partitions are parsed in parallel processes; with
``--threads`` in threads of one process, which run in parallel too because the core
releases the GIL while it reads Arrow buffers.  On a real cluster the same code runs
unchanged: pass the scheduler's address to ``Client`` instead of a LocalCluster.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd

from sashite_epin import Epin, TokenArray


def parse_partition(frame: pd.DataFrame) -> pd.DataFrame:
    """One partition: its tokens parsed (invalid ones marked), as readable columns."""
    result = Epin.parse_many(frame["piece"], errors="mark")
    columns = result.to_pandas()
    columns.index = frame.index
    return columns


def parse_dataset(path: str) -> dd.DataFrame:
    tokens = dd.read_parquet(path, columns=["piece"])
    meta = parse_partition(pd.DataFrame({"piece": pd.Series([], dtype="str")}))
    return tokens.map_partitions(parse_partition, meta=meta)


def parsed_arrays(path: str) -> TokenArray:
    """The TokenArray of every partition, joined in order (they pickle and combine)."""
    tokens = dd.read_parquet(path, columns=["piece"])
    parts = [dask.delayed(lambda f: Epin.parse_many(f["piece"], errors="mark"))(part)
             for part in tokens.to_delayed()]  # fmt: skip
    arrays: Any = dask.compute(*parts)
    total = arrays[0]
    for array in arrays[1:]:
        total = total + array
    return total  # type: ignore[no-any-return]


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("dataset")
    options.add_argument("--threads", action="store_true", help="threads, not processes")
    args = options.parse_args(argv)
    if args.threads:
        with dask.config.set(scheduler="threads"):
            counts = parse_dataset(args.dataset)["abbr"].value_counts().compute()
    else:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
            with Client(cluster):
                counts = parse_dataset(args.dataset)["abbr"].value_counts().compute()
    print(counts.sort_index().to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
