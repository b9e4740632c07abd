"""parse_many and TokenArray, on both cores, for every kind of input."""

from __future__ import annotations

import itertools
import mmap
import pickle
import threading
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from sashite_epin import CODE_NONE, Epin, ParseError, Pin
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS, realistic, uniform, with_invalid

# In the quick loop (pytest -m quick): parse_many over every kind of input.
pytestmark = pytest.mark.quick

UNIFORM = uniform(5000)
REALISTIC = realistic(5000)
MIXED = with_invalid(3000)
# The separator-free mixed tokens: those bytes input can carry as one token each.
MIXED_BYTES_SAFE = [t for t in MIXED if t and not any(c in t for c in " \t\n\r\x0b\x0c")]


def as_list(tokens: list[str]) -> object:
    return list(tokens)


def as_tuple(tokens: list[str]) -> object:
    return tuple(tokens)


def as_iterator(tokens: list[str]) -> object:
    return iter(tokens)


def as_bytes(tokens: list[str]) -> object:
    return "\n".join(tokens).encode("utf-8", "surrogatepass")


def as_messy_bytes(tokens: list[str]) -> object:
    # Runs of every separator bytes.split() knows, leading and trailing too.
    seps = [b" ", b"\n", b"\r\n", b"\t\t", b" \x0b\x0c "]
    body = b"".join(t.encode("utf-8") + seps[i % len(seps)] for i, t in enumerate(tokens))
    return b" \n\t" + body


def as_bytearray(tokens: list[str]) -> object:
    return bytearray(as_bytes(tokens))  # type: ignore[arg-type]


def as_memoryview(tokens: list[str]) -> object:
    return memoryview(b"xx" + as_bytes(tokens))[2:]  # type: ignore[operator]


def as_numpy_s(tokens: list[str]) -> object:
    return np.array([t.encode("utf-8") for t in tokens], dtype="S8")


def as_numpy_u(tokens: list[str]) -> object:
    return np.array(tokens, dtype="U6")


def as_strided_numpy_u(tokens: list[str]) -> object:
    doubled = np.array([t for t in tokens for _ in (0, 1)], dtype="U6")
    return doubled[::2]


KINDS: list[Callable[[list[str]], object]] = [
    as_list,
    as_tuple,
    as_iterator,
    as_bytes,
    as_messy_bytes,
    as_bytearray,
    as_memoryview,
    as_numpy_s,
    as_numpy_u,
    as_strided_numpy_u,
]
BYTES_KINDS = {as_bytes, as_messy_bytes, as_bytearray, as_memoryview}
NUMPY_KINDS = {as_numpy_s, as_numpy_u, as_strided_numpy_u}


class Iterable:
    """Iterable but neither a list nor a buffer: parse_many's generic path."""

    def __init__(self, items: list[object]) -> None:
        self.items = items

    def __iter__(self) -> object:
        return iter(self.items)


def per_token(core: ModuleType, tokens: list[str], epin: bool = True) -> list[object]:
    safe = core.safe_parse_epin if epin else core.safe_parse_pin
    return [safe(t) for t in tokens]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("corpus", [UNIFORM, REALISTIC], ids=["uniform", "realistic"])
def test_bulk_equals_the_per_token_api(
    core: ModuleType, kind: Callable[..., object], corpus: list[str]
) -> None:
    result = core.parse_many(kind(corpus), True)
    assert len(result) == len(corpus)
    assert list(result) == per_token(core, corpus)
    assert result.tokens() == corpus
    assert list(result.codes()) == [core.epin_code(t) for t in corpus]
    assert len(result.invalid) == 0


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_mark_mode_reports_every_invalid_index(
    core: ModuleType, kind: Callable[..., object]
) -> None:
    tokens = MIXED_BYTES_SAFE if kind in BYTES_KINDS else MIXED
    if kind in NUMPY_KINDS:  # NUL padding cannot hold a trailing NUL (numpy strips it too)
        tokens = [t for t in tokens if not t.endswith("\x00")]
    expected = per_token(core, tokens)
    result = core.parse_many(kind(tokens), True, errors="mark")
    assert list(result) == expected
    assert list(result.invalid) == [i for i, e in enumerate(expected) if e is None]
    records = np.asarray(result)
    assert list(np.flatnonzero(records["letter"] == 0)) == list(result.invalid)
    assert [c for c in result.codes()] == [CODE_NONE if e is None else e.code for e in expected]
    with pytest.raises(ValueError, match="is invalid"):
        result.tokens()
    with pytest.raises(ValueError, match="is invalid"):
        result.to_bytes()


