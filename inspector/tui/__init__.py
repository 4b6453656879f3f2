"""The replay debugger: a Textual app over a recorded run (`make_app`); it never runs the engine.

```python
from inspector.tui import make_app

make_app("run.jsonl").run()
```
"""

from inspector.tui.app import ReplayApp, make_app
from inspector.tui.session import Session

__all__ = ["ReplayApp", "Session", "make_app"]
