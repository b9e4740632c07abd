"""The command line, run as users run it: ``python -m sashite_epin``."""

from __future__ import annotations

import importlib.util
import json
import os
import select
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import once_per_run

import sashite_epin
from sashite_epin._core import core


def cli(
    *args: str, stdin: str | None = None, stdin_bytes: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """The command, run as a user runs it; stdin empty unless given."""
    done = subprocess.run(
        [sys.executable, "-m", "sashite_epin", *args],
        input=stdin_bytes if stdin_bytes is not None else (stdin or "").encode(),
        capture_output=True,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def test_version_names_the_program() -> None:
    from sashite_epin import __version__

    done = cli("--version")
    assert (done.returncode, done.stdout) == (0, f"sashite-epin {__version__}\n")


def test_no_arguments_runs_the_demo() -> None:
    done = cli()
    assert done.returncode == 0, done.stderr
    assert "K^'" not in done.stdout or "derived=true" in done.stdout
    assert "C^'   abbr=C side=first state=normal terminal=true derived=true" in done.stdout
    assert "'K\\'\\'': multiple derivation markers" in done.stdout
    assert "'\\u212a': not a letter" in done.stdout


@pytest.mark.quick  # the command line, in the quick loop
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
    assert first.pop("argument") == 1
    assert first == {
        "token": "-k^",
        "abbr": "K",
        "side": "second",
        "state": "diminished",
        "terminal": True,
        "code": 338,
    }
    assert second == {"argument": 2, "token": "K'", "reason": "derivation marker in a PIN token"}


@pytest.mark.quick  # the command line, in the quick loop
def test_validate_reports_findings_like_grep(tmp_path: Path) -> None:
    path = tmp_path / "tokens.txt"
    path.write_bytes(b"K\n+r^'\nK^^\n\nk \r\nq\xff\n")
    done = cli("validate", str(path))
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{path}:3: 'K^^': multiple terminal markers (only one marker is allowed)",
        f"{path}:4: '': empty",
        f"{path}:5: 'k ': whitespace",
        f"{path}:6: 'q\\xff': unexpected character",
    ]
    assert done.stderr == "2 valid, 4 invalid\n"


def test_validate_splits_lines_on_newline_only(tmp_path: Path) -> None:
    # grep -n and wc -l count b"\n" only: "K\rq" is one line, one (invalid) token.
    path = tmp_path / "cr.txt"
    path.write_bytes(b"K\rq\nx1\n")
    done = cli("validate", str(path))
    assert done.stdout.splitlines() == [
        f"{path}:1: 'K\\rq': contains a line break",
        f"{path}:2: 'x1': unexpected character",
    ]
    grep = subprocess.run(["grep", "-n", "x1", str(path)], capture_output=True, text=True)
    assert grep.stdout.startswith("2:")


def test_validate_removes_one_final_carriage_return(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"K\r\nq^'\r\n+p\r\r\nk")  # CRLF lines, one with two CRs, no final EOL
    done = cli("validate", str(path))
    assert done.returncode == 1
    assert done.stdout == f"{path}:3: '+p\\r': contains a line break\n"
    assert done.stderr == "3 valid, 1 invalid\n"


def test_validate_reads_stdin_without_a_file_or_with_dash(tmp_path: Path) -> None:
    for args in ((), ("-",)):
        done = cli("validate", *args, stdin="K\nk^'\n-P\n")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "3 valid, 0 invalid\n")
    done = cli("validate", stdin="K\nK+\n")
    assert done.stdout == "(standard input):2: 'K+': modifier must be a prefix\n"