def test_invalid_is_a_copy_that_changes_nothing_else(core: ModuleType) -> None:
    clean = core.parse_many(["K", "q"], True)
    marked = core.parse_many(["K", "KK", "q"], True, errors="mark")
    for result in (clean, marked):
        result.invalid.append(0)
        result.invalid.extend(result.invalid)
    assert list(clean.invalid) == [] and clean.tokens() == ["K", "q"]
    assert list(marked.invalid) == [1] and len(marked.errors()) == 1
    assert list(core.parse_many(["k"], True).invalid) == []


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("where", [0, 1234, 4999])
def test_raise_mode_names_the_first_invalid_token_and_its_index(
    core: ModuleType, kind: Callable[..., object], where: int
) -> None:
    tokens = list(UNIFORM)
    tokens[where] = "K+^"
    tokens[-1 if where != 4999 else 0] = "xx" if where != 4999 else "K"
    with pytest.raises(ParseError) as info:
        core.parse_many(kind(tokens), True)
    assert info.value.index == where
    assert info.value.token in ("K+^", b"K+^")
    assert info.value.reason == "modifier must be a prefix"
    assert f"at index {where}" in str(info.value)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_empty_input_gives_an_empty_result(core: ModuleType, kind: Callable[..., object]) -> None:
    result = core.parse_many(kind([]), True)
    assert len(result) == 0 and list(result) == [] and result.tokens() == []
    assert result.to_bytes() == b"" and len(result.codes()) == 0
    assert np.asarray(result).shape == (0,)


def test_whitespace_only_bytes_hold_no_token(bytes_core: ModuleType) -> None:
    assert len(bytes_core.parse_many(b" \n\t\r\x0b\x0c ", True)) == 0


@pytest.mark.parametrize("token", ["K", "+K^'", "-q^", "Ab", "K" * 70, "+", "K^^"])
def test_tokens_across_block_boundaries_and_at_the_very_end(
    bytes_core: ModuleType, token: str
) -> None:
    # The compiled core finds tokens 64 bytes at a time and reads 8 bytes per token:
    # put the token on every offset around the first two block edges, followed by
    # nothing, or by one more token, so buffers end at every length up to ~220
    # (multiples of 64 included) and mid-block.
    for lead in range(0, 140):
        for tail in (b"", b" ", b" K"):
            data = b" " * lead + token.encode() + tail
            tokens = data.decode().split()
            expected = per_token(bytes_core, tokens)
            assert list(bytes_core.parse_many(data, True, "mark")) == expected
            if None in expected:
                with pytest.raises(ParseError) as caught:
                    bytes_core.parse_many(data, True)
                assert caught.value.index == expected.index(None)
                with pytest.raises(ParseError) as alone:
                    bytes_core.parse_epin(tokens[caught.value.index])
                assert caught.value.reason == alone.value.reason
            else:
                assert list(bytes_core.parse_many(data, True)) == expected


def test_pin_grammar_rejects_derived_tokens(bytes_core: ModuleType) -> None:
    with pytest.raises(ParseError) as info:
        bytes_core.parse_many(b"K k' q", False)
    assert (info.value.index, info.value.notation, info.value.token) == (1, "PIN", b"k'")
    result = bytes_core.parse_many(["K", "+q^"], False)
    assert result.notation == "PIN" and list(result) == [Pin.parse("K"), Pin.parse("+q^")]


