"""MkDocs hook: the API pages render docstrings written with Sphinx roles
(``:func:`check```, ``:class:`Session```); mkdocstrings leaves the role's
name in front of the code (``:func:check``). This drops the role name and
keeps the code, on every page and so in the search index too."""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|ref|term):(?=<code>)")


def on_page_content(html: str, **_: Any) -> str:
    return _ROLE.sub("", html)
