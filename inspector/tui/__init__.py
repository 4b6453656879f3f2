"""The replay debugger: a Textual app over a recorded run (`make_app`); it never runs the engine.

```python
from inspector.tui import make_app

make_app("run.jsonl").run()
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.tui.app import ReplayApp, make_app
    from inspector.tui.session import Session

__all__ = ["ReplayApp", "Session", "make_app"]


def __getattr__(name: str) -> Any:
    """`ReplayApp`, `make_app` and `Session` load on first use, so that a child process importing one
    module of this package for its work (`background.walk`, the visit count and diagnostics) does not
    load Textual too."""
    if name in ("ReplayApp", "make_app"):
        from inspector.tui import app

        return getattr(app, name)
    if name == "Session":
        from inspector.tui.session import Session

        return Session
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