def test_validate_takes_several_files_and_names_each(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("K\nx1\n")
    two.write_text("q\n")
    done = cli("validate", str(one), "-", str(two), stdin="+K\n++K\n")
    assert done.stdout.splitlines() == [
        f"{one}:2: 'x1': unexpected character",
        "(standard input):2: '++K': multiple state modifiers (only one modifier is allowed)",
    ]
    assert done.stderr == "3 valid, 2 invalid\n"


def test_validate_quiet_prints_nothing() -> None:
    for args, stdin, status in ((("-q",), "K\nx1\n", 1), (("--quiet", "-"), "K\n", 0)):
        done = cli("validate", *args, stdin=stdin)
        assert (done.returncode, done.stdout, done.stderr) == (status, "", "")


def test_validate_json_one_object_per_finding(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"K\n\xffK\n\xe2\x84\xaa\n")  # a byte that is no UTF-8; the Kelvin sign
    done = cli("validate", "--json", str(path))
    assert done.returncode == 1
    findings = [json.loads(line) for line in done.stdout.splitlines()]
    assert findings == [
        {  # not UTF-8: U+FFFD in the token, the bytes in hex (told apart from "\\xff")
            "file": str(path),
            "line": 2,
            "token": "\ufffdK",
            "utf8": False,
            "hex": "ff4b",
            "length": 2,
            "reason": "unexpected character",
        },
        {
            "file": str(path),
            "line": 3,
            "token": "\u212a",
            "length": 3,
            "reason": "not a letter",
        },
    ]


def test_validate_shows_hostile_lines_escaped_and_cut(tmp_path: Path) -> None:
    path = tmp_path / "binary.dat"
    data = bytes(range(256)) * 50 + b"K" * 100_000 + b"\n\x1b[31mK\n"
    path.write_bytes(data)
    last = data.count(b"\n")
    done = cli("validate", str(path))
    assert done.returncode == 1
    assert done.stdout.isascii() and "\x1b" not in done.stdout  # nothing raw reaches a terminal
    assert max(map(len, done.stdout.splitlines())) < 400
    assert done.stdout.splitlines()[-1] == (f"{path}:{last}: '\\x1b[31mK': too long")


def test_validate_failures_exit_2_with_one_line(tmp_path: Path) -> None:
    for args, message in (
        ((str(tmp_path / "nope.txt"),), f"{tmp_path / 'nope.txt'}: No such file or directory"),
        ((str(tmp_path),), f"{tmp_path}: is a directory"),
        (("/proc/self/mem",), "/proc/self/mem: Input/output error"),  # a read that fails
    ):
        done = cli("validate", *args)
        assert done.returncode == 2, args
        assert "Traceback" not in done.stderr
        assert f"sashite-epin: {message}\n" in done.stderr.replace(
            "python -m sashite_epin", "sashite-epin"
        )


def test_validate_still_checks_the_other_files_after_a_missing_one(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("K\nx1\n")
    done = cli("validate", str(tmp_path / "nope.txt"), str(good))
    assert done.returncode == 2  # an I/O error outranks invalid tokens, as in grep
    assert done.stdout == f"{good}:2: 'x1': unexpected character\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_validate_unreadable_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("K\n")
    path.chmod(0)
    done = cli("validate", str(path))
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2,
        f"python -m sashite_epin: {path}: Permission denied",
    )


def test_closed_pipe_ends_quietly_with_status_2() -> None:
    shell = f"seq 1 300000 | {shlex.quote(sys.executable)} -m sashite_epin validate | head -1"
    done = subprocess.run(
        ["bash", "-c", shell + "; echo status=${PIPESTATUS[1]}"], capture_output=True, text=True
    )
    assert done.stdout.splitlines() == [
        "(standard input):1: '1': not a letter",
        "status=2",
    ]
    assert done.stderr == ""  # the reader went away: nothing to tell it


def test_ctrl_c_exits_130_without_traceback() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "sashite_epin", "validate"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("K^^\n")
    process.stdin.flush()
    # Its finding, flushed as its line arrives, shows the command past start-up and
    # waiting on its input (a fixed wait was too short on a busy machine).
    assert process.stdout.readline().startswith("(standard input):1: 'K^^'")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (130, "")


# Each command, as a user may run it, with input to read and output to write.
COMMANDS = {
    "demo": [],
    "parse": ["parse", "K^", "x1", "-"],
    "validate": ["validate"],
    "tokenize": ["tokenize", "K^/pp", "-"],
    "bench": ["bench", "--tokens", "2000", "--repeat", "1"],
}


def with_a_stream_closed(
    command: str, closed: str, folder: Path
) -> subprocess.CompletedProcess[str]:
    """The command with one standard stream closed; the other streams: stdin a file of
    two lines, stdout and stderr captured."""
    words = " ".join(
        shlex.quote(w) for w in [sys.executable, "-m", "sashite_epin", *COMMANDS[command]]
    )
    shell = f"printf 'K\\nx1\\n' > in.txt; {words} < in.txt {closed}"
    return subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=folder)


