"""``python -m sashite_epin``: the command line of _cli.py, under the name it was run by."""

from ._cli import main

raise SystemExit(main(prog="python -m sashite_epin"))
