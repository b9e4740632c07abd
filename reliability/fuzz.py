"""Differential fuzzing with atheris: the compiled core against the pure-Python twin
(result and error reason) and the spec's regexes, on every way a token gets in.

    python reliability/fuzz.py                      # every target, 60 s in all
    python reliability/fuzz.py --seconds 3600       # a longer campaign
    python reliability/fuzz.py --target bulk_bytes --seconds 600

Each target runs in its own process under libFuzzer (``-max_total_time``), from a seed
corpus of tokens and near misses kept in build/fuzz/ (it grows as the fuzzer finds new
paths).  A mismatch is an AssertionError, a crash a signal: either stops the target,
leaves its input as build/fuzz/crash-*, and fails the run.  The summary gives the
executions of each target.

Coverage guidance comes from atheris' instrumentation of the Python code the inputs go
through (the twin's scanner, whose branches are the grammar's, the facade and the
oracle) and from its hooks on str/bytes comparisons; the compiled core itself is not
instrumented (that needs a clang build), it is the thing being checked.  bulk_list,
bulk_bytes and arrow run every bytes kernel the CPU has (AVX-512, AVX2, SSE2, portable)
on each input.  arrow_structs hands over Arrow C Data Interface structs whose fields
lie (tests/arrow_producers.py, the kit the tests use): both cores must give the same
outcome and release every struct once.

Pass ``--worker TARGET`` and libFuzzer's own options to run one target in this process.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the regex oracle the tests use

TARGETS = (
    "single",
    "is_valid",
    "bulk_list",
    "bulk_bytes",
    "scan",
    "arrow",
    "arrow_structs",
    "lying_objects",
)

# Characters near the grammar, where the interesting inputs are: markers, letters at
# the edges of both ranges and their neighbours, separators, NUL, look-alikes.
NEAR = "+-^'AZaz@[`{Kk19 \t\n\r\x0b\x0c\x00\x7f\x80\xff\u00e9\u0301\u200b\u212a\uff2b/"
NEAR_BYTES = bytes(ord(c) for c in NEAR if ord(c) < 256)


class SubStr(str):
    """A str subclass: parsed by its characters, like any str."""


# -- the targets (run inside the fuzzing process) --------------------------------------


def load():  # type: ignore[no-untyped-def]
    """The modules under test, imported under atheris' instrumentation."""
    import atheris

    with atheris.instrument_imports(include=["sashite_epin", "oracle"]):
        import numpy as np
        import oracle

        import sashite_epin
        from sashite_epin import ParseError, _arrow_py, _core_c, _core_py
        from sashite_epin._epin import _EPINS
        from sashite_epin._pin import _PINS
    _core_py.register(_PINS, _EPINS)
    return atheris, np, oracle, sashite_epin, ParseError, _core_c, _core_py, _arrow_py


