"""`dralint.rules` in a checkout and an editable install: its modules are the top-level rules/ folder.

The built-in rules are kept at the top of the repository (rules/__init__.py says what they are). A
wheel carries that folder as this package instead of this file (pyproject.toml excludes it and
force-includes rules/ as dralint/rules), so this file only ever runs from a checkout, where the
folder is three levels up, beside src/.
"""

import os

__path__ = [os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "rules"))]
