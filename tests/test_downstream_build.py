"""A downstream project builds the first time: docs/capi.md's pyproject.toml, setup.py
and my_engine.pyx, copied as a reader copies them, built by pip with build isolation
against a wheel of this project (built once per session, found with --find-links; pip
fetches only setuptools and Cython), installed beside that wheel and imported.  And
against a pure-Python install, the cimporting module's import names the cause."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import implementation_expected

from sashite_epin import Reason

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "capi.md"


def page_files() -> dict[str, str]:
    """The page's code blocks that start with a "# NAME" line, by NAME."""
    blocks = re.findall(
        r"^```(?:toml|python|cython)\n# (\S+)\n(.*?)^```$", PAGE.read_text(), re.S | re.M
    )
    return {name: body for name, body in blocks}


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SASHITE_EPIN", "PYTHONPATH"))}
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this project with its compiled core, once per session."""
    folder = tmp_path_factory.mktemp("wheel")
    env = clean_env(SASHITE_EPIN_REQUIRE_EXTENSION="1")
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
        "-w", str(folder), str(ROOT), env=env)  # fmt: skip
    assert list(folder.glob("sashite_epin-*.whl"))
    return folder


def project(folder: Path) -> Path:
    files = page_files()
    assert set(files) == {"pyproject.toml", "setup.py", "my_engine.pyx"}
    folder.mkdir(parents=True)
    for name, body in files.items():
        (folder / name).write_text(body)
    return folder


@pytest.mark.skipif(implementation_expected() == "python", reason="the wheel is the compiled one")
def test_the_documented_project_builds_with_isolation_against_a_wheel(
    project_wheel: Path, tmp_path: Path
) -> None:
    source = project(tmp_path / "my-engine")
    out = tmp_path / "out"
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--find-links",
        str(project_wheel), "-w", str(out), str(source), env=clean_env())  # fmt: skip
    target = tmp_path / "installed"
    wheels = [str(w) for w in [*out.glob("my_engine-*.whl"), *project_wheel.glob("*.whl")]]
    run(sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), *wheels)
    said = run(
        sys.executable, "-c",
        "import my_engine, sashite_epin; print(sashite_epin.__file__);"
        "print(my_engine.squares(b'k^1/2K'));"
        "exec('try: my_engine.squares(b\"K 1\")\\nexcept ValueError as e: print(e)')",
        cwd=tmp_path, env=clean_env(PYTHONPATH=str(target)),
    )  # fmt: skip
    where, squares, error = said.splitlines()
    assert where.startswith(str(target))  # the wheel's package, not this source tree
    codes = [int(c) for c in re.findall(r"-?\d+", squares)]
    assert codes[1] == -1 and codes[2:4] == [-1, -1] and len(codes) == 5
    assert error == f"offset 1: {Reason.WHITESPACE}"


def test_a_cimporting_module_names_the_missing_compiled_core(tmp_path: Path) -> None:
    """A pure-Python install (the package's files without the extension): the module
    compiles against its .pxd files, and its import says what is missing."""
    import shutil

    import sashite_epin

    pure = tmp_path / "pure"
    shutil.copytree(
        Path(sashite_epin.__file__).parent, pure / "sashite_epin",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"),
    )  # fmt: skip
    source = project(tmp_path / "my-engine")
    setup = (
        "import sys; sys.argv[1:] = ['build_ext', '--inplace', '-q']; exec(open('setup.py').read())"
    )
    run(sys.executable, "-c", setup, cwd=source, env=clean_env(PYTHONPATH=str(pure)))
    done = subprocess.run(
        [sys.executable, "-c", "import my_engine"],
        cwd=source, env=clean_env(PYTHONPATH=str(pure)), capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode != 0
    assert "the compiled core is not installed" in done.stderr, done.stderr[-2000:]
    assert "pure-Python install" in done.stderr
