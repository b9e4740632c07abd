"""Every example in the README and in docs/ runs: Python examples as doctests (on the
core this run tests), command-line examples by running the real command, and no code
block escapes both (a ```python block would go unchecked, so there are none)."""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```$", re.S | re.M)  # a directive's argument too
CHECKED = {"pycon", "console"}  # run below
# commands to install, layouts, C (test_capi), a downstream project (test_downstream_build)
UNRUN = {"sh", "text", "cython", "{toctree}", "{literalinclude}", "toml", "python"}


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def blocks(path: Path, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(path.read_text()) if lang == language]


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_code_block_is_checked_or_declared_unrun(page: Path) -> None:
    languages = {lang for lang, _ in FENCE.findall(page.read_text())}
    assert languages <= CHECKED | UNRUN, f"{page_id(page)}: {languages - CHECKED - UNRUN}"
    for body in blocks(page, "pycon"):
        assert body.startswith(">>> "), body


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "pycon")], ids=page_id)
def test_python_examples_run(page: Path) -> None:
    text = "\n".join(blocks(page, "pycon"))
    skip_without_the_libraries_of(text)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, page_id(page), str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
    assert runner.tries > 0


def skip_without_the_libraries_of(text: str) -> None:
    """Skip a page whose examples import a library this interpreter has no wheel for
    (free-threaded CPython has none of polars, DuckDB or Dask yet)."""
    imported = re.findall(r"^(?:>>> )?(?:import|from) ([\w., ]+?)(?: import|$)", text, re.M)
    # A package's module (pyspark.sql): its package, which find_spec can look up alone.
    names = {
        n.split(" as ")[0].strip().split(".")[0] for found in imported for n in found.split(",")
    }
    missing = sorted(n for n in names if n and importlib.util.find_spec(n) is None)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed for this interpreter")


def console_examples(page: Path) -> list[tuple[str, str]]:
    """(command, expected stdout) for each ``$ command`` line of the console blocks."""
    found = []
    for body in blocks(page, "console"):
        for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            found.append((command, output))
    return found


@pytest.mark.parametrize("page", [p for p in PAGES if console_examples(p)], ids=page_id)
def test_command_line_examples_print_what_they_show(page: Path, tmp_path: Path) -> None:
    # In order, in a fresh folder (an example may use the file an earlier one wrote),
    # with the console script of the environment under test first on PATH.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command, output in console_examples(page):
        done = subprocess.run(
            ["bash", "-c", command], capture_output=True, text=True, env=env, cwd=tmp_path
        )
        assert done.stdout == output, f"$ {command}\n{done.stderr}"


def test_docstring_examples_run() -> None:
    # The API reference shows the docstrings: their examples are examples of the docs.
    import sashite_epin

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failures: list[str] = []
    package = Path(sashite_epin.__file__).parent
    for path in sorted(package.glob("*.py")):
        if path.stem == "__main__":
            continue  # running it is the command line
        name = "sashite_epin" if path.stem == "__init__" else f"sashite_epin.{path.stem}"
        try:
            module = __import__(name, fromlist=["_"])
        except ModuleNotFoundError as error:  # sashite_epin.polars without polars
            if error.name in ("polars", "pandas", "duckdb", "pyarrow"):
                continue
            raise
        for test in finder.find(module, name):
            runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
    assert runner.tries >= 2  # the package's and NativeStyles' examples at least


def test_the_reference_documents_every_public_name_in_its_own_words(tmp_path: Path) -> None:
    """The built API reference has an entry for every name in ``__all__``, and no
    entry shows the docstring of a builtin type (an int constant documented by
    ``int``'s own text)."""
    if (
        importlib.util.find_spec("sphinx") is None
        or importlib.util.find_spec("myst_parser") is None
    ):
        pytest.skip("Sphinx and MyST are not installed here")
    import html

    import sashite_epin

    build = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    done = subprocess.run(
        [*build, str(ROOT / "docs"), str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "api.html").read_text()
    missing = [n for n in sashite_epin.__all__ if f'id="sashite_epin.{n}"' not in page]
    assert not missing
    for builtin in (int, str, object, float, bool):
        first_line = html.escape(str(builtin.__doc__).splitlines()[0])
        assert first_line not in page, builtin


def test_every_public_callable_says_what_it_does_in_its_own_words() -> None:
    """help() on any public method tells it whole: a docstring of its own, not one
    that sends the reader to another method."""
    import inspect

    import sashite_epin

    owners = [getattr(sashite_epin, name) for name in sashite_epin.__all__]
    lacking = []
    for owner in [o for o in owners if isinstance(o, type)]:
        for name in dir(owner):
            member = getattr(owner, name)
            if name.startswith("_") or not callable(member) or isinstance(member, type):
                continue
            doc = inspect.getdoc(member) or ""
            if not doc or re.search(r"\bas for\b|\bsee (Pin|Epin)\b", doc):
                lacking.append(f"{owner.__name__}.{name}")
    assert not lacking
