"""Which core is active, and the switches that choose it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import implementation_expected

import sashite_epin


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SASHITE_EPIN_")}
    return subprocess.run(
        [sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True
    )


def test_the_expected_core_is_active() -> None:
    # In "cython" mode (CI, wheel tests) a missing compiled core fails here, loudly.
    expected = implementation_expected()
    if expected == "best":
        pytest.skip("no implementation asked for")
    assert sashite_epin.IMPLEMENTATION == expected


def test_pure_python_switch_forces_the_twin() -> None:
    done = run(
        "import sashite_epin; print(sashite_epin.IMPLEMENTATION)", SASHITE_EPIN_PURE_PYTHON="1"
    )
    assert done.stdout.strip() == "python", done.stderr


def test_an_unknown_implementation_name_is_an_import_error() -> None:
    done = run("import sashite_epin", SASHITE_EPIN_IMPLEMENTATION="rust")
    assert done.returncode != 0 and "SASHITE_EPIN_IMPLEMENTATION" in done.stderr


@pytest.mark.skipif(implementation_expected() == "python", reason="compiled core not expected")
def test_the_compiled_core_is_chosen_by_default() -> None:
    done = run("import sashite_epin; print(sashite_epin.IMPLEMENTATION)")
    assert done.stdout.strip() == "cython", done.stderr


@pytest.mark.skipif(implementation_expected() == "python", reason="compiled core not expected")
def test_the_import_leaves_out_what_parsing_does_not_need() -> None:
    # Each of these costs milliseconds at import and is loaded when first asked for:
    # enum (Side, State, Reason), array (TokenArray.invalid, codes()), typing
    # (NativeStyles), the collections package (what enum, array and Cython's
    # memoryviews would pull in).
    costly = ["enum", "array", "typing", "collections", "collections.abc"]
    done = run(
        "import sys, sashite_epin; sashite_epin.Epin.parse_many(['K', 'q'] * 3000);"
        f"print([m for m in {costly!r} if m in sys.modules])"
    )
    assert done.stdout.strip() == "[]", done.stderr
    marked = "sashite_epin.Epin.parse_many(['KK'], errors='mark')"
    done = run(f"import sashite_epin; print(type({marked}.invalid), {marked}.codes())")
    assert done.stdout.strip() == "<class 'array.array'> array('h', [-1])", done.stderr


def test_what_is_loaded_late_works_from_a_fresh_interpreter() -> None:
    # Each line starts from a fresh import, so each loads the enums by another road.
    checks = {
        "side first": "p = se.Pin.parse('+k^'); assert p.side is se.Side.SECOND, p.side; "
        "assert p.state is se.State.ENHANCED and p.is_enhanced and not p.is_normal",
        "Side first": "assert se.Side.FIRST == 'first'; "
        "assert se.Pin.parse('K').side is se.Side.FIRST",
        "error first": "e = se.Epin.safe_parse('KK'); "
        "r = None\ntry: se.Epin.parse('KK')\nexcept se.ParseError as err: r = err.reason\n"
        "assert r is se.Reason.MORE_THAN_ONE_LETTER and r == 'more than one letter', r",
        "pickle": "import pickle; assert pickle.loads(pickle.dumps(se.State.DIMINISHED)) "
        "is se.State.DIMINISHED; assert repr(se.Side.FIRST).startswith('<Side.FIRST')",
        "built from attributes": "assert se.Pin('Q', 'second', 'diminished') is "
        "se.Pin.parse('-q'), se.Pin('Q', 'second', 'diminished')",
        "threads": "import threading\n"
        "seen = []\n"
        "def read(): seen.append([(p.side, p.state) for p in map(se.Pin.parse, 'KkQq')])\n"
        "ts = [threading.Thread(target=read) for _ in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "assert len(seen) == 8 and all(s == seen[0] for s in seen), seen",
    }
    for name, code in checks.items():
        done = run(f"import sashite_epin as se\n{code}")
        assert done.returncode == 0, (name, done.stderr)