@pytest.fixture(scope="session")
def bench_without_stdin(
    tmp_path_factory: pytest.TempPathFactory,
) -> subprocess.CompletedProcess[str]:
    """The bench (it reads no input) run once per test run with stdin closed: the
    closed-stdin case below and the bench's own table test read this one run."""

    def make(folder: Path) -> None:
        done = with_a_stream_closed("bench", "<&-", folder)
        (folder / "done.json").write_text(json.dumps([done.returncode, done.stdout, done.stderr]))

    folder = once_per_run(tmp_path_factory, "bench", make)
    returncode, stdout, stderr = json.loads((folder / "done.json").read_text())
    return subprocess.CompletedProcess(["bench"], returncode, stdout, stderr)


@pytest.mark.parametrize("closed", ["<&-", ">&-", "2>&-"], ids=["stdin", "stdout", "stderr"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_closed_standard_stream_is_one_line_never_a_traceback(
    command: str, closed: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Each standard stream closed in turn (as cron and service managers may run a
    command): the command still runs where it can, else one line on stderr and exit 2."""
    if (command, closed) == ("bench", "<&-"):
        done = request.getfixturevalue("bench_without_stdin")
    else:
        done = with_a_stream_closed(command, closed, tmp_path)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    reads_stdin = command in ("parse", "validate", "tokenize")
    if closed == "<&-" and reads_stdin:
        # (validate goes on to its counts, as after a missing file)
        assert done.returncode == 2
        assert "python -m sashite_epin: standard input is closed" in done.stderr.splitlines()
    elif closed == ">&-":  # every command writes to stdout
        assert (done.returncode, done.stderr.splitlines()[-1:]) == (
            2, ["python -m sashite_epin: write error: Bad file descriptor"])  # fmt: skip
    else:
        assert done.returncode in (0, 1), done.stderr
        assert done.stdout, "the command wrote its output"


def test_a_closed_stdout_does_not_stop_a_quiet_validate() -> None:
    shell = f"printf 'K\\nx1\\n' | {shlex.quote(sys.executable)} -m sashite_epin validate -q >&-"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, "")


def test_a_full_disk_is_an_output_error_not_the_input_s(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("x1\n" * 100_000)
    for words in (["validate", str(tokens)], ["parse", "-"], ["tokenize", "-"]):
        with open(tokens, "rb") as stdin, open("/dev/full", "w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "sashite_epin", *words], stdin=stdin, stdout=full,
                stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
        full_disk = "python -m sashite_epin: write error: No space left on device\n"
        assert (done.returncode, done.stderr) == (2, full_disk), words


def test_parse_reads_tokens_from_stdin_and_takes_dash_tokens() -> None:
    done = cli("parse", "-p", "-", "K", stdin="+K\nzz\n")
    assert done.returncode == 1
    assert [line.split()[0] for line in done.stdout.splitlines()] == [
        "-p", "+K", "(standard", "K"]  # fmt: skip
    assert "(standard input):2: 'zz': more than one letter" in done.stdout


def test_parse_shows_bad_bytes_as_escapes() -> None:
    done = cli("parse", "--json", "-", stdin=None, stdin_bytes=b"\xff\n")
    assert json.loads(done.stdout) == {
        "file": "(standard input)", "line": 1, "token": "\ufffd", "utf8": False, "hex": "ff",
        "reason": "not a letter",
    }  # fmt: skip
    typed = json.loads(cli("parse", "--json", "\\xff").stdout)  # the four characters
    assert (typed["argument"], typed["token"], "utf8" in typed) == (1, "\\xff", False)
    done = cli("parse", "\u212a")
    assert done.stdout == "'\\u212a': not a letter\n"


@pytest.mark.quick  # the command line, in the quick loop
def test_tokenize_prints_tokens_with_positions() -> None:
    done = cli("tokenize", "-rnbqk^bn-r/8/2PB", "K^^")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "1:0\t-r",
        "1:2\tn",
        "1:3\tb",
        "1:4\tq",
        "1:5\tk^",
        "1:7\tb",
        "1:8\tn",
        "1:9\t-r",
        "1:15\tP",
        "1:16\tB",
        "2:0\tK^",  # the tokens before a failure are written, then the finding
        "2:2: '^': multiple terminal markers (only one marker is allowed)",
    ]
    first = json.loads(cli("tokenize", "--json", "-", stdin="2+P'\n").stdout)
    assert first == {
        "file": "(standard input)",
        "line": 1,
        "position": 1,
        "token": "+P'",
        "abbr": "P",
        "side": "first",
        "state": "enhanced",
        "terminal": False,
        "derived": True,
        "code": 485,
    }
    assert cli("tokenize", "--pin", "K'").stdout == "1:0\tK\n"  # ' is no PIN character


def test_tokenize_strict_refuses_what_a_placement_does_not_hold() -> None:
    """--strict: a character between tokens that is no digit and no "/" is a finding
    (position, what stands there, reason) and exit status 1; the default skips it."""
    done = cli("tokenize", "--strict", "K Q", "8/+P^'1\u212a", "rnb/8//K")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "1:0\tK",
        "1:1: ' Q': whitespace",
        "2:2\t+P^'",
        "2:7: '\\u212a': not a letter",
        "3:0\tr",
        "3:1\tn",
        "3:2\tb",
        "3:7\tK",
    ]
    loose = cli("tokenize", "K Q")
    assert (loose.returncode, loose.stdout) == (0, "1:0\tK\n1:2\tQ\n")
    found = cli("tokenize", "--strict", "--json", "-", stdin="K\tq\n").stdout.splitlines()
    assert json.loads(found[-1]) == {
        "file": "(standard input)",
        "line": 1,
        "position": 1,
        "token": "\tq",
        "reason": "whitespace",
    }
    pin = cli("tokenize", "--strict", "--pin", "K'")
    assert (pin.returncode, pin.stdout) == (
        1,
        "1:0\tK\n1:1: '\\'': derivation marker in a PIN token\n",
    )
    # after "--", "--strict" is a text
    text = cli("tokenize", "--strict", "--", "--strict").stdout
    assert text == "1:0: '--strict': multiple state modifiers (only one modifier is allowed)\n"


def test_bench_help_says_what_it_measures() -> None:
    done = cli("bench", "--help")
    assert "warm-up" in done.stdout and "baseline" in done.stdout


@pytest.mark.parametrize("spelling", ["2000", "2_000", "2,000", "2e3", "2.0e3"])
def test_bench_accepts_the_usual_spellings_of_a_number(spelling: str) -> None:
    from sashite_epin._cli import count

    assert count(spelling) == 2000


@pytest.mark.parametrize("bad", ["0", "-1", "1e-3", "2.5e0", "1,0000x", "", "one"])
def test_bench_refuses_what_is_not_a_count(bad: str) -> None:
    done = cli("bench", "--tokens", bad)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_console_script_names_itself() -> None:
    script = Path(sys.executable).parent / "sashite-epin"
    if not script.exists():
        pytest.skip("the package's console script is not installed next to this Python")
    done = subprocess.run([str(script), "parse"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("sashite-epin parse: ")
    assert (
        "usage: sashite-epin"
        in subprocess.run([str(script), "--help"], capture_output=True, text=True).stdout
    )


def test_bench_prints_a_table_and_its_progress(
    bench_without_stdin: subprocess.CompletedProcess[str],
) -> None:
    done = bench_without_stdin  # the same arguments; the bench reads no input
    assert COMMANDS["bench"] == ["bench", "--tokens", "2000", "--repeat", "1"]
    assert done.returncode == 0, done.stderr
    assert "| list of str -> result | uniform |" in done.stdout
    assert "| list of distinct str -> result | realistic |" in done.stdout
    assert "| joined bytes -> result | realistic |" in done.stdout
    assert "| Epin.tokenize(placement) per string | FEEN |" in done.stdout
    # With the test extras installed, the columnar rows too.
    assert "| pyarrow column -> result | uniform |" in done.stdout
    assert "| numpy U4 array -> result | uniform |" in done.stdout
    assert "| result -> pyarrow table | uniform |" in done.stdout
    assert "| result -> tokens() | uniform |" in done.stdout
    assert "| Epin.tokenize(one long text) | uniform |" in done.stdout
    assert "| pandas Categorical -> result | uniform |" in done.stdout
    assert "| 0.1 % invalid, joined bytes -> result | uniform |" in done.stdout
    assert "| twin: list -> result | uniform |" in done.stdout
    assert "| joined bytes, 10x the tokens -> result | uniform |" in done.stdout
    assert "| half missing, pyarrow utf8 -> result | uniform |" in done.stdout
    assert "| validate, CRLF lines | uniform |" in done.stdout
    assert "| tokenize_many, half the rows refused | FEEN |" in done.stdout
    compiled = sashite_epin.IMPLEMENTATION == "cython"  # the command runs the same core
    # + a row per kernel and corpus; the data-path rows (containers, dirty, errors,
    # twin); the signal-check rows (compiled core only); the real-shaped rows (33
    # containers half missing or invalid and 2 iterators, 6 frames (of an Arrow column,
    # a list and a numpy U4 array half invalid, each to pandas and polars), 10 containers and
    # chunks, validate, small batches exported three ways, 4 of tokenize_many); the
    # frames' namespaces on the clean and mixed corpora (4 polars rows and 2 pandas
    # rows each)
    steps = 22 + (2 * len(core.KERNELS) + 8 if compiled else 0) + 18 + 59 + 12
    if compiled:
        assert "| list of str -> result, 16x the signal checks | uniform |" in done.stdout
    assert "too few to time well" in done.stdout  # 2,000 tokens
    rows = [line.split(" | ")[:2] for line in done.stdout.splitlines() if line.startswith("| ")]
    labels = [tuple(row) for row in rows[2:]]  # past the header and its rule
    assert len(labels) == len(set(labels)), "every row has its own label"
    if importlib.util.find_spec("polars") is None:  # no wheel for this interpreter
        steps -= 4 + 8
    else:
        assert "| polars Enum .epin.parse('mark') | mixed |" in done.stdout
    assert "| pandas category .epin.parse('mark') | mixed |" in done.stdout
    assert f"[1/{steps}] uniform: list of str -> result ..." in done.stderr
    assert f"[{steps}/{steps}] FEEN placements: tokenize_many ..." in done.stderr
    assert "| Epin.tokenize_many(column of placements) | FEEN |" in done.stdout
    if compiled:
        header = done.stdout.splitlines()[0]
        assert f"bytes kernel {sashite_epin.BYTES_KERNEL}" in header
        assert "| joined bytes -> result, portable kernel | uniform |" in done.stdout
    assert " cores, Linux " in done.stdout.splitlines()[0]


@pytest.mark.skipif(sys.platform == "win32", reason="select() on a pipe is POSIX")
def test_findings_come_as_lines_arrive() -> None:
    """On a pipe kept open, each line's finding (or parse's result) is written before
    the next line is: nothing waits for the input to end."""
    for words, first, second in (
        (["validate"], b"x1\n", b"K^^\n"),
        (["parse", "-"], b"K\n", b"q\n"),
        (["tokenize", "-"], b"K^/8\n", b"q\n"),
    ):
        with subprocess.Popen(
            [sys.executable, "-m", "sashite_epin", *words],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        ) as child:  # fmt: skip
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(first)
            child.stdin.flush()
            # an answer before the second line exists (not waiting for the input to end)
            assert select.select([child.stdout], [], [], 60)[0], words
            answer = child.stdout.readline()
            assert answer.strip(), words
            child.stdin.write(second)
            child.stdin.close()
            assert child.stdout.read().strip(), words


@pytest.mark.parametrize("command", ["parse", "tokenize"])
def test_every_epin_token_is_an_argument(command: str) -> None:
    from sashite_epin._corpora import EPIN_TOKENS

    bare = [t for t in EPIN_TOKENS if t != "-h"]
    done = cli(command, "--json", *bare)
    assert done.returncode == 0, done.stderr
    got = [json.loads(line)["token"] for line in done.stdout.splitlines()]
    assert got == bare
    assert cli(command, "-h").stdout.startswith("usage:")  # -h stays help ...
    assert json.loads(cli(command, "--json", "--", "-h").stdout)["token"] == "-h"  # ... or a token


def test_options_of_one_command_are_tokens_of_another() -> None:
    done = cli("parse", "-q", "-c")  # validate's options are EPIN tokens here
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["-q", "-c"]
    assert cli("parse").returncode == 2
    assert "give a TOKEN" in cli("parse").stderr


def test_json_length_is_the_line_s_bytes_however_long(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    sizes = [2_097_153, 5_000_000, (1 << 20) + 1, 1 << 20]
    with open(path, "wb") as f:
        for size in sizes:
            f.write(b"K" * size + b"\n")
        f.write(b"x" * 3_000_000 + b"\r\n")  # CRLF: the \r is not counted
        f.write(b"q" * 2_500_000)  # no final newline
    done = cli("validate", "--json", str(path))
    lengths = [json.loads(line)["length"] for line in done.stdout.splitlines()]
    assert lengths == [*sizes, 3_000_000, 2_500_000]
    piped = cli("validate", "--json", stdin_bytes=path.read_bytes())
    assert [json.loads(line)["length"] for line in piped.stdout.splitlines()] == lengths


def test_a_bom_starts_a_file_or_stdin_and_is_a_character_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfK\n\xef\xbb\xbfq\n")
    for done in (cli("validate", str(path)), cli("validate", stdin_bytes=path.read_bytes())):
        assert done.returncode == 1
        assert done.stdout.endswith(":2: '\\ufeffq': unexpected character\n")
        assert done.stderr == "1 valid, 1 invalid\n"
    tokens = cli("parse", "-", stdin_bytes=b"\xef\xbb\xbf+p'\n")
    assert tokens.stdout.startswith("+p'"), tokens.stdout


def test_parse_and_tokenize_read_files(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("K\nx1\n")
    two.write_text("K^/8\n")
    done = cli("parse", "q", "--file", str(one), f"--file={two}")
    assert done.stdout.splitlines()[0].startswith("q ")
    assert f"{one}:2: 'x1': unexpected character" in done.stdout
    assert f"{two}:1: 'K^/8': unexpected character" in done.stdout
    assert done.returncode == 1
    text = cli("tokenize", "--file", str(two), "--json")
    assert json.loads(text.stdout)["file"] == str(two)
    assert cli("tokenize", "--file", str(two)).stdout == f"{two}:1:0\tK^\n"
    missing = cli("parse", "--file", str(tmp_path / "none.txt"))
    assert (missing.returncode, missing.stderr.count("\n")) == (2, 1), missing.stderr


def test_validate_counts_and_splits(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("K\nx1\n")
    two.write_text("q\n")
    done = cli("validate", "--count", str(one), str(two))
    assert done.stdout == f"{one}: 1 valid, 1 invalid\n{two}: 1 valid, 0 invalid\n"
    assert (done.returncode, done.stderr) == (1, "")
    assert cli("validate", "-c", str(two)).stdout == "1 valid, 0 invalid\n"
    words = tmp_path / "words.txt"
    words.write_bytes(b"K  q\t+p'\r\n\n\n  x1 K\n-r^ K\xe2\x84\xaa\n")
    split = cli("validate", "--split", "--json", str(words))
    findings = [json.loads(line) for line in split.stdout.splitlines()]
    assert [(f["line"], f["position"], f["token"]) for f in findings] == [
        (4, 2, "x1"), (5, 4, "K\u212a")]  # fmt: skip
    assert (split.returncode, split.stderr) == (1, "5 valid, 2 invalid\n")


def test_file_names_are_shown_escaped(tmp_path: Path) -> None:
    path = tmp_path / "a\x1b[31mred.txt"
    path.write_text("x1\n")
    done = cli("validate", str(path))
    assert "\x1b" not in done.stdout
    assert "a\\x1b[31mred.txt:1: 'x1'" in done.stdout
    gone = cli("validate", str(tmp_path / "b\x07.txt"))
    assert "b\\x07.txt: No such file" in gone.stderr and "\x07" not in gone.stderr
