"""The bytes kernels: each kernel the compiled core runs here (the portable one too: it
has a fast road of its own before the exact scanner) gives what the pure-Python twin gives
(records, marked indexes, the error's token, index, reason, byte offset and line), on
every input; scan_many's SIMD block loops give what its own loop gives; and which kernel
runs is visible and can be forced."""

from __future__ import annotations

import os
import platform
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from conftest import CORES

import sashite_epin
from sashite_epin import ParseError, _core_py
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS, PLACEMENTS, realistic, uniform

COMPILED = [core for core in CORES if core.IMPLEMENTATION == "cython"]
# Pairs (core, SIMD kernel): scan_many's block loops, held against its own loop (which
# the portable kernel runs).
SIMD = [(core, kernel) for core in COMPILED for kernel in core.KERNELS if kernel != "portable"]
# Pairs (core, kernel) for byte buffers, each held against the twin.
BYTES = [(core, kernel) for core in COMPILED for kernel in core.KERNELS]

# What a kernel must hand to the exact scanner: every way a token goes wrong, and bytes
# that are not separators for bytes.split() though they look like it.
NEAR_MISSES = [
    b"KK", b"K+", b"^K", b"++K", b"+-K", b"K^^", b"K''", b"K'^", b"'K", b"+", b"-", b"^",
    b"'", b"+^", b"1", b"K1", b"\x00", b"\x85", b"\xa0", b"\xc3\x89", b"+K^'X", b"\x1c",
    b"\x1f", b"@", b"[", b"`", b"{", b"K'K", b"+K^'", b"k'", b"\x89", b"\x8d", b"\x88",
    b"\x8e",
]  # fmt: skip
# (0x89-0x8D and 0xA0: a separator's low 7 bits with the high bit set, which the
# portable kernel's eight-bytes-at-a-time separator test must refuse)
SEPARATORS = [b" ", b"\n", b"\t", b"\r\n", b"\x0b", b"\x0c", b"  \t "]
# A kernel of another architecture: no build runs it on this CPU.
NOT_HERE = "sse2" if platform.machine().lower() in ("aarch64", "arm64") else "neon"


def outcome(core: ModuleType, data: object, epin: bool, errors: str) -> object:
    """Everything parse_many says about data: the records and marks, or the error."""
    try:
        result = core.parse_many(data, epin, errors)
    except ParseError as error:
        return ("error", error.token, error.reason, error.index, error.position, error.line)
    return ("ok", np.asarray(result).tobytes(), list(result.invalid))


def exact_outcomes(data: object) -> dict[tuple[bool, str], object]:
    """What the twin says of data, for each notation and errors mode."""
    return {
        (epin, errors): outcome(_core_py, data, epin, errors)
        for epin in (True, False)
        for errors in ("raise", "mark")
    }


def assert_same_as_exact(core: ModuleType, kernel: str, inputs: list[bytes]) -> None:
    expected = [exact_outcomes(data) for data in inputs]
    before = core.use_bytes_kernel(kernel)
    try:
        for data, want in zip(inputs, expected, strict=True):
            for (epin, errors), result in want.items():
                got = outcome(core, data, epin, errors)
                assert got == result, (kernel, data, epin, errors)
    finally:
        core.use_bytes_kernel(before)


def joined(tokens: list[str], rng: random.Random) -> bytes:
    return b"".join(t.encode() + rng.choice(SEPARATORS) for t in tokens)


# -- which kernel runs --------------------------------------------------------------


def test_the_best_kernel_this_cpu_runs_is_the_default() -> None:
    for core in COMPILED:
        assert core.KERNELS[-1] == "portable"
        assert set(core.KERNELS) <= {"avx512", "avx2", "sse2", "neon", "portable"}
        if "SASHITE_EPIN_KERNEL" not in os.environ:
            assert core.bytes_kernel() == core.KERNELS[0]
    assert sashite_epin.BYTES_KERNEL in {k for core in CORES for k in core.KERNELS}
    assert "BYTES_KERNEL" in dir(sashite_epin)


def cpu_flags() -> set[str]:
    with open("/proc/cpuinfo") as cpuinfo:
        return set(next((line.split() for line in cpuinfo if line.startswith("flags")), []))