def test_records_are_a_zero_copy_structured_numpy_array(core: ModuleType) -> None:
    result = core.parse_many(["K", "+r^'", "-p"], True)
    records = np.asarray(result)
    assert records.dtype.names == ("letter", "side", "state", "terminal", "derived")
    assert all(records.dtype[name] == np.uint8 for name in records.dtype.names)
    assert records.dtype.itemsize == 5
    assert records.tolist() == [(75, 0, 0, 0, 0), (82, 1, 1, 1, 1), (80, 1, 2, 0, 0)]
    assert np.shares_memory(records, np.asarray(result))  # both views of the one buffer
    assert not records.flags.writeable
    with pytest.raises(ValueError):
        records["letter"][0] = 1


def test_the_compiled_result_exports_the_buffer_protocol(core: ModuleType) -> None:
    if core.IMPLEMENTATION != "cython":
        pytest.skip("the twin offers __array__ (no Python-level buffer protocol on 3.11)")
    view = memoryview(core.parse_many(["K", "q^"], True))
    assert (view.format, view.itemsize, view.shape, view.readonly) == (
        "T{B:letter:B:side:B:state:B:terminal:B:derived:}",
        5,
        (2,),
        True,
    )
    assert view.tobytes() == bytes([75, 0, 0, 0, 0, 81, 1, 0, 1, 0])


def test_to_bytes_is_the_inverse_of_parsing(bytes_core: ModuleType) -> None:
    data = as_bytes(UNIFORM)
    result = bytes_core.parse_many(data, True)
    assert result.to_bytes() == data
    assert result.to_bytes(b" ") == " ".join(UNIFORM).encode()
    assert result.to_bytes(b"") == "".join(UNIFORM).encode()
    assert result.to_bytes(bytearray(b", ")) == ", ".join(UNIFORM).encode()
    assert bytes_core.parse_many(result.to_bytes(b"\t"), True) == result


SEPARATORS = [b"", b"\n", b" ", b", ", b"abc", b"abcd", b"abcde", b"\0" * 9]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_to_bytes_at_every_short_length(bytes_core: ModuleType, sep: bytes) -> None:
    # The compiled core sizes its output by counting the records 16 at a time, then
    # (AVX2) writes 16 tokens at a time while more than a block's bytes remain, then 8
    # bytes a token until the last 8 bytes, which it copies by length: every count from
    # 0 to 120 crosses each of those edges, with tokens of every length.
    tokens = [t for t in EPIN_TOKENS if len(t) == 4] + list(EPIN_TOKENS)
    for count in range(121):
        for start in (0, 3, 600):
            chosen = (tokens * 2)[start : start + count]
            result = bytes_core.parse_many(chosen, True)
            assert result.to_bytes(sep) == sep.join(t.encode() for t in chosen)


@pytest.mark.parametrize("sep", SEPARATORS)
@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_every_kernel_joins_the_same_bytes(bytes_core: ModuleType, sep: bytes, epin: bool) -> None:
    # The AVX2 kernel packs the bytes of two tokens by one shuffle chosen by their two
    # lengths: every token at each position of a 16-token block, and every two lengths
    # at each position of a block.
    tokens = EPIN_TOKENS if epin else PIN_TOKENS
    by_length: dict[int, list[str]] = {}
    for token in tokens:
        by_length.setdefault(len(token), []).append(token)
    pairs = [by_length[n][(5 * i + j) % len(by_length[n])]
             for i, two in enumerate(itertools.product(sorted(by_length), repeat=2))
             for j, n in enumerate(two)]  # fmt: skip
    cases = [list(tokens[shift:] + tokens[:shift]) for shift in range(16)]
    cases += [(pairs * 3)[shift : shift + 80] for shift in range(16)]
    for chosen in cases:
        result = bytes_core.parse_many(chosen, epin)
        assert result.to_bytes(sep) == sep.join(t.encode() for t in chosen), chosen


def test_to_bytes_of_every_token(bytes_core: ModuleType) -> None:
    for tokens in (EPIN_TOKENS, PIN_TOKENS):
        result = bytes_core.parse_many(list(tokens) * 3, len(tokens) == len(EPIN_TOKENS))
        assert result.to_bytes(b"") == "".join(list(tokens) * 3).encode()
        assert result.to_bytes() == "\n".join(list(tokens) * 3).encode()


