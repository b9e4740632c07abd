"""``python -m sashite_epin bench``: each bulk path beside its pure-Python baseline, timed
in the same process on the same corpus (best of several runs; a benchmark, not a test)."""

from __future__ import annotations

import functools
import os
import re
import sys
import time
from collections.abc import Callable
from typing import TextIO

from . import (
    IMPLEMENTATION,
    Epin,
    _bench_containers,
    _bench_frames,
    _bench_marks,
    _bench_signals,
    _bench_tables,
)
from ._corpora import EPIN_TOKENS, PLACEMENTS, distinct, realistic, uniform

# The pure-Python tokenizer Epin.tokenize is measured against: the spec's token regex
# (or a run of other characters) through finditer, each token looked up in a dict.
TOKEN_OR_OTHER = re.compile(r"[-+]?[A-Za-z]\^?'?|[^-+A-Za-z^']+")


def best_ns(work: Callable[[], object], count: int, repeat: int) -> float:
    """The call alone, best of repeat runs after one untimed: its result is freed after
    the clock stops, so each figure is the time to build a result, not also to free the
    previous one (for a list of a million str, freeing is a million reference
    decrements, on either side of a comparison)."""
    warm = work()  # a first run untimed: caches, lazy imports, the allocator's first pages
    del warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
        del result
    return min(times) / max(count, 1) * 1e9


def cases(tokens: list[str]) -> list[tuple[str, Callable[[], object], str, Callable[[], object]]]:
    table = {t: Epin.parse(t) for t in EPIN_TOKENS}
    joined = "\n".join(tokens).encode()
    result = Epin.parse_many(joined)
    objects = list(result)
    fresh = distinct(tokens)  # the list rows above read the corpus's repeated objects
    token = tokens[0]

    def dict_parse(s: str, _t: dict[str, Epin] = table) -> Epin:
        return _t[s]

    return [
        (
            "list of str -> result",
            lambda: Epin.parse_many(tokens),
            "map(dict.__getitem__)",
            lambda: list(map(table.__getitem__, tokens)),
        ),
        (
            "list of distinct str -> result",
            lambda: Epin.parse_many(fresh),
            "map(dict.__getitem__)",
            lambda: list(map(table.__getitem__, fresh)),
        ),
        (
            "joined bytes -> result",
            lambda: Epin.parse_many(joined),
            "bytes.split() + dict",
            lambda: [table[t] for t in joined.decode().split()],
        ),
        (
            "result -> joined bytes",
            lambda: result.to_bytes(),
            'b"\\n".join(tokens)',
            lambda: "\n".join(tokens).encode(),
        ),
        (
            "result -> tokens()",
            lambda: result.tokens(),
            "list(map(str, objects))",
            lambda: list(map(str, objects)),
        ),
        (
            "single Epin.parse(s)",
            lambda: [Epin.parse(token) for _ in range(len(tokens))],
            "dict_parse(s)",
            lambda: [dict_parse(token) for _ in range(len(tokens))],
        ),
    ]


def kernel_cases(
    tokens: list[str],
) -> list[tuple[str, Callable[[], object], str, Callable[[], object]]]:
    """The bytes path on each kernel the core runs here, beside copying the same buffer
    (the limit: a parser cannot read its input faster than memcpy)."""
    from ._core import core

    joined = bytearray("\n".join(tokens).encode())

    def on(kernel: str) -> Callable[[], object]:
        def work() -> object:
            before = core.use_bytes_kernel(kernel)
            try:
                return Epin.parse_many(joined)
            finally:
                core.use_bytes_kernel(before)

        return work

    if IMPLEMENTATION != "cython":
        return []
    return [
        (f"joined bytes -> result, {kernel} kernel", on(kernel), "memcpy of the bytes",
         lambda: bytes(joined))
        for kernel in core.KERNELS
    ]  # fmt: skip