# What each x86 kernel's CPUID check requires (sashite_cpu_has, kernels/avx2.h), as Linux
# names the features: it shows a feature only where the kernel saves its registers too
# (XCR0), the check's XGETBV half.
AVX2_NEEDS = {"avx2", "popcnt", "bmi1"}
# AVX-512's instructions: byte compares into masks, byte compress, byte permute.
AVX512_NEEDS = AVX2_NEEDS | {"avx512f", "avx512bw", "avx512vl", "avx512vbmi", "avx512_vbmi2"}


def test_an_x86_64_build_offers_every_kernel_this_cpu_runs() -> None:
    # Every build asks the CPU by CPUID and XGETBV, never the compiler's runtime (a Zig
    # build's answers no feature at all): the kernels offered are exactly those the
    # system's own reading of the CPU allows, the best of them the default.
    if not COMPILED or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the SIMD kernels are x86-64's")
    flags = cpu_flags()
    expected = [
        *(["avx512"] if AVX512_NEEDS <= flags else []),
        *(["avx2"] if AVX2_NEEDS <= flags else []),
        "sse2",
        "portable",
    ]
    for core in COMPILED:
        assert list(core.KERNELS) == expected, (sorted(flags & AVX512_NEEDS), core.KERNELS)
        assert core.cpuid_kernels() == tuple(k for k in expected if k in ("avx512", "avx2"))


def test_the_kernels_are_chosen_by_cpuid_on_every_compiler() -> None:
    # __builtin_cpu_supports is the compiler runtime's answer, 0 for every feature where
    # that runtime does not fill in its CPU model: no header of the core may ask it.
    sources = Path(__file__).parent.parent / "src" / "sashite_epin"
    if not sources.is_dir():
        pytest.skip("no C sources beside these tests")
    askers = [
        str(header.relative_to(sources)) for header in sorted(sources.rglob("*.h"))
        if "__builtin_cpu_supports(" in header.read_text(encoding="utf-8")
    ]  # fmt: skip
    assert askers == []


