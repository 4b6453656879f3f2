"""Fixtures of the OpenTelemetry tests."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from tests.otel.terminal import Terminal


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed; CI installs it in .ci/run (apt-get install tmux)")
    term = Terminal(f"inspector-otel-test-{uuid.uuid4().hex[:8]}")
    yield term
    subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True, timeout=30)
