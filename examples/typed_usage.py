"""Every public call of sashite_epin, typed: ``mypy --strict`` checks this file (CI)."""

from __future__ import annotations

import pickle

from sashite_epin import (
    CODE_LIMIT,
    EPIN_MAX_LENGTH,
    EPIN_TOKEN_COUNT,
    IMPLEMENTATION,
    PIN_MAX_LENGTH,
    PIN_TOKEN_COUNT,
    Epin,
    NativeStyles,
    ParseError,
    Pin,
    Reason,
    Side,
    State,
    TokenArray,
    __version__,
)


def main() -> None:
    pin: Pin = Pin.parse("+K^")
    maybe: Pin | None = Pin.safe_parse("x")
    valid: bool = Pin.is_valid("K") and Epin.is_valid("K'")
    built: Pin = Pin("K", Side.SECOND, State.ENHANCED, terminal=True)
    abbr: str = pin.abbr
    side: Side = pin.side
    state: State = pin.state
    flags: list[bool] = [
        pin.is_terminal,
        pin.is_normal,
        pin.is_enhanced,
        pin.is_diminished,
        pin.is_first,
        pin.is_second,
    ]
    text: list[str] = [pin.letter, pin.prefix, pin.suffix, str(pin), repr(pin)]
    pins: list[Pin] = [
        pin.enhance(),
        pin.diminish(),
        pin.normalize(),
        pin.flip(),
        pin.terminal(),
        pin.non_terminal(),
        pin.with_abbr("Q"),
        pin.with_side(Side.FIRST),
        pin.with_state("diminished"),
        pin.with_terminal(False),
        Pin.from_code(pin.code),
    ]
    same: list[bool] = [
        pin.same_abbr(built),
        pin.same_side(built),
        pin.same_state(built),
        pin.same_terminal(built),
        pin < built,
        pin <= built,
        pin > built,
        pin >= built,
    ]

    epin: Epin = Epin.parse("+K^'")
    other: Epin | None = Epin.safe_parse("K''")
    made: Epin = Epin(pin, derived=True)
    epins: list[Epin] = [
        epin.derive(),
        epin.native(),
        epin.with_pin(pin),
        epin.with_derived(False),
        Epin.from_code(epin.code),
        made,
    ]
    more: list[bool] = [epin.is_derived, epin.is_native, epin.same_derived(made), epin < made]
    inner: Pin = epin.pin

    found, end = Epin.scan("xx+K^'", 2)
    found_pin, pin_end = Pin.scan("K^", 0)
    items: list[Epin | str] = Epin.tokenize("-rnbqk^bn-r/8/2PB")
    pin_items: list[Pin | str] = Pin.tokenize("K^+R")

    buf = bytearray()
    epin.append_to(buf)
    pin.append_to(buf)
    offset: int = epin.write_into(bytearray(8), 0) + pin.write_into(memoryview(bytearray(4)), 0)

    result: TokenArray = Epin.parse_many(["K^", "q", "+p'"])
    pin_result: TokenArray = Pin.parse_many(b"K q +p", errors="mark")
    tokens: list[str] = result.tokens()
    joined: bytes = result.to_bytes(b" ")
    codes = result.codes()
    ordered: TokenArray = result.sorted()
    first = result[0]
    count: int = len(result) + len(pin_result.invalid) + len(ordered)
    notation: str = result.notation
    again: TokenArray = pickle.loads(pickle.dumps(result))

    styles: NativeStyles[str] = NativeStyles(first="chess", second="shogi")
    style: str = styles.resolve(epin)
    of_side: str = styles.of_side(Side.SECOND)
    token_for: Epin = styles.epin(pin, "shogi")

    limits: tuple[int, int, int, int] = (
        PIN_MAX_LENGTH,
        EPIN_MAX_LENGTH,
        PIN_TOKEN_COUNT,
        EPIN_TOKEN_COUNT,
    )
    number: int = Reason.MULTIPLE_DERIVATION_MARKERS.value
    try:
        Epin.parse("K''")
    except ParseError as err:
        details: tuple[object, Reason | str, str, int | None, int | None] = (
            err.token,
            err.reason,
            err.notation,
            err.index,
            err.position,
        )
        print(details, limits, number)

    print(
        maybe,
        valid,
        abbr,
        side,
        state,
        flags,
        text,
        pins,
        same,
        other,
        epins,
        more,
        inner,
        found,
        end,
        found_pin,
        pin_end,
        items,
        pin_items,
        bytes(buf),
        offset,
        tokens,
        joined,
        list(codes),
        first,
        count,
        notation,
        again == result,
        style,
        of_side,
        token_for,
        CODE_LIMIT,
        IMPLEMENTATION,
        __version__,
    )


if __name__ == "__main__":
    main()
