"""The public Pin / Epin API, on the active core."""

from __future__ import annotations

import copy
import pickle

import pytest

import sashite_epin
from sashite_epin import CODE_LIMIT, Epin, ParseError, Pin, Side, State
from sashite_epin._layout import all_codes

# In the quick loop (pytest -m quick): the public API.
pytestmark = pytest.mark.quick

ALL_PINS = [Pin.from_code(c) for c in all_codes(False)]
ALL_EPINS = [Epin.from_code(c) for c in all_codes(True)]


def test_enums_are_str_enums_with_the_specs_words() -> None:
    assert Side.FIRST == "first" and Side.SECOND == "second"
    assert (State.NORMAL, State.ENHANCED, State.DIMINISHED) == ("normal", "enhanced", "diminished")


def test_pin_accessors() -> None:
    p = Pin.parse("+k^")
    assert (p.abbr, p.side, p.state, p.is_terminal) == ("K", Side.SECOND, State.ENHANCED, True)
    assert (p.letter, p.prefix, p.suffix) == ("k", "+", "^")
    assert (p.is_enhanced, p.is_normal, p.is_diminished) == (True, False, False)
    assert (p.is_first, p.is_second) == (False, True)
    q = Pin.parse("-Q")
    assert (q.letter, q.prefix, q.suffix, q.is_diminished, q.is_first) == ("Q", "-", "", True, True)


def test_str_and_repr() -> None:
    assert str(Pin.parse("+K^")) == "+K^"
    assert repr(Pin.parse("+K^")) == "Pin('+K^')"
    assert repr(Epin.parse("K^'")) == 'Epin("K^\'")'
    assert str(Epin.parse("-p'")) == "-p'"


def test_every_object_round_trips_through_str_and_code() -> None:
    assert len(ALL_PINS) == 312 and len(ALL_EPINS) == 624
    for obj, cls in [(p, Pin) for p in ALL_PINS] + [(e, Epin) for e in ALL_EPINS]:
        assert cls.parse(str(obj)) is obj
        assert cls.from_code(obj.code) is obj
        assert 0 <= obj.code < CODE_LIMIT