def column_cases(
    tokens: list[str],
) -> list[tuple[str, Callable[[], object], str, Callable[[], object]]]:
    """The columnar paths, each beside its baseline; a library that is not installed
    leaves its rows out."""
    rows: list[tuple[str, Callable[[], object], str, Callable[[], object]]] = []
    objects: object = None
    try:
        import numpy

        objects = numpy.array(tokens, dtype=object)
        rows.append(
            (
                "numpy object array -> result",
                lambda: Epin.parse_many(objects),
                "the same tokens as a list",
                lambda: Epin.parse_many(tokens),
            )
        )
        strings = numpy.array(tokens)  # dtype U: fixed-width code points
        rows.append(
            (
                f"numpy {strings.dtype.str[1:]} array -> result",
                lambda: Epin.parse_many(strings),
                "the same tokens as a list",
                lambda: Epin.parse_many(tokens),
            )
        )
    except ImportError:
        pass
    try:
        import pyarrow
    except ImportError:
        return rows
    column = pyarrow.array(tokens, pyarrow.string())
    joined = "\n".join(tokens).encode()
    rows.append(
        (
            "pyarrow column -> result",
            lambda: Epin.parse_many(column),
            "column.to_pylist() + parse_many",
            lambda: Epin.parse_many(column.to_pylist()),
        )
    )
    rows.append(
        (
            "pyarrow column -> result, beside bytes",
            lambda: Epin.parse_many(column),
            "joined bytes -> result",
            lambda: Epin.parse_many(joined),
        )
    )
    for name, make in (("polars", "polars"), ("pandas str", "pandas")):
        try:
            library = __import__(make)
        except ImportError:
            continue
        series = library.Series(tokens) if make == "polars" else library.Series(tokens, dtype="str")
        rows.append(
            (
                f"{name} Series -> result",
                functools.partial(Epin.parse_many, series),
                "pyarrow column -> result",
                lambda: Epin.parse_many(column),
            )
        )
    result = Epin.parse_many(tokens)
    rows.append(
        (
            "result -> pyarrow table",
            lambda: pyarrow.table(result),
            "pa.table of result.tokens()",
            lambda: pyarrow.table({"token": result.tokens()}),
        )
    )
    return rows


def regex_tokenizer() -> Callable[[str], list[Epin | str]]:
    table = {t: Epin.parse(t) for t in EPIN_TOKENS}

    def tokenize(
        s: str, _find: Callable[..., object] = TOKEN_OR_OTHER.finditer
    ) -> list[Epin | str]:
        return [table.get(m.group(), m.group()) for m in _find(s)]  # type: ignore[attr-defined]

    return tokenize


def text_row(tokens: list[str], repeat: int) -> tuple[str, str, float, str, float]:
    """Epin.tokenize over the whole corpus written back to back as one text (the C-level
    scan_many under it), ns per token."""
    regex, text = regex_tokenizer(), "".join(tokens)
    ns = best_ns(lambda: Epin.tokenize(text), len(tokens), repeat)
    base_ns = best_ns(lambda: regex(text), len(tokens), repeat)
    return ("Epin.tokenize(one long text)", "uniform", ns, "regex finditer + dict", base_ns)


