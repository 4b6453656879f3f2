"""`ExportChild`: the run's process's handle on its export child (`python -m inspector.otel.child`).

The run's process starts the child, tells it when the run file has its header (`follow`), and at the
end (`finish`) tells it to stop and waits a bounded time for its report: the one warning line to
print, if any. It never reads the child's pipes while the run goes on and never waits on the child
before the end, so nothing the child or the backend does slows the run. Nothing of OpenTelemetry is
imported here.

The child runs the same interpreter with this process's environment (so the `OTEL_EXPORTER_OTLP_*`
variables reach the SDK there) and, unless this `inspector` package was installed in a site folder
(where the child finds it anyway, and which must not go before the standard library), the folder it
was imported from first on its path, so it runs the same code as the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pydantic import ValidationError

from inspector.otel.child_protocol import ChildReport, ChildSettings, Command

__all__ = ["GRACE_SECONDS", "ExportChild"]

GRACE_SECONDS = 10.0
"""What `finish` waits beyond the child's own `finish` bound (its start-up on a loaded machine)
before it stops the child itself."""

_ROOT = str(Path(__file__).resolve().parents[2])


def _installed() -> bool:
    """Whether this package lives in a site folder (an ordinary install)."""
    import site

    folders = [*site.getsitepackages(), site.getusersitepackages()]
    return any(Path(folder).resolve() == Path(_ROOT) for folder in folders)


class ExportChild:
    """A started export child for `settings`. `follow(skip)` once the run file has its header;
    `finish()` once the run is over (or to give up on it): the warning line, or None."""

    def __init__(self, settings: ChildSettings) -> None:
        self.settings = settings
        env = dict(os.environ)
        if not _installed():
            env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)
        self.following = False
        self._warning: str | None = None
        self._finished = False
        self.process: subprocess.Popen[str] | None = None
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "inspector.otel.child"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                text=True,
            )
        except OSError as exc:  # no process to be had (a process limit): the run goes on, unsent
            self._warning = f"OTLP export skipped: could not start the export process: {exc}"
            return
        self._say(settings.model_dump_json())

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def follow(self, skip: int = 0) -> None:
        """Start sending the run file's spans; its segments before `skip` were there before this run."""
        if not self.following:
            self.following = True
            self._say(Command(kind="follow", skip=skip).model_dump_json())

    def finish(self, wait: float | None = None) -> str | None:
        """Tell the child the run is over and wait for its report: at most `wait` seconds (default:
        the child's own `finish` bound and `GRACE_SECONDS`), after which the child is stopped and the
        line says so. Returns the one warning line to show, or None when every span arrived."""
        if self._finished or self.process is None:
            return self._warning
        self._finished = True
        self._say(Command(kind="stop").model_dump_json())  # `communicate` closes the pipe after it
        limit = self.settings.finish + GRACE_SECONDS if wait is None else wait
        process = self.process
        try:
            out, err = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            self._warning = (
                f"OTLP export: the export process (pid {self.pid}) did not finish within {limit:g} s and "
                "was stopped; the spans it had not sent were dropped"
            )
            return self._warning
        self._warning = self._read_report(out, err, process.returncode)
        return self._warning

    def _read_report(self, out: str, err: str, status: int | None) -> str | None:
        lines = out.strip().splitlines()
        if lines:
            try:
                return ChildReport.model_validate_json(lines[-1]).warning()
            except ValidationError:
                pass
        last = err.strip().splitlines()[-1] if err.strip() else "no message"
        return (
            f"OTLP export skipped: the export process ended (exit status {status}) "
            f"without a report: {last[:300]}"
        )

    def _say(self, line: str) -> None:
        stdin = None if self.process is None else self.process.stdin
        if stdin is None or stdin.closed:
            return
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (OSError, ValueError):  # the child is gone: `finish` says why
            pass
