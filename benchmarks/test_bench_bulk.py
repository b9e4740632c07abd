"""Bulk speed beside pure-Python baselines, measured in one run (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks --benchmark-group-by=group

Each group holds a sashite-epin path and the baseline it must beat; compare their
means.  Goals: list <= 4 ns/token, bytes <= 1.5 ns/token, to_bytes <= 2 ns/token,
tokens() <= 3 ns/token on the uniform corpus; single parse no slower than a
one-dict-lookup function.
"""

from __future__ import annotations

import pytest

from sashite_epin import Epin
from sashite_epin._core import core
from sashite_epin._corpora import EPIN_TOKENS, distinct, realistic, uniform

pytest.importorskip("pytest_benchmark")

COUNT = 1_000_000
CORPORA = {"uniform": uniform(COUNT), "realistic": realistic(COUNT)}
JOINED = {name: "\n".join(tokens).encode() for name, tokens in CORPORA.items()}
# Lists: the corpora repeat their str objects; "uniform, distinct" has one per token.
LISTS = {**CORPORA, "uniform, distinct": distinct(CORPORA["uniform"])}
TABLE = {t: Epin.parse(t) for t in EPIN_TOKENS}


def dict_parse(s: str, _t: dict[str, Epin] = TABLE) -> Epin:
    return _t[s]


@pytest.mark.parametrize("corpus", LISTS)
def test_list_parse_many(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"list of str -> result ({corpus})"
    benchmark(Epin.parse_many, LISTS[corpus])


@pytest.mark.parametrize("corpus", LISTS)
def test_list_baseline_dict_map(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"list of str -> result ({corpus})"
    tokens = LISTS[corpus]
    benchmark(lambda: list(map(TABLE.__getitem__, tokens)))


# Data with gaps: one missing value every 100 items, marked, not raised.
GAPPED = [None if i % 100 == 0 else t for i, t in enumerate(CORPORA["uniform"])]


def test_list_with_missing_values(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "list of str with a None every 100 -> result, errors='mark'"
    benchmark(Epin.parse_many, GAPPED, errors="mark")


def test_list_with_missing_values_baseline(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "list of str with a None every 100 -> result, errors='mark'"
    benchmark(lambda: list(map(TABLE.get, GAPPED)))


@pytest.mark.parametrize("kernel", core.KERNELS)
@pytest.mark.parametrize("corpus", CORPORA)
def test_bytes_parse_many(benchmark, corpus, kernel):  # type: ignore[no-untyped-def]
    # Every bytes kernel this CPU runs; the machine's default is the first.
    benchmark.group = f"joined bytes -> result ({corpus})"
    benchmark.extra_info["kernel"] = kernel
    before = core.use_bytes_kernel(kernel)
    try:
        benchmark(Epin.parse_many, JOINED[corpus])
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize("corpus", CORPORA)
def test_bytes_baseline_split_dict(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"joined bytes -> result ({corpus})"
    data = JOINED[corpus]
    benchmark(lambda: [TABLE[t] for t in data.decode().split()])


@pytest.mark.parametrize("corpus", CORPORA)
def test_bytes_floor_memcpy(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"joined bytes -> result ({corpus})"
    data = JOINED[corpus]
    benchmark(lambda: bytes(bytearray(data)))


@pytest.mark.parametrize("corpus", CORPORA)
def test_to_bytes(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"result -> joined bytes ({corpus})"
    result = Epin.parse_many(JOINED[corpus])
    benchmark(result.to_bytes)


@pytest.mark.parametrize("corpus", CORPORA)
def test_to_bytes_baseline_join(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"result -> joined bytes ({corpus})"
    tokens = CORPORA[corpus]
    benchmark(lambda: "\n".join(tokens).encode())


@pytest.mark.parametrize("corpus", CORPORA)
def test_tokens(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"result -> tokens() ({corpus})"
    result = Epin.parse_many(JOINED[corpus])
    benchmark(result.tokens)


@pytest.mark.parametrize("corpus", CORPORA)
def test_tokens_baseline_map_str(benchmark, corpus):  # type: ignore[no-untyped-def]
    benchmark.group = f"result -> tokens() ({corpus})"
    objects = list(Epin.parse_many(JOINED[corpus]))
    benchmark(lambda: list(map(str, objects)))


def test_single_parse(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "single token"
    benchmark(Epin.parse, "+R^'")


def test_single_parse_baseline_dict_function(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "single token"
    benchmark(dict_parse, "+R^'")