def machine() -> str:
    """The CPU and kernel, for the header: figures mean little without them."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        import platform

        cpu = platform.processor() or cpu
    uname = os.uname() if hasattr(os, "uname") else None
    kernel = f"{uname.sysname} {uname.release}" if uname else sys.platform
    cores = os.cpu_count()
    return f"{cpu}, {cores} cores, {kernel}, Python {sys.version.split()[0]}"


def ratio(r: float) -> str:
    """A speed-up, with the digits a ratio below 1 (a fraction of memcpy) needs."""
    return f"{r:.1f}x" if r >= 1 else f"{r:.2f}x"


def kernels() -> str:
    """The bytes kernel parse_many uses, and the others this CPU runs."""
    from ._core import core

    others = [k for k in core.KERNELS if k != core.bytes_kernel()]
    return core.bytes_kernel() + (f" (also runs {', '.join(others)})" if others else "")


def feen_row(repeat: int) -> tuple[str, str, float, str, float]:
    """Epin.tokenize over the FEEN-like placements, ns per placement string."""
    regex, rounds = regex_tokenizer(), 20_000
    for s in PLACEMENTS:  # the same output, or the comparison means nothing
        assert Epin.tokenize(s) == regex(s)

    def ours() -> None:
        for s in PLACEMENTS:
            Epin.tokenize(s)

    def theirs() -> None:
        for s in PLACEMENTS:
            regex(s)

    count = rounds * len(PLACEMENTS)

    def repeated(work: Callable[[], None]) -> Callable[[], None]:
        def run_all() -> None:
            for _ in range(rounds):
                work()

        return run_all

    ns = best_ns(repeated(ours), count, repeat)
    base_ns = best_ns(repeated(theirs), count, repeat)
    return ("Epin.tokenize(placement) per string", "FEEN", ns, "regex finditer + dict", base_ns)


def tokenize_many_rows(count: int, repeat: int) -> list[tuple[str, str, float, str, float]]:
    """Epin.tokenize_many over a column of FEEN placements of about count tokens, ns per
    token with each token's row and offset in hand (``.rows`` taken too: the result
    keeps only each row's range), beside tokenize row by row and the regex row by row."""
    column = [PLACEMENTS[i % len(PLACEMENTS)] for i in range(max(count // 34, 1))]
    tokens = len(Epin.tokenize_many(column))
    regex = regex_tokenizer()
    ns = best_ns(lambda: Epin.tokenize_many(column).rows, tokens, repeat)
    name = "Epin.tokenize_many(column of placements)"
    return [
        (name, "FEEN", ns, "[Epin.tokenize(t) for t in column]",
         best_ns(lambda: [Epin.tokenize(t) for t in column], tokens, repeat)),
        (f"{name}, beside the regex", "FEEN", ns, "[regex(t) for t in column]",
         best_ns(lambda: [regex(t) for t in column], tokens, repeat)),
    ]  # fmt: skip


# How much larger the large-input row is than the bench's size: a result of ten million
# tokens is 50 MB, past what malloc keeps for reuse.
LARGE_SCALE = 10
SMALL = 100_000  # tokens below which the figures are mostly fixed costs


def run(
    count: int = 1_000_000,
    repeat: int = 5,
    out: TextIO = sys.stdout,
    progress: TextIO = sys.stderr,
    cli: tuple[Callable[..., int], str] | None = None,
) -> int:
    corpora = {"uniform": uniform(count), "realistic": realistic(count)}
    rows = []
    work_list = [(corpus, case) for corpus, tokens in corpora.items() for case in cases(tokens)]
    work_list += [(c, case) for c, tokens in corpora.items() for case in kernel_cases(tokens)]
    work_list += [("uniform", case) for case in column_cases(corpora["uniform"])]
    uniform_tokens = corpora["uniform"]
    work_list += [
        ("uniform", case)
        for case in (
            *_bench_tables.container_rows(uniform_tokens),
            *_bench_tables.dirty_rows(uniform_tokens),
            _bench_tables.errors_row(count),
            *_bench_tables.twin_rows(uniform_tokens),
            *_bench_signals.signal_rows(uniform_tokens),
            *_bench_marks.marked_rows(uniform_tokens),
            *_bench_marks.frame_rows(uniform_tokens),
            *_bench_containers.container_rows(uniform_tokens),
            *_bench_containers.chunk_rows(uniform_tokens),
            *(_bench_marks.cli_row(uniform_tokens, *cli) if cli is not None else []),
        )
    ]
    mixed_tokens = _bench_frames.mixed(uniform_tokens)
    for corpus_name, frame_tokens in (("uniform", uniform_tokens), ("mixed", mixed_tokens)):
        work_list += [
            (corpus_name, row)
            for row in (
                *_bench_frames.polars_rows(frame_tokens),
                *_bench_frames.pandas_rows(frame_tokens),
            )
        ]
    try:
        work_list += [("uniform", row) for row in _bench_containers.batch_rows(uniform_tokens)]
    except ImportError:  # no pyarrow
        pass
    placements = [PLACEMENTS[i % len(PLACEMENTS)] for i in range(max(1, count // 30))]
    work_list += [("FEEN", case) for case in _bench_marks.tokenize_many_rows(placements)]
    total = len(work_list) + 4  # and the text rows, the large input and tokenize_many
    step = 0
    for corpus_name, (name, work, base_name, base) in work_list:
        step += 1
        print(f"[{step}/{total}] {corpus_name}: {name} ...", file=progress, flush=True)
        ns, base_ns = best_ns(work, count, repeat), best_ns(base, count, repeat)
        rows.append((name, corpus_name, ns, base_name, base_ns))
    name, work, larger = _bench_tables.large_row(uniform_tokens, LARGE_SCALE)
    print(f"[{total - 3}/{total}] uniform: {name} ...", file=progress, flush=True)
    joined = "\n".join(uniform_tokens).encode()
    rows.append((
        f"{name} -> result", "uniform", best_ns(work, larger, repeat),
        "the usual size", best_ns(lambda: Epin.parse_many(joined, errors="mark"), count, repeat),
    ))  # fmt: skip
    print(f"[{total - 2}/{total}] uniform: tokenize one text ...", file=progress, flush=True)
    rows.append(text_row(corpora["uniform"], repeat))
    print(f"[{total - 1}/{total}] FEEN placements: tokenize ...", file=progress, flush=True)
    rows.append(feen_row(repeat))
    print(f"[{total}/{total}] FEEN placements: tokenize_many ...", file=progress, flush=True)
    rows.extend(tokenize_many_rows(count, repeat))
    print(
        f"sashite-epin bench: {count:,} tokens, best of {repeat}, {IMPLEMENTATION} core, "
        f"bytes kernel {kernels()}; {machine()}",
        file=out,
    )
    if count < SMALL:
        print(
            f"note: {count:,} tokens is too few to time well (fixed costs dominate); "
            f"use --tokens {SMALL:.0e} or more",
            file=out,
        )
    header = ("path", "corpus", "ns/token", "Mtokens/s", "baseline", "ns/token", "speed-up")
    print("| " + " | ".join(header) + " |", file=out)
    print("|" + "---|" * len(header), file=out)
    for name, corpus_name, ns, base_name, base_ns in rows:
        print(
            f"| {name} | {corpus_name} | {ns:.2f} | {1e3 / ns:.0f} | {base_name} | "
            f"{base_ns:.2f} | {ratio(base_ns / ns)} |",
            file=out,
        )
    return 0
