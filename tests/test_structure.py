"""The package's shape: both cores export exactly the names of ``_core_c.pyi`` and carry
the same contracts; the twin's parts import only downward; the code layout is defined
once per language and the two definitions agree; every public name of the facade has a
docstring that ``help()`` shows (on whichever core the facade runs)."""

from __future__ import annotations

import ast
import inspect
import pydoc
import re
from pathlib import Path
from types import ModuleType

import pytest
from conftest import CORES

import sashite_epin
from sashite_epin import _core_py, _layout
from sashite_epin._corpora import EPIN_TOKENS

PACKAGE = Path(sashite_epin.__file__).parent
SOURCE = Path(__file__).parent.parent / "src" / "sashite_epin"

# The twin's modules, lowest first: each may import only those before it.
TWIN_ORDER = [
    "_messages",
    "_reason",
    "_errors",
    "_layout",
    "_inputs",
    "_selection",
    "_frames",
    "_requested",
    "_marks",
    "_export_py",
    "_scan_py",
    "_lanes_py",
    "_objects_py",
    "_array_py",
    "_arrow_py",
    "_bulk_py",
    "_text_py",
    "_placement_py",
    "_core_py",
]
# Each part of the compiled core and its twin.
PARTS = {
    "_core_c.pyx": "_core_py.py",
    "_scan_c.pxi": "_scan_py.py",
    "_objects_c.pxi": "_objects_py.py",
    "_array_c.pxi": "_array_py.py",
    "_bulk_c.pxi": "_bulk_py.py",
    "_arrow_c.pxi": "_arrow_py.py",
    "_export_c.pxi": "_export_py.py",
    "_text_c.pxi": "_text_py.py",
    "_boards_c.pxi": "_placement_py.py",
}


def stub_names() -> set[str]:
    tree = ast.parse((PACKAGE / "_core_c.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def public(module: ModuleType) -> set[str]:
    return {name for name in dir(module) if not name.startswith("_")}


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_each_core_exports_exactly_the_names_of_the_stub(core: ModuleType) -> None:
    assert public(core) == stub_names()


def test_the_twin_declares_what_it_exports() -> None:
    assert set(_core_py.__all__) == stub_names()


@pytest.mark.skipif(len(CORES) < 2, reason="only the twin is expected here")
def test_both_cores_carry_the_same_contracts() -> None:
    compiled, twin = CORES
    for name in sorted(stub_names() - {"IMPLEMENTATION"}):
        ours, theirs = getattr(compiled, name), getattr(twin, name)
        doc = inspect.getdoc(theirs)
        assert doc, f"the twin's {name} has no docstring"
        # embedsignature puts the signature on the compiled docstring's first line.
        compiled_doc = re.sub(r"\A\w+\(.*?\)\n\n", "", inspect.getdoc(ours) or "", flags=re.S)
        assert compiled_doc == doc, name


def test_each_compiled_part_has_its_twin() -> None:
    for c_part, py_part in PARTS.items():
        assert (SOURCE / c_part).exists() and (SOURCE / py_part).exists(), (c_part, py_part)
        first = (SOURCE / py_part).read_text()
        assert c_part in first, f"{py_part} does not name the part it mirrors"
        assert py_part in (SOURCE / c_part).read_text(), f"{c_part} does not name its twin"


def relative_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module)
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_the_twin_imports_only_downward() -> None:
    for position, name in enumerate(TWIN_ORDER):
        below = set(TWIN_ORDER[:position])
        imported = relative_imports(SOURCE / f"{name}.py")
        assert imported <= below, f"{name} imports {sorted(imported - below)}"


def test_no_module_needs_a_late_import() -> None:
    for path in SOURCE.glob("*.py"):
        assert "E402" not in path.read_text(), path.name


def test_the_layout_constants_are_the_compiled_cores() -> None:
    # The compiled core refuses to import when they disagree; here the Python ones
    # are checked against the layout they describe.
    assert _layout.CODE_LIMIT == 26 << _layout.LETTER_SHIFT == 832
    assert _layout.SIDE_BIT == 1 << _layout.SIDE_SHIFT
    assert _layout.RANK_MASK == 3 << _layout.RANK_SHIFT
    assert set(_layout.AGREED) >= {"CODE_LIMIT", "LETTER_SHIFT", "RANK_SHIFT", "SIDE_BIT"}
    for code in _layout.all_codes():
        assert _layout.compose(*_layout.decompose(code)) == code
        assert _layout.code_of_record(_layout.record_of_code(code)) == code


def test_records_of_both_cores_follow_the_python_layout(core: ModuleType) -> None:
    result = core.parse_many(EPIN_TOKENS, True)
    records = bytes(memoryview(result)) if core.IMPLEMENTATION == "cython" else result._records
    for i, token in enumerate(EPIN_TOKENS):
        code = core.epin_code(token)
        assert records[5 * i : 5 * i + 5] == _layout.record_of_code(code), token


def test_state_is_numbered_apart_from_rank() -> None:
    # The code sorts by rank (- + none); the record's state is 0 normal, 1 +, 2 -.
    assert [_layout.state_of_rank(r) for r in (0, 1, 2)] == [
        _layout.STATE_DIMINISHED,
        _layout.STATE_ENHANCED,
        _layout.STATE_NORMAL,
    ]


FACADE = [
    sashite_epin.Pin,
    sashite_epin.Epin,
    sashite_epin.TokenArray,
    sashite_epin.NativeStyles,
    sashite_epin.ParseError,
]


def documented_members(cls: type) -> list[tuple[str, object]]:
    members = []
    for name in dir(cls):
        if name.startswith("_") or (name in dir(ValueError) and cls is sashite_epin.ParseError):
            continue
        members.append((name, inspect.getattr_static(cls, name)))
    return members


@pytest.mark.parametrize("cls", FACADE, ids=lambda c: c.__name__)
def test_every_public_name_of_the_facade_has_a_docstring_help_shows(cls: type) -> None:
    page = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    assert inspect.getdoc(cls)
    for name, member in documented_members(cls):
        target = member.__func__ if isinstance(member, staticmethod) else member
        doc = inspect.getdoc(target)
        assert doc, f"{cls.__name__}.{name} has no docstring"
        assert doc.splitlines()[0].strip() in page, f"help({cls.__name__}) hides {name}"


@pytest.mark.parametrize("name", ["parse", "safe_parse", "is_valid", "scan", "tokenize"])
def test_parsing_docstrings_speak_of_their_own_notation(name: str) -> None:
    pin_doc = inspect.getdoc(getattr(sashite_epin.Pin, name)) or ""
    epin_doc = inspect.getdoc(getattr(sashite_epin.Epin, name)) or ""
    assert "PIN" in pin_doc and "EPIN" not in pin_doc and "Epin" not in pin_doc
    assert "EPIN" in epin_doc


def test_no_reference_leaves_the_repository() -> None:
    root = SOURCE.parent.parent
    pattern = re.compile(r"\b[Ii]ssues? [0-9]|\.\./shared")
    for folder in ("src", "tests", "benchmarks", "reliability", "examples", "docs", ".ci"):
        for path in (root / folder).rglob("*"):
            if "egg-info" in str(path) or "__pycache__" in str(path):
                continue
            if path.is_file() and path.suffix not in (".so", ".c", ".pyc", ".html"):
                text = path.read_text(errors="replace")
                assert not pattern.search(text), f"{path.relative_to(root)} refers outside"
