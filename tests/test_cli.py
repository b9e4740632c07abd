"""The command line, run as users run it: ``python -m sashite_epin``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sashite_epin", *args], input=stdin, capture_output=True, text=True
    )


def test_no_arguments_runs_the_demo() -> None:
    done = cli()
    assert done.returncode == 0, done.stderr
    assert "K^'" not in done.stdout or "derived=true" in done.stdout
    assert "C^'   abbr=C side=first state=normal terminal=true derived=true" in done.stdout
    assert "\"K''\": invalid derivation marker" in done.stdout
    assert "'\\u212a': must contain exactly one letter" in done.stdout


def test_parse_prints_one_line_per_token() -> None:
    done = cli("parse", "+r^'", "K")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "+r^'",
        "abbr=R",
        "side=second",
        "state=enhanced",
        "terminal=true",
        "derived=true",
        "code=567",
    ]
    assert lines[1].startswith("K ")


def test_parse_json_and_pin_grammar() -> None:
    done = cli("parse", "--json", "--pin", "--", "-k^", "K'")
    assert done.returncode == 1
    first, second = map(json.loads, done.stdout.splitlines())
    assert first == {
        "token": "-k^",
        "abbr": "K",
        "side": "second",
        "state": "diminished",
        "terminal": True,
        "code": 338,
    }
    assert second == {"token": "K'", "error": "unexpected character"}


def test_validate_reports_each_invalid_line(tmp_path: Path) -> None:
    path = tmp_path / "tokens.txt"
    path.write_bytes(b"K\n+r^'\nK^^\n\nk \r\nq\xff\n")
    done = cli("validate", str(path))
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "line 3: 'K^^': invalid terminal marker",
        "line 4: '': empty input",
        "line 5: 'k ': unexpected character",
        "line 6: 'q\\udcff': unexpected character",
        "2 valid, 4 invalid",
    ]


def test_validate_reads_stdin_and_succeeds_on_valid_input() -> None:
    done = cli("validate", "-", stdin="K\nk^'\n-P\n")
    assert done.returncode == 0
    assert done.stdout.strip() == "3 valid, 0 invalid"


def test_bad_usage_exits_2() -> None:
    assert cli("parse").returncode == 2


def test_bench_prints_a_table_and_its_progress() -> None:
    done = cli("bench", "--tokens", "2000", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    assert "| list of str -> result | uniform |" in done.stdout
    assert "| joined bytes -> result | realistic |" in done.stdout
    assert "| Epin.tokenize(placement) per string | FEEN |" in done.stdout
    # With the test extras installed, the columnar rows too.
    assert "| pyarrow column -> result | uniform |" in done.stdout
    assert "| result -> pyarrow table | uniform |" in done.stdout
    assert "[1/15] uniform: list of str -> result ..." in done.stderr
    assert "[15/15] FEEN placements: tokenize ..." in done.stderr
