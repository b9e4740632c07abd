"""Sphinx configuration: the user's docs (Markdown through MyST) and an API reference
generated from the docstrings of the installed package (autodoc).

Build: ``sphinx-build -W --keep-going docs build/docs`` (``pip install '.[docs]'``).
The compiled core's functions carry their signatures in their docstrings
(``embedsignature``), which autodoc reads.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import sashite_epin

project = "sashite-epin"
author = "sashite-epin developers"
copyright = "sashite-epin developers, MIT licence"
version = release = sashite_epin.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": False}
# Signatures name these by their public path; nothing is fetched from the network.
nitpicky = False

html_theme = "alabaster"
html_title = f"sashite-epin {release}"
html_static_path: list[str] = []


# The facade exposes some of the compiled core's functions under other names (Pin.parse
# is the core's parse_pin).  Their signature is embedded as the docstring's first line
# under the core's name, which autodoc does not take for the documented name: api.rst
# states those signatures in its directives, and this drops the embedded line.
EMBEDDED = re.compile(r"^(\w+)\(.*\)(?:\s*->\s*.+)?$")


def without_embedded_line(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    found = EMBEDDED.match(lines[0]) if inspect.isbuiltin(obj) and lines else None
    if found and found.group(1) != name.rpartition(".")[2]:
        del lines[: 2 if len(lines) > 1 and not lines[1].strip() else 1]


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", without_embedded_line)
