"""``python -m sashite_epin``: see _cli.py."""

from ._cli import main

raise SystemExit(main())