def test_constructor_returns_the_interned_object() -> None:
    assert Pin("K") is Pin.parse("K")
    assert Pin("K", Side.SECOND, State.DIMINISHED, True) is Pin.parse("-k^")
    assert Pin("K", "second", "enhanced") is Pin.parse("+k")
    assert Epin(Pin("R", terminal=True), derived=True) is Epin.parse("R^'")
    assert Epin(Pin("R")) is Epin.parse("R")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("k",), ValueError),
        (("KK",), ValueError),
        (("",), ValueError),
        (("\u212a",), ValueError),
        (("É",), ValueError),
        ((75,), TypeError),
        ((b"K",), TypeError),
        (("K", "third"), ValueError),
        (("K", "FIRST"), ValueError),
        (("K", 0), TypeError),
        (("K", Side.FIRST, "boosted"), ValueError),
        (("K", Side.FIRST, None), TypeError),
        (("K", Side.FIRST, State.NORMAL, 1), TypeError),
        (("K", Side.FIRST, State.NORMAL, None), TypeError),
    ],
)
def test_constructor_validates(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        Pin(*args)  # type: ignore[arg-type]


def test_constructor_and_with_errors_list_what_is_accepted() -> None:
    k = Pin("K")
    cases = [
        (
            lambda: Pin("K", "black"),
            "side must be 'first' or 'second' (a Side or its value), not 'black'",
        ),
        (lambda: k.with_side("white"), "side must be 'first' or 'second'"),
        (lambda: Pin("K", state="up"), "state must be 'normal', 'enhanced' or 'diminished'"),
        (lambda: k.with_state("promoted"), "state must be 'normal', 'enhanced' or 'diminished'"),
        (lambda: k.with_abbr("k"), "abbr must be one letter 'A'..'Z', not 'k'"),
        (lambda: k.with_terminal(1), "terminal must be True or False (a bool), not int"),
        (lambda: Epin(k, derived=None), "derived must be True or False (a bool), not NoneType"),
        (lambda: Epin(k).with_derived("yes"), "derived must be True or False (a bool)"),
    ]
    for make, message in cases:
        with pytest.raises((ValueError, TypeError)) as caught:
            make()
        assert str(caught.value).startswith(message), str(caught.value)


def test_format_applies_a_str_format_spec() -> None:
    row = [Epin.parse(t) for t in ("-r", "K^", "+p'")]
    assert format(Epin.parse("K^"), ">4") == "  K^"
    assert "|".join(f"{piece:^5}" for piece in row) == " -r  | K^  | +p' "
    assert f"{Pin.parse('k'):*<3}" == "k**" and f"{Pin.parse('k')}" == "k"
    with pytest.raises(ValueError):
        format(Pin.parse("k"), "d")  # a str refuses an int spec, so does a token


def test_epin_constructor_validates() -> None:
    with pytest.raises(TypeError):
        Epin("K")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Epin(Epin.parse("K"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Epin(Pin("K"), derived=1)  # type: ignore[arg-type]


def test_pin_transformations() -> None:
    k = Pin.parse("K")
    assert k.enhance() is Pin.parse("+K")
    assert k.diminish() is Pin.parse("-K")
    assert Pin.parse("+K").normalize() is k
    assert k.flip() is Pin.parse("k") and k.flip().flip() is k
    assert k.terminal() is Pin.parse("K^") and Pin.parse("K^").non_terminal() is k
    assert k.with_abbr("Q") is Pin.parse("Q")
    assert Pin.parse("-k^").with_abbr("R") is Pin.parse("-r^")
    assert k.with_side(Side.SECOND) is Pin.parse("k") and k.with_side("first") is k
    assert k.with_state("diminished") is Pin.parse("-K")
    assert k.with_terminal(True) is Pin.parse("K^")
    for bad in ("k", "", 5):
        with pytest.raises((ValueError, TypeError)):
            k.with_abbr(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        k.with_terminal("yes")  # type: ignore[arg-type]


def test_transformations_that_change_nothing_return_self() -> None:
    for p in ALL_PINS:
        assert p.with_abbr(p.abbr) is p and p.with_side(p.side) is p
        assert p.with_state(p.state) is p and p.with_terminal(p.is_terminal) is p
    for e in ALL_EPINS:
        assert e.with_pin(e.pin) is e and e.with_derived(e.is_derived) is e
        assert (e.derive() if e.is_derived else e.native()) is e


def test_transformations_match_string_edits_for_every_pin() -> None:
    for p in ALL_PINS:
        body = p.letter + p.suffix
        assert str(p.enhance()) == "+" + body and str(p.diminish()) == "-" + body
        assert str(p.normalize()) == body
        assert str(p.flip()) == p.prefix + p.letter.swapcase() + p.suffix
        assert str(p.terminal()) == p.prefix + p.letter + "^"
        assert str(p.non_terminal()) == p.prefix + p.letter


def test_epin_accessors_and_transformations() -> None:
    e = Epin.parse("+R^'")
    assert e.pin is Pin.parse("+R^") and e.is_derived and not e.is_native
    assert e.native() is Epin.parse("+R^") and e.native().derive() is e
    assert e.with_pin(e.pin.flip()) is Epin.parse("+r^'")
    assert e.with_derived(False) is Epin.parse("+R^")
    assert e.same_derived(Epin.parse("K'")) and not e.same_derived(Epin.parse("K"))
    assert e.code == e.pin.code | 1


def test_same_attribute_comparisons() -> None:
    a, b = Pin.parse("+K^"), Pin.parse("+k")
    assert a.same_abbr(b) and a.same_state(b)
    assert not a.same_side(b) and not a.same_terminal(b)


def test_equality_is_by_value_and_never_across_types() -> None:
    assert Pin.parse("K") == Pin("K")
    assert Pin.parse("K") != "K" and Epin.parse("K") != "K"
    assert Pin.parse("K") != Epin.parse("K")  # type: ignore[comparison-overlap]
    assert len({Pin.parse("K"), Pin("K"), Pin.parse("k")}) == 2


def test_objects_are_immutable() -> None:
    p, e = Pin.parse("K"), Epin.parse("K'")
    for obj, name in (
        (p, "abbr"),
        (p, "code"),
        (p, "_token"),
        (e, "pin"),
        (e, "is_derived"),
        (p, "new_attribute"),
    ):
        with pytest.raises(AttributeError):
            setattr(obj, name, None)
        with pytest.raises(AttributeError):
            delattr(obj, name)
    assert str(p) == "K" and str(e) == "K'"


def test_copy_and_pickle_return_the_interned_object() -> None:
    for obj in (Pin.parse("-k^"), Epin.parse("+R^'")):
        assert copy.copy(obj) is obj and copy.deepcopy(obj) is obj
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(obj, protocol)) is obj


@pytest.mark.parametrize("code", [-1, CODE_LIMIT, 1, 0x0C, 0x0D, 10**30])
def test_from_code_rejects_codes_no_pin_has(code: int) -> None:
    with pytest.raises(ValueError):
        Pin.from_code(code)


def test_from_code_types() -> None:
    with pytest.raises(TypeError):
        Pin.from_code(True)
    with pytest.raises(TypeError):
        Epin.from_code("1")  # type: ignore[arg-type]
    assert Epin.from_code(1) is Epin.parse("-A'")
    with pytest.raises(ValueError):
        Epin.from_code(0x0E)


def test_classes_cannot_be_subclassed_into_a_second_set_of_objects() -> None:
    # @final is for type checkers; at run time the constructor still hands back a Pin.
    assert type(Pin("K")) is Pin


def test_implementation_is_named() -> None:
    assert sashite_epin.IMPLEMENTATION in ("cython", "python")
    assert sashite_epin.__version__


def test_the_package_shows_only_its_public_names() -> None:
    public = [  # its submodules (sashite_epin.pandas, once imported) are names too
        n
        for n in dir(sashite_epin)
        if not n.startswith("_") and type(getattr(sashite_epin, n)) is not type(sashite_epin)
    ]
    assert sorted(public) == sorted(n for n in sashite_epin.__all__ if n != "__version__")
    assert not hasattr(sashite_epin, "TYPE_CHECKING")
    assert ParseError.__mro__[1] is ValueError