def test_indexing_and_slicing(core: ModuleType) -> None:
    result = core.parse_many(["K", "q^", "+R'"], True)
    assert result[0] is Epin.parse("K") and result[-1] is Epin.parse("+R'")
    assert result[1:].tokens() == ["q^", "+R'"] and result[::-1].tokens() == ["+R'", "q^", "K"]
    with pytest.raises(IndexError):
        result[3]
    with pytest.raises(TypeError):
        result["0"]
    marked = core.parse_many(["K", "x!", "q"], True, errors="mark")
    assert list(marked[1:].invalid) == [0]


def test_pickle_round_trips_and_forged_records_are_rejected(core: ModuleType) -> None:
    result = core.parse_many(MIXED, True, errors="mark")
    again = pickle.loads(pickle.dumps(result))
    assert again == result and list(again.invalid) == list(result.invalid)
    with pytest.raises(ValueError):
        core.rebuild_token_array(False, bytes([75, 0, 0, 0, 1]))  # derived in a PIN
    with pytest.raises(ValueError):
        core.rebuild_token_array(True, bytes([75, 0, 3, 0, 0]))


@pytest.mark.parametrize(
    ("tokens", "error", "match"),
    [
        (["K", 3], TypeError, "item 1 is int, not str"),
        (["K", b"q"], TypeError, "item 1 is bytes, not str"),
        (Iterable(["K", 2.5]), TypeError, "item 1 is float"),
        (Iterable(["K", "q", *["K"] * 20000, object()]), TypeError, "item 20002 is object"),
        ("K q", TypeError, "not one str"),
        (42, TypeError, "not int"),
        (np.zeros(3, dtype=np.int32), TypeError, "numpy array has dtype int32; expected"),
        (memoryview(b"KqKq").cast("i"), TypeError, "format"),
        (memoryview(b"K q K q")[::2], ValueError, "contiguous"),
        (np.array([["K"]], dtype="U2"), ValueError, "1-dimensional"),
        (np.array(["K"], dtype=">U2"), ValueError, "byte order"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Iterable | memoryview) else repr(v),
)
def test_bad_input_is_a_clear_error(
    core: ModuleType, tokens: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        core.parse_many(tokens, True)


def test_errors_argument_is_checked(core: ModuleType) -> None:
    with pytest.raises(ValueError, match="errors"):
        core.parse_many(["K"], True, errors="ignore")


def test_mmap_input(bytes_core: ModuleType, tmp_path: object) -> None:
    path = tmp_path / "tokens.txt"  # type: ignore[operator]
    path.write_bytes(as_bytes(REALISTIC))
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert bytes_core.parse_many(m, True).tokens() == REALISTIC


def test_cores_agree_on_every_input_kind() -> None:
    from conftest import CORES

    if len(CORES) < 2:
        pytest.skip("only the twin is expected here")
    compiled, twin = CORES
    for kind in KINDS:
        tokens = MIXED_BYTES_SAFE if kind in BYTES_KINDS else MIXED
        a = compiled.parse_many(kind(tokens), True, errors="mark")
        b = twin.parse_many(kind(tokens), True, errors="mark")
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), kind.__name__
        assert list(a.invalid) == list(b.invalid)


def test_results_are_the_same_from_many_threads_at_once(core: ModuleType) -> None:
    inputs = [as_bytes(uniform(20000, seed)) for seed in range(6)]
    expected = [np.asarray(core.parse_many(data, True)).tobytes() for data in inputs]
    got: list[bytes | None] = [None] * len(inputs)
    barrier = threading.Barrier(len(inputs))

    def work(i: int) -> None:
        barrier.wait()
        for _ in range(3):
            got[i] = np.asarray(core.parse_many(inputs[i], True)).tobytes()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


def test_facade_parse_many() -> None:
    assert Epin.parse_many(["K'", "q"]).tokens() == ["K'", "q"]
    assert Pin.parse_many(b"K q").notation == "PIN"
    with pytest.raises(TypeError):
        Epin.parse_many(["K"], "mark")  # type: ignore[misc]