def test_the_portable_kernel_without_a_vector_unit(tmp_path: Path) -> None:
    # Where the compiler has no vector unit to target, the portable kernel's byte loops
    # would run a byte at a time: it counts by SWAR instead and leaves every token to
    # the exact scanner.  Built here with x86-64's vector unit turned off, that count
    # must agree with a naive one (reliability/portable_check.c).
    root = Path(__file__).resolve().parents[1]
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None or os.uname().machine != "x86_64":
        pytest.skip("needs a C compiler for x86-64")
    program = tmp_path / "portable_check"
    subprocess.run(
        [compiler, "-O2", "-mno-sse2", "-mno-mmx", "-Wall", "-Wextra", "-Werror",
         f"-I{root / 'src' / 'sashite_epin'}", str(root / "reliability" / "portable_check.c"),
         "-o", str(program)],
        check=True,
    )  # fmt: skip
    done = subprocess.run([str(program)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    assert "200000 buffers counted as the naive count does" in done.stdout


def test_an_aarch64_build_runs_neon() -> None:
    # NEON is part of aarch64's baseline: chosen at compile time, always run there
    # (reliability/aarch64.sh runs this file on aarch64 code under qemu).
    if not COMPILED or os.uname().machine not in ("aarch64", "arm64"):
        pytest.skip("NEON is aarch64's")
    for core in COMPILED:
        assert core.KERNELS == ("neon", "portable")


def test_switching_kernels_is_visible_and_checked(core: ModuleType) -> None:
    for kernel in core.KERNELS:
        before = core.use_bytes_kernel(kernel)
        try:
            assert core.bytes_kernel() == kernel
            if core is sashite_epin._core.core:
                assert sashite_epin.BYTES_KERNEL == kernel
        finally:
            core.use_bytes_kernel(before)
    with pytest.raises(ValueError, match="must be one of"):
        core.use_bytes_kernel(NOT_HERE)


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SASHITE_EPIN_")}
    return subprocess.run(
        [sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True
    )


@pytest.mark.skipif(not COMPILED, reason="the compiled core has the kernels")
@pytest.mark.parametrize("kernel", COMPILED[0].KERNELS if COMPILED else [])
def test_the_environment_variable_forces_a_kernel(kernel: str) -> None:
    done = run(
        "import sashite_epin; print(sashite_epin.BYTES_KERNEL)",
        SASHITE_EPIN_IMPLEMENTATION="cython",
        SASHITE_EPIN_KERNEL=kernel.upper(),
    )
    assert done.stdout.strip() == kernel, done.stderr


@pytest.mark.skipif(not COMPILED, reason="the compiled core has the kernels")
def test_a_kernel_this_cpu_cannot_run_is_an_import_error() -> None:
    done = run(
        "import sashite_epin", SASHITE_EPIN_IMPLEMENTATION="cython", SASHITE_EPIN_KERNEL=NOT_HERE
    )
    assert done.returncode != 0
    assert f"SASHITE_EPIN_KERNEL='{NOT_HERE}'" in done.stderr and "portable" in done.stderr


# -- every kernel gives what the twin gives ---------------------------------------


@pytest.mark.quick  # every kernel this CPU has, in the quick loop
@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_valid_corpora_with_every_separator(core: ModuleType, kernel: str) -> None:
    rng = random.Random(7)
    inputs = [
        joined(uniform(3000), rng),
        joined(realistic(3000), rng),
        " ".join(PIN_TOKENS).encode(),
        "\n".join(EPIN_TOKENS).encode(),
        b"".join(t.encode() + b" " * (1 + i % 70) for i, t in enumerate(EPIN_TOKENS)),
    ]
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_string_dtype_near_misses_at_every_position_of_a_group(
    core: ModuleType, kernel: str
) -> None:
    # The StringDType lanes read eight 16-byte elements at a time: each near miss (and
    # each element they must not read: longer, missing, empty) at every position of the
    # first groups, in contiguous and strided arrays.
    rng = random.Random(11)
    odd = [m.decode("latin-1") for m in NEAR_MISSES] + ["", "K" * 5, "x" * 16, "q" * 99]
    inputs = []
    for miss in [*odd, None]:
        for at in range(18):
            entries = [rng.choice(EPIN_TOKENS) for _ in range(27)]
            entries[at] = miss
            array = np.array(entries, dtype=np.dtypes.StringDType(na_object=None))
            inputs += [array, array[::2]]
    inputs.append(np.array(uniform(3000), dtype=np.dtypes.StringDType()))
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_a_near_miss_at_every_offset_around_the_block_edges(core: ModuleType, kernel: str) -> None:
    # A kernel reads 64 bytes at a time and looks one byte back and two ahead: each
    # near miss lands on every offset near the buffer's start and around the first block
    # edge (a later edge is read the same way), between valid tokens whose markers sit
    # right against the edge too, ending the buffer or followed by more blocks.
    inputs = []
    for miss in NEAR_MISSES:
        for lead in [*range(0, 8), *range(52, 76)]:
            for pattern in (b"+K^' ", b"k ", b"-q^ "):
                head = (pattern * 64)[:lead]
                if head and head[-1:] != b" ":
                    head += b" "
                for tail in (b"", b" -r^ " * 30):
                    inputs.append(head + miss + tail)
                    inputs.append(head[:-1] + miss + tail)  # glued to the token before
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_line_faults_are_the_twin_s_around_the_block_edges(core: ModuleType, kernel: str) -> None:
    # The command line's one token a line (line_faults): 64 bytes at a time, looking a
    # byte back (a line's start) and a byte ahead (a \r's \n): every string of up to 3
    # line-end and whitespace bytes lands on every offset around the first block edge,
    # and the buffer's end; then random lines.
    alphabet = [b"\r", b"\n", b" ", b"\t", b"K", b"\x8d", b"\x0b"]
    strings = [a + b + c for a in alphabet for b in alphabet for c in [b"", *alphabet]]
    inputs = []
    for lead in [*range(0, 4), *range(60, 68)]:
        head = (b"K^\r\n+p\n" * 12)[:lead]
        for string in strings:
            inputs += [head + string, head + string + b"q\r\n" * 30]
    rng = random.Random(8)
    parts = [b"K", b"+p'", b"\r", b"\n", b"\r\n", b"\r\n", b" ", b"\x0c", b"\x85", b"K" * 70]
    inputs += [b"".join(rng.choices(parts, k=rng.randrange(80))) for _ in range(3000)]
    before = core.use_bytes_kernel(kernel)
    try:
        for data in inputs:
            assert core.line_faults(data) == _core_py.line_faults(data), data
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_every_short_byte_string_around_a_block_edge(core: ModuleType, kernel: str) -> None:
    # Every string of up to 3 bytes over the grammar's bytes and its neighbours, put
    # where it straddles the first block edge, after 60 bytes of valid tokens.
    alphabet = [b"+", b"-", b"^", b"'", b"K", b"q", b" ", b"\n", b"1", b"\x00", b"\xff"]
    strings = [b"", *alphabet]
    strings += [a + b for a in alphabet for b in alphabet]
    strings += [a + b + c for a in alphabet for b in alphabet for c in alphabet]
    lead = b"K " * 30
    inputs = [lead + s + b" P" for s in strings] + [lead + b"k" + s for s in strings]
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_the_densest_blocks_and_every_batch_length(core: ModuleType, kernel: str) -> None:
    # One-letter tokens put a letter on every other byte: 32 tokens to a block, the
    # most a block can hold, starting at either parity.  The kernels write the records
    # of whole batches of tokens, some in groups of 8: every count around those sizes,
    # so every group leaves every remainder, in dense and in sparse text.
    rng = random.Random(5)
    letters = [chr(c) for c in range(65, 91)] + [chr(c) for c in range(97, 123)]
    inputs = []
    for count in [*range(0, 41), *range(1000, 1050), 2048, 2049, 4101]:
        dense = rng.choices(letters, k=count)
        inputs.append(" ".join(dense).encode())
        inputs.append((" " + "\n".join(dense)).encode())
        inputs.append(" ".join(rng.choices(EPIN_TOKENS, k=count)).encode())
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_refused_tokens_close_together(core: ModuleType, kernel: str) -> None:
    # In a block that fails, a kernel writes the tokens before the first refused one;
    # the exact scanner reads that one and hands back right after it, mid-block.  So
    # refused tokens one after another, every other token and every few, each starting
    # at every offset, with a buffer that ends in one, are all read as the twin
    # reads them.
    rng = random.Random(23)
    refused = [b"K1", b"+", b"^", b"KK", b"K''", b"\xff", b"-", b"+K^^", b"'", b"K^'^"]
    inputs = []
    for every in (1, 2, 3, 7):
        for shift in range(every + 4):
            words = [
                refused[(i + shift) % len(refused)] if (i + shift) % every == 0
                else rng.choice(EPIN_TOKENS).encode()
                for i in range(90)
            ]  # fmt: skip
            inputs.append(b"".join(w + rng.choice(SEPARATORS) for w in words))
            inputs.append(b" ".join(words))
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_random_buffers_near_the_grammar(core: ModuleType, kernel: str) -> None:
    rng = random.Random(11)
    noise = b" \t\n+-^'Kk1\x00\xffz"
    inputs = []
    for _ in range(1500):
        data = bytearray(joined(rng.choices(EPIN_TOKENS, k=rng.randint(0, 120)), rng))
        for _ in range(rng.choice([0, 0, 1, 3])):
            if data:
                data[rng.randrange(len(data))] = rng.choice(noise)
        inputs.append(bytes(data))
        inputs.append(bytes(rng.choice(noise) for _ in range(rng.randint(0, 150))))
    assert_same_as_exact(core, kernel, inputs)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_unaligned_and_writable_buffers(core: ModuleType, kernel: str) -> None:
    data = " ".join(uniform(2000)).encode() + b" K+ " + " ".join(uniform(500)).encode()
    expected = exact_outcomes(data)
    before = core.use_bytes_kernel(kernel)
    try:
        for offset in range(0, 9):
            view = memoryview(bytearray(bytes(offset) + data))[offset:]
            for (epin, errors), want in expected.items():
                assert outcome(core, view, epin, errors) == want
    finally:
        core.use_bytes_kernel(before)


# -- back-to-back text (scan_many, under tokenize): the same, with the kernel's blocks ---


def text_outcome(core: ModuleType, text: str, epin: bool) -> object:
    try:
        return ("ok", (core.tokenize_epin if epin else core.tokenize_pin)(text))
    except ParseError as error:
        return ("error", error.token, error.reason, error.position)


def assert_text_same_as_portable(core: ModuleType, kernel: str, texts: list[str]) -> None:
    before = core.use_bytes_kernel("portable")
    try:
        expected = [[text_outcome(core, t, epin) for epin in (True, False)] for t in texts]
    finally:
        core.use_bytes_kernel(before)
    core.use_bytes_kernel(kernel)
    try:
        for text, want in zip(texts, expected, strict=True):
            assert [text_outcome(core, text, epin) for epin in (True, False)] == want, text
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.skipif(not SIMD, reason="no SIMD kernel here")
@pytest.mark.parametrize(("core", "kernel"), SIMD, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_text_valid_and_feen_like(core: ModuleType, kernel: str) -> None:
    # Long enough for many blocks and for more tokens than one scan_many call takes.
    texts = [
        "".join(uniform(3000)),
        "".join(realistic(3000)),
        "/".join(PLACEMENTS) * 5,
        "".join(f"{t}{i % 9}" for i, t in enumerate(EPIN_TOKENS)),
        "".join(PIN_TOKENS) * 2,
    ]
    assert_text_same_as_portable(core, kernel, texts)


@pytest.mark.skipif(not SIMD, reason="no SIMD kernel here")
@pytest.mark.parametrize(("core", "kernel"), SIMD, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_text_near_miss_at_every_offset_around_the_block_edges(
    core: ModuleType, kernel: str
) -> None:
    # scan_many's kernel takes whole 64-byte blocks and looks one byte back and one
    # ahead: each near miss on every offset near the start and the first edge, after
    # tokens whose markers touch the edge, ending the text or followed by more blocks.
    texts = []
    for miss in [m.decode("latin-1") for m in NEAR_MISSES] + ["/", "8", " ", "é"]:
        for lead in [*range(0, 8), *range(52, 76)]:
            for pattern in ("+K^'", "k", "-q^", "K'"):
                head = (pattern * 64)[:lead]
                for tail in ("", "-r^+P'" * 30):
                    texts.append(head + miss + tail)
    assert_text_same_as_portable(core, kernel, texts)


@pytest.mark.skipif(not SIMD, reason="no SIMD kernel here")
@pytest.mark.parametrize(("core", "kernel"), SIMD, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_text_random_near_the_grammar(core: ModuleType, kernel: str) -> None:
    rng = random.Random(13)
    noise = "+-^'Kk1/8 é\x00"
    texts = []
    for _ in range(800):
        text = list("".join(rng.choices(EPIN_TOKENS, k=rng.randint(0, 150))))
        for _ in range(rng.choice([0, 0, 1, 3])):
            if text:
                text[rng.randrange(len(text))] = rng.choice(noise)
        texts.append("".join(text))
        texts.append("".join(rng.choice(noise) for _ in range(rng.randint(0, 200))))
    assert_text_same_as_portable(core, kernel, texts)


# -- many texts at once (tokenize_many): a kernel's rows loop writes each token's record,
# row and offset in its own blocks, over the texts copied back to back -----------------


def rows_outcome(core: ModuleType, texts: list[object], epin: bool, errors: str) -> object:
    """Everything tokenize_many says about a column: records, offsets, rows, missing
    rows and marks, or the error."""
    try:
        result = core.tokenize_many(texts, epin, errors)
    except ParseError as error:
        return ("error", error.token, error.reason, error.index, error.position)
    return (
        "ok", np.asarray(result).tobytes(), list(result.offsets), list(result.row_offsets),
        list(result.missing_rows),
        [(e.index, e.token, e.reason, e.position) for e in result.errors()],
    )  # fmt: skip


_TWIN_ROWS: dict[tuple[str, bool, str], object] = {}


def assert_rows_same_as_twin(
    core: ModuleType, kernel: str, columns: list[list[object]], piece_sizes: tuple[int, ...] = ()
) -> None:
    """Each column, read by kernel (whole, and in pieces of each size), gives the twin's
    answer, for both grammars and both errors modes."""
    modes = [(epin, errors) for epin in (True, False) for errors in ("raise", "mark")]
    expected = []
    for column in columns:
        for epin, errors in modes:
            key = (repr(column), epin, errors)
            if key not in _TWIN_ROWS:  # the twin is slow: once for every kernel
                _TWIN_ROWS[key] = rows_outcome(_core_py, column, epin, errors)
            expected.append(_TWIN_ROWS[key])
    before = core.use_bytes_kernel(kernel)
    try:
        for size in (0, *piece_sizes):
            was = core.use_piece_size(size) if size else None
            try:
                got = [
                    rows_outcome(core, c, epin, errors) for c in columns for epin, errors in modes
                ]
            finally:
                if was is not None:
                    core.use_piece_size(was)
            for i, (have, want) in enumerate(zip(got, expected, strict=True)):
                assert have == want, (
                    kernel,
                    size,
                    columns[i // len(modes)][:4],
                    modes[i % len(modes)],
                )
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_rows_valid_and_feen_like(core: ModuleType, kernel: str) -> None:
    # Rows of every length around a block, many rows to a block and rows of many blocks,
    # empty and missing rows, a newline inside a row (the one between rows is the
    # copy's), and sizes that start pieces all over a block.
    rng = random.Random(47)
    tokens = uniform(4000)
    rows: list[object] = []
    for length in [*range(0, 140), *rng.choices(range(0, 400), k=60)]:
        rows.append("".join(rng.choices(tokens, k=length))[:length])
        if rng.random() < 0.1:
            rows.append(rng.choice([None, "", "8", "\n", "K\n^", "+K\n'"]))
    columns: list[list[object]] = [
        rows,
        list(PLACEMENTS) * 40,
        ["".join(realistic(30)) for _ in range(200)],
        ["K"] * 300 + ["+K^'"] * 100 + [""] * 70 + ["".join(PIN_TOKENS)],
        ["/".join(PLACEMENTS) * 3],
    ]
    assert_rows_same_as_twin(core, kernel, columns, piece_sizes=(1, 97, 1000))


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_rows_near_miss_at_every_offset_around_the_block_edges(
    core: ModuleType, kernel: str
) -> None:
    # Each near miss at every offset of a block, in a row after rows that end a block's
    # worth of bytes on every alignment: a refused row is read again alone and the next
    # row starts the rows loop again, wherever it stands in a block.
    misses = ["KK", "K+", "^K", "++K", "K^^", "K''", "K'^", "'K", "+", "-", "^", "'", "+^",
              "1", "/", "8", " ", "\n", "+\n", "é", "+K^'X", "K'K", "k'"]  # fmt: skip
    columns: list[list[object]] = []
    for miss in misses:
        for pattern in ("+K^'", "k", "-q^", "K'"):
            column: list[object] = []
            for lead in range(0, 72):
                column.append((pattern * 64)[:lead] + miss + "-r^+P'" * (lead % 3))
                column.append("K" * (lead % 5))
            columns.append(column)
    # many short rows to a block, some refused: the block a kernel refuses gives the
    # rows and tokens before its first refused byte, whichever row that byte is in
    for lead in range(0, 70, 3):
        column = ["K" * lead]
        for i in range(200):
            column.append(("+K^'", "k", "-q^", "R'")[i % 4] * (1 + i % 3))
            if i % 7 == lead % 7:
                column.append(misses[(i + lead) % len(misses)] + "p" * (i % 2))
        columns.append(column)
    # one refused row in an otherwise valid column, at every offset of its first blocks
    for at in range(0, 140):
        placements = "".join(PLACEMENTS)
        columns.append([placements[:at], placements[at:] + "K^^", *PLACEMENTS])
    assert_rows_same_as_twin(core, kernel, columns)


@pytest.mark.parametrize(("core", "kernel"), BYTES, ids=lambda v: getattr(v, "IMPLEMENTATION", v))
def test_rows_random_near_the_grammar(core: ModuleType, kernel: str) -> None:
    rng = random.Random(53)
    noise = "+-^'Kk1/8 \né"
    columns: list[list[object]] = []
    for _ in range(40):
        column: list[object] = []
        for _ in range(rng.randint(0, 60)):
            text = list("".join(rng.choices(EPIN_TOKENS, k=rng.randint(0, 90))))
            for _ in range(rng.choice([0, 0, 0, 1, 3])):
                if text:
                    text[rng.randrange(len(text))] = rng.choice(noise)
            column.append(rng.choice(["".join(text)] * 8 + [None]))
        columns.append(column)
    assert_rows_same_as_twin(core, kernel, columns, piece_sizes=(1, 150))


# -- pieces ---------------------------------------------------------------------------


ALL_KERNELS = [(core, kernel) for core in COMPILED for kernel in core.KERNELS]


def assert_pieces_change_nothing(
    core: ModuleType, kernel: str, inputs: list[object], sizes: tuple[int, ...]
) -> None:
    """Every input read with each piece size gives what it gives read whole."""

    def everything() -> list[object]:
        return [outcome(core, data, epin, errors) for data in inputs
                for epin in (True, False) for errors in ("raise", "mark")]  # fmt: skip

    assert_same_in_pieces(core, kernel, everything, sizes)


def assert_same_in_pieces(
    core: ModuleType, kernel: str, everything: Callable[[], object], sizes: tuple[int, ...]
) -> None:
    """everything() gives the same with each piece size as with the default, on kernel."""
    before = core.use_bytes_kernel(kernel)
    try:
        whole = everything()
        for size in sizes:
            was = core.use_piece_size(size)
            try:
                assert everything() == whole, (kernel, size)
            finally:
                core.use_piece_size(was)
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(
    ("core", "kernel"),
    [(core, kernel) for core in CORES for kernel in core.KERNELS],
    ids=lambda v: getattr(v, "IMPLEMENTATION", v),
)
def test_a_buffer_read_in_pieces_gives_what_it_gives_whole(core: ModuleType, kernel: str) -> None:
    """Byte buffers are read a few MiB at a time, to the next separator, with signal
    checks between: every piece size, tiny ones included, gives the whole read's
    records, marks, error token, index, offset and line."""
    rng = random.Random(17)
    noise = b" \t\n+-^'Kk1\x00\xffz"
    inputs = [b"", b" ", b"K", b"K ", b" K", b"x" * 300, b"K " + b"x" * 300 + b" q"]
    for _ in range(150):
        data = bytearray(joined(rng.choices(EPIN_TOKENS, k=rng.randint(0, 200)), rng))
        for _ in range(rng.choice([0, 0, 1, 3])):
            if data:
                data[rng.randrange(len(data))] = rng.choice(noise)
        inputs.append(bytes(data))
    assert_pieces_change_nothing(core, kernel, inputs, (1, 2, 3, 7, 64, 65, 200))


@pytest.mark.skipif(not COMPILED, reason="no compiled core")
@pytest.mark.parametrize(
    ("core", "kernel"), ALL_KERNELS, ids=lambda v: getattr(v, "IMPLEMENTATION", v)
)
def test_numpy_arrays_read_in_pieces_give_what_they_give_whole(
    core: ModuleType, kernel: str
) -> None:
    rng = random.Random(19)
    words = [w for w in NEAR_MISSES if w.isascii()]
    arrays = []
    for dtype in ("S1", "S2", "S4", "S6", "U1", "U4", "U5"):
        for _ in range(12):
            entries = [
                rng.choice(words) if rng.random() < 0.05 else rng.choice(EPIN_TOKENS).encode()
                for _ in range(rng.randint(0, 90))
            ]
            array = np.array(entries, dtype="S6").astype(dtype)  # cut to the width
            arrays.append(array)
            arrays.append(array[::-1])  # strided backwards
            if dtype == "S6":  # numpy's variable-width strings, read in place too
                texts = [e.decode() for e in entries]
                arrays.append(np.array(texts, dtype=np.dtypes.StringDType()))
    assert_pieces_change_nothing(core, kernel, arrays, (1, 5, 8, 40))


@pytest.mark.skipif(not COMPILED, reason="no compiled core")
@pytest.mark.parametrize(
    ("core", "kernel"), ALL_KERNELS, ids=lambda v: getattr(v, "IMPLEMENTATION", v)
)
def test_objects_read_in_pieces_are_what_they_are_whole(core: ModuleType, kernel: str) -> None:
    """Lists, tuples, object arrays and iterables are read a piece of items at a time
    (signal checks between): every piece size gives the whole read's records, marks and
    first error."""
    rng = random.Random(31)
    misses = [w.decode("latin-1") for w in NEAR_MISSES] + [None, float("nan"), "K\u212a"]
    inputs: list[object] = []
    for _ in range(30):
        items = [
            rng.choice(misses) if rng.random() < 0.05 else rng.choice(EPIN_TOKENS)
            for _ in range(rng.randint(0, 90))
        ]
        inputs += [items, tuple(items), np.array(items, dtype=object)]
    assert_pieces_change_nothing(core, kernel, inputs, (4, 8, 12, 40))
    was = core.use_piece_size(4)
    try:  # an item of another type, late: the same TypeError
        with pytest.raises(TypeError, match="item 624 is int"):
            core.parse_many([*EPIN_TOKENS, 7], True)
    finally:
        core.use_piece_size(was)


@pytest.mark.skipif(not COMPILED, reason="no compiled core")
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timer")
def test_a_handler_that_changes_the_list_being_read_is_seen() -> None:
    """A signal handler runs between pieces and may change the list parse_many reads:
    items replaced are read as they are then; a list resized is a RuntimeError, never
    a read of freed memory."""
    core = COMPILED[0]
    tokens = list(uniform(200_000))
    was = core.use_piece_size(4)  # a check after every item: the timer fires mid-call

    def replace(signum: int, frame: object) -> None:
        tokens[-1] = "x1"

    def resize(signum: int, frame: object) -> None:
        tokens.extend(["K"] * 1000)  # moves the items

    before = signal.getsignal(signal.SIGALRM)
    try:
        for handler, raised in ((replace, ParseError), (resize, RuntimeError)):
            tokens[-1] = "K"
            del tokens[200_000:]
            signal.signal(signal.SIGALRM, handler)
            with pytest.raises(raised) as error:
                for _ in range(100):  # until the timer has fired inside a call
                    # Set again each time: on a busy machine it may fire between calls.
                    signal.setitimer(signal.ITIMER_REAL, 0.002)
                    core.parse_many(tokens, True)
            if raised is ParseError:
                assert (error.value.token, error.value.index) == ("x1", 199_999)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        core.use_piece_size(was)


@pytest.mark.skipif(not COMPILED, reason="no compiled core")
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timer")
def test_a_text_lengthened_while_tokenize_many_reads_is_read_whole() -> None:
    """tokenize_many sizes its output from the texts' lengths before it reads them; a
    signal handler between pieces may then lengthen a text past that room: the output
    grows, and the result is the list's as it was when each text was read."""
    core = COMPILED[0]
    texts = ["K"] * 100_000
    longer = "K" * 300_000  # more tokens than all the texts held when the room was sized
    was = core.use_piece_size(4)  # a check after every text: the timer fires mid-call
    seen: list[bool] = []
    calling = [False]

    def lengthen(signum: int, frame: object) -> None:
        texts[-1] = longer
        seen.append(calling[0])

    before = signal.getsignal(signal.SIGALRM)
    try:
        signal.signal(signal.SIGALRM, lengthen)
        for _ in range(100):  # until the timer has fired inside a call
            texts[-1] = "K"
            seen.clear()
            signal.setitimer(signal.ITIMER_REAL, 0.002)
            calling[0] = True
            result = core.tokenize_many(texts, True)
            calling[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            if seen == [True]:
                break
        assert seen == [True], "the timer never fired inside a call"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        core.use_piece_size(was)
    assert len(result) == 99_999 + 300_000
    assert result == core.tokenize_many(texts, True)
    assert result.offsets == core.tokenize_many(texts, True).offsets


@pytest.mark.skipif(not COMPILED, reason="no compiled core")
@pytest.mark.parametrize(
    ("core", "kernel"), ALL_KERNELS, ids=lambda v: getattr(v, "IMPLEMENTATION", v)
)
def test_outputs_written_in_pieces_are_what_they_are_whole(core: ModuleType, kernel: str) -> None:
    """to_bytes() and tokens() write a piece of entries at a time (signal checks
    between): every piece size and separator gives the whole write's bytes and strs."""
    rng = random.Random(29)
    results = [core.parse_many(rng.choices(EPIN_TOKENS, k=k), True) for k in (0, 1, 2, 17, 300)]
    separators = [b"\n", b" ", b"", b", ", b"\t|\t|", b" -- "]
    tokens = rng.choices([*EPIN_TOKENS, "x1", None], k=300)
    marked = [core.parse_many(tokens[:k], epin, "mark") for k in (7, 40, 300) for epin in (1, 0)]

    def everything() -> list[object]:
        return [(r.to_bytes(sep), r.tokens()) for r in results for sep in separators] + [
            (r.codes(), pa.table(r).to_pylist()) for r in results + marked
        ]

    assert results[-1].to_bytes(b" -- ") == b" -- ".join(t.encode() for t in results[-1].tokens())
    assert_same_in_pieces(core, kernel, everything, (4, 8, 12, 40, 400))  # 1-100 entries