def make_targets():  # type: ignore[no-untyped-def]
    atheris, np, oracle, sashite_epin, ParseError, compiled, twin, arrow_structs = load()
    import pyarrow as pa

    from sashite_epin._corpora import EPIN_TOKENS

    cores = (compiled, twin)

    def text(fdp: object, limit: int = 12) -> str:
        """Text near the grammar, any Unicode, or Latin-1 bytes, as the fuzzer picks."""
        mode = fdp.ConsumeIntInRange(0, 2)  # type: ignore[attr-defined]
        if mode == 0:
            picks = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, limit))  # type: ignore[attr-defined]
            return "".join(NEAR[b % len(NEAR)] for b in picks)
        if mode == 1:
            return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, limit))  # type: ignore[attr-defined,no-any-return]
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, limit)).decode("latin-1")  # type: ignore[attr-defined,no-any-return]

    def outcome(call: object, *args: object) -> object:
        try:
            result = call(*args)  # type: ignore[operator]
        except ParseError as e:
            return ("ParseError", e.reason, e.notation, e.index, e.position, e.token)
        except (TypeError, ValueError) as e:
            return (type(e).__name__, str(e))
        if isinstance(result, (compiled.TokenArray, twin.TokenArray)):
            return ("array", np.asarray(result).tobytes(), list(result.invalid), len(result))
        if isinstance(result, list):
            return [str(x) for x in result]
        if isinstance(result, tuple):
            return tuple(str(x) if isinstance(x, sashite_epin.Epin | sashite_epin.Pin) else x
                         for x in result)  # fmt: skip
        return result if isinstance(result, (bool, int, type(None))) else str(result)

    def typed(call: object, s: str) -> object:
        """tokenize's result with each item's type: a token and a text run that reads
        the same must not compare equal."""
        try:
            return [(type(x).__name__, str(x)) for x in call(s)]  # type: ignore[operator]
        except ParseError as e:
            return ("ParseError", e.reason, e.position, e.token)

    def same(name: str, *args: object) -> object:
        """The outcome of core.name(*args), checked to be the same on both cores."""
        a, b = (outcome(getattr(core, name), *args) for core in cores)
        assert a == b, (name, args, a, b)
        return a

    def under_every_kernel(check: Callable[[str], None]) -> None:
        """check(kernel) with the compiled core's bytes kernel set to each one this CPU
        runs (they read byte buffers and Arrow columns, scan text and export results)."""
        default = compiled.bytes_kernel()
        try:
            for kernel in compiled.KERNELS:
                compiled.use_bytes_kernel(kernel)
                check(kernel)
        finally:
            compiled.use_bytes_kernel(default)

    def every_kernel(name: str, *args: object) -> object:
        """same(), and the compiled core's outcome under every bytes kernel the same
        again."""
        got = same(name, *args)

        def check(kernel: str) -> None:
            assert outcome(getattr(compiled, name), *args) == got, (kernel, args)

        under_every_kernel(check)
        return got

    def single(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        s, epin = text(fdp), fdp.ConsumeBool()
        code = same("epin_code" if epin else "pin_code", s)
        valid = oracle.is_token(s, epin)
        assert isinstance(code, int) is valid, (s, code)
        parsed = same("parse_epin" if epin else "parse_pin", s)
        if valid:
            assert parsed == s and same("format_code", code) == s

    def is_valid(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        s = text(fdp)
        kind = fdp.ConsumeIntInRange(0, 3)
        value: object = [s, s.encode("utf-8", "surrogatepass"), SubStr(s), None][kind]
        for epin in (False, True):
            got = same("is_valid_epin" if epin else "is_valid_pin", value)
            assert got is (isinstance(value, str) and oracle.is_token(s, epin)), (value, got)
            safe = same("safe_parse_epin" if epin else "safe_parse_pin", value)
            assert (safe is not None) is got

    def bulk_list(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        epin, mark = fdp.ConsumeBool(), fdp.ConsumeBool()
        tokens = [text(fdp, 6) for _ in range(fdp.ConsumeIntInRange(0, 24))]
        got = every_kernel("parse_many", tokens, epin, "mark" if mark else "raise")
        bad = [i for i, t in enumerate(tokens) if not oracle.is_token(t, epin)]
        if mark or not bad:
            assert got[2] == bad, (tokens, got)
        else:
            assert got[3] == bad[0], (tokens, got)  # ParseError at the first bad index
        if tokens and not any(t.endswith("\x00") for t in tokens):  # NUL padding
            array = np.array(tokens, dtype="U")
            assert every_kernel("parse_many", array, epin, "mark")[2] == bad

    def bulk_bytes(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        epin, mark, offset = fdp.ConsumeBool(), fdp.ConsumeBool(), fdp.ConsumeIntInRange(0, 7)
        near = fdp.ConsumeBool()  # before the rest: afterwards nothing would be left
        raw = fdp.ConsumeBytes(fdp.remaining_bytes())
        if near:  # near-grammar bytes, so that tokens are long enough
            raw = bytes(NEAR_BYTES[b % len(NEAR_BYTES)] for b in raw)
        errors = "mark" if mark else "raise"
        got = same("parse_many", raw, epin, errors)
        view = memoryview(bytearray(bytes(offset) + raw))[offset:]  # unaligned, writable
        assert every_kernel("parse_many", view, epin, errors) == got
        words = raw.split()
        bad = [i for i, w in enumerate(words) if not oracle.is_token(w.decode("latin-1"), epin)]
        if mark or not bad:
            assert got[2] == bad, (raw, got)
        else:
            assert got[3] == bad[0] and got[5] == words[bad[0]], (raw, got)
        if words and not any(w.endswith(b"\x00") for w in words):
            assert same("parse_many", np.array(words), epin, "mark")[2] == bad
        if words and not bad:
            # Formatted back, repeated past 200 bytes where to_bytes's SIMD kernel takes
            # whole blocks: every kernel joins the tokens as they were read.
            sep = (b"", b"\n", b", ", b"abcd", b"abcde")[offset % 5]
            tokens = words * (1 + 200 // len(words))

            def joins(kernel: str) -> None:
                joined = compiled.parse_many(b" ".join(tokens), epin).to_bytes(sep)
                assert joined == sep.join(tokens), (kernel, tokens, sep)

            under_every_kernel(joins)

    def scan(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        epin, s = fdp.ConsumeBool(), text(fdp, 40)
        pos = fdp.ConsumeIntInRange(0, len(s) + 1)
        got = same("tokenize_epin" if epin else "tokenize_pin", s)
        expected = oracle.oracle_tokenize(s, epin)
        if isinstance(expected, int):
            assert got[0] == "ParseError" and got[4] == expected, (s, got)
        else:
            assert got == expected, (s, got, expected)
        at = same("scan_epin" if epin else "scan_pin", s, pos)
        if at[0] not in ("ParseError", "ValueError"):
            token, end = at
            assert token == s[pos:end] and oracle.is_token(token, epin), (s, pos, at)
        # The same text repeated past 72 characters, where scan_many's SIMD kernels take
        # whole blocks: every kernel this CPU runs gives the twin's tokens and text runs.
        name, long = ("tokenize_epin" if epin else "tokenize_pin"), s * (1 + 200 // (len(s) or 1))
        want = typed(getattr(twin, name), long)

        def check(kernel: str) -> None:
            assert typed(getattr(compiled, name), long) == want, (kernel, long)

        under_every_kernel(check)

    class Patched:
        """A pyarrow utf8 array whose exported offsets are the fuzzer's, over its real
        data buffer: whatever they say, no core may read outside what they span."""

        def __init__(self, like: object, offsets: object) -> None:
            self.like, self.offsets = like, offsets

        def __arrow_c_array__(self, requested_schema: object = None) -> object:
            schema, array = self.like.__arrow_c_array__()  # type: ignore[attr-defined]
            struct = arrow_structs.ArrowArray.from_address(
                arrow_structs._GetPointer(array, b"arrow_array")
            )
            struct.buffers[1] = self.offsets.ctypes.data  # type: ignore[attr-defined]
            return schema, array

    layouts = (
        lambda e: pa.array(e, pa.string()),
        lambda e: pa.array(e, pa.large_string()),
        lambda e: pa.array(e, pa.string_view()),
        lambda e: pa.array(e, pa.string()).dictionary_encode(),
        lambda e: pa.chunked_array([e[: len(e) // 2], e[len(e) // 2 :]], pa.string()),
        lambda e: pa.array(["x", *e, "y"], pa.string())[1:-1],
    )

    def arrow(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        epin, errors = fdp.ConsumeBool(), "mark" if fdp.ConsumeBool() else "raise"
        count = fdp.ConsumeIntInRange(0, 40)  # up to 5 of the AVX2 kernel's groups of 8
        if fdp.ConsumeIntInRange(0, 3) == 0:  # hostile offsets over 6-byte strings
            # Backwards and negative, but never past the 6 * count bytes of data: past
            # them is the one lie no consumer can see (the interface does not carry the
            # size), and both cores would read whatever memory follows, which may change
            # between their two reads.
            offsets = np.array([fdp.ConsumeIntInRange(-6, 6 * count)
                                for _ in range(count + 1)], np.int32)  # fmt: skip
            hostile = Patched(pa.array(["K^'+-k"] * count), offsets)
            every_kernel("parse_many", hostile, epin, errors)
            every_kernel("tokenize_many", hostile, epin, errors)
            return
        if fdp.ConsumeIntInRange(0, 3) == 0:  # hostile views over 20-byte strings
            views = np.array([(fdp.ConsumeIntInRange(-2, 24), int.from_bytes(b"+K^'", "little"),
                               fdp.ConsumeIntInRange(-1, 2), fdp.ConsumeIntInRange(-4, 20 * count))
                              for _ in range(count)], "<i4").reshape(-1)  # fmt: skip
            like = pa.array(["K" * 20] * count, pa.string_view())
            every_kernel("parse_many", Patched(like, views), epin, errors)
            every_kernel("tokenize_many", Patched(like, views), epin, errors)
            return
        # Mostly tokens, so that whole groups of 8 form around the odd entries.
        entries = [
            None if (pick := fdp.ConsumeIntInRange(0, 15)) == 0 else
            text(fdp, 6).encode("utf-8", "replace").decode() if pick < 5 else  # UTF-8
            EPIN_TOKENS[fdp.ConsumeIntInRange(0, len(EPIN_TOKENS) - 1)]
            for _ in range(count)
        ]  # fmt: skip
        column = layouts[fdp.ConsumeIntInRange(0, len(layouts) - 1)](entries)
        got = every_kernel("parse_many", column, epin, errors)
        assert got == same("parse_many", entries, epin, errors), (entries, got)
        # each entry a text: the column read in place as the list of its texts
        texts = every_kernel("tokenize_many", column, epin, errors)
        assert texts == same("tokenize_many", entries, epin, errors), (entries, texts)
        if errors == "mark":  # and out again: the same export from both cores, every kernel
            want = pa.table(twin.parse_many(entries, epin, errors="mark"))
            result = compiled.parse_many(entries, epin, errors="mark")

            def exports(kernel: str) -> None:
                exported = pa.table(result)
                exported.validate(full=True)
                assert exported.equals(want), (kernel, entries)

            under_every_kernel(exports)

    import gc

    import arrow_producers

    def lying_structs(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)

        def pick(n: int) -> int:
            return fdp.ConsumeIntInRange(0, n - 1)  # type: ignore[no-any-return]

        results = []
        for core in cores:  # the same lies, made afresh for each core and each reader
            for reader in (core.parse_many, core.tokenize_many):
                kit = arrow_producers.Kit()
                fdp = atheris.FuzzedDataProvider(data)
                producer = arrow_producers.random_producer(kit, pick)
                results.append(outcome(reader, producer, True, "mark"))
                del producer
                gc.collect()
                kit.finish()
                released = dict(kit.released)
                handed = released.pop("chunks handed over", 0)
                assert released.pop("chunk", 0) == handed, released
                assert all(n == 1 for n in released.values()), released
        assert results[:2] == results[2:], results

    import lying_objects

    def lying(data: bytes) -> None:
        """Containers and items that lie (tests/lying_objects.py), the same lies made
        afresh for each core: each bulk reader gives what the plain items give, the same
        on both cores, and never calls a lying method."""
        for reader in ("parse_many", "tokenize_many"):
            results = []
            for core in cores:
                fdp = atheris.FuzzedDataProvider(data)
                epin, mark = fdp.ConsumeBool(), fdp.ConsumeBool()
                errors = "mark" if mark else "raise"

                def pick(n: int, fdp: object = fdp) -> int:
                    return fdp.ConsumeIntInRange(0, n - 1)  # type: ignore[attr-defined,no-any-return]

                container, items, trap = lying_objects.hostile_input(pick)
                got = lying_objects.outcome(getattr(core, reader), container, epin, errors)
                assert trap.fired == 0, (reader, items)
                plain = lying_objects.outcome(
                    getattr(core, reader), lying_objects.plain(items), epin, errors
                )
                assert repr(got) == repr(plain), (reader, items, got, plain)
                results.append(repr(got))
            assert results[0] == results[1], (reader, results)

    return atheris, {"single": single, "is_valid": is_valid, "bulk_list": bulk_list,
                     "bulk_bytes": bulk_bytes, "scan": scan, "arrow": arrow,
                     "arrow_structs": lying_structs, "lying_objects": lying}  # fmt: skip


def work(target: str, libfuzzer_args: list[str]) -> None:
    atheris, targets = make_targets()
    atheris.Setup([sys.argv[0], *libfuzzer_args], targets[target])
    atheris.Fuzz()


# -- the campaign (runs each target in a process of its own) ---------------------------


def seed(corpus: Path) -> None:
    """Tokens, near misses and placements as the starting corpus (bytes the targets'
    Latin-1 mode reads as the same text)."""
    from sashite_epin._corpora import EPIN_TOKENS, PLACEMENTS, with_invalid

    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    samples = [*EPIN_TOKENS[::7], *set(with_invalid(200)), *PLACEMENTS]
    for i, s in enumerate(samples):
        data = s.encode("utf-8", "surrogatepass")
        (corpus / f"seed-{i}").write_bytes(b"\x02" + bytes([len(data)]) + data)


def campaign(targets: list[str], seconds: float, out: Path) -> int:
    each = max(1, round(seconds / len(targets)))
    print(f"fuzzing {', '.join(targets)} for {each} s each (atheris, libFuzzer)")
    print("| target | executions | seconds | exec/s | corpus | result |\n|---|---|---|---|---|---|")
    failed = 0
    total = 0
    for target in targets:
        corpus = out / f"corpus-{target}"
        seed(corpus)
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, __file__, "--worker", target, f"-max_total_time={each}",
             f"-artifact_prefix={out}/crash-{target}-", "-print_final_stats=1",
             "-rss_limit_mb=4096", "-timeout=30", str(corpus)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        elapsed = time.monotonic() - started
        done = re.search(r"Done (\d+) runs in (\d+) second", run.stderr)
        units = re.search(r"stat::number_of_executed_units: *(\d+)", run.stderr)
        runs = int(units.group(1)) if units else 0
        total += runs
        size = len(list(corpus.iterdir()))
        ok = run.returncode == 0 and done is not None
        if ok:
            result = "0 crashes, 0 mismatches"
        else:  # a mismatch is an assertion; anything else (a signal, a hang) a crash
            kind = "MISMATCH" if "AssertionError" in run.stdout + run.stderr else "CRASH"
            result = f"{kind} (exit {run.returncode}), input in {out}/crash-{target}-*"
        rate = runs / elapsed
        print(f"| {target} | {runs:,} | {elapsed:.0f} | {rate:,.0f} | {size} | {result} |")
        if not ok:
            failed += 1
            print(run.stdout[-4000:], run.stderr[-4000:], sep="\n", file=sys.stderr)
    print(f"total: {total:,} executions, {failed} failing target(s)")
    return 1 if failed else 0


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        work(sys.argv[2], sys.argv[3:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="whole campaign (60)")
    parser.add_argument("--target", choices=[*TARGETS, "all"], default="all")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fuzz")
    args = parser.parse_args()
    targets = list(TARGETS) if args.target == "all" else [args.target]
    return campaign(targets, args.seconds, args.out)


if __name__ == "__main__":
    sys.exit(main())
