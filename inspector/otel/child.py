"""The export child: `python -m inspector.otel.child`, a live run's spans sent from a process of its own.

A live export maps about 0.3 ms of CPU a span and the SDK encodes in pure Python: on the run's own
process that work takes the GIL from the run's thread. Here it has a process (and, on a machine with
two cores, a core) of its own, and the run's process only records. The parent (`child_process`)
starts it with the same interpreter and says what to do over stdin (`child_protocol`); it follows the
run file with `LiveExport`, sends through `OtlpSink` (the SDK's `BatchSpanProcessor`: a bounded queue,
spans past it dropped and counted), and reports once, on stdout, when it is done.

It never outlives its run for long: it stops when told to, when stdin ends (the parent closed it or
died) or when the parent's pid changes (it died while a fork of it holds the pipe open), then sends
what is left, and a watchdog makes it report what it has and exit `finish` seconds after that,
whatever the backend does. Ctrl-C in the terminal is the run's to handle: the child ignores SIGINT and
follows the parent's lead.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, TextIO

from pydantic import ValidationError

from inspector.otel.child_protocol import ChildReport, ChildSettings, Command

if TYPE_CHECKING:  # imported in `run`, where a missing `otel` extra is one report line
    from inspector.otel.exporters import OtlpSink
    from inspector.otel.follower import LiveExport

__all__ = ["main"]

NO_EXTRA = "the `otel` extra is not installed (pip install 'graph-inspector[otel]')"


class _Child:
    """One export: settings in, commands from the parent's pipe, one report out."""

    def __init__(self, settings: ChildSettings, commands: TextIO, report_to: TextIO) -> None:
        self.settings = settings
        self.commands = commands
        self.report_to = report_to
        self.following = threading.Event()
        self.stopping = threading.Event()
        self.skip = 0
        self._report_lock = threading.Lock()
        self._reported = False
        self.report = ChildReport()

    def run(self) -> None:
        threading.Thread(target=self._listen, name="inspector-otlp-commands", daemon=True).start()
        try:
            from inspector.otel.exporters import OtlpSink
            from inspector.otel.follower import LiveExport
            from inspector.otel.mapping import capture_content
        except ImportError as exc:
            missing = exc.name or ""
            self.report.fault = NO_EXTRA if missing.startswith("opentelemetry") else f"ImportError: {exc}"
            self._send_report()
            return
        settings = self.settings
        sink = OtlpSink(
            settings.url,
            headers=settings.headers,
            timeout=settings.timeout,
            max_queue_size=settings.queue_size,
        )
        self.report.where = sink.where
        while not self.following.is_set() and not self._stop_now(settings.poll):
            pass
        content = capture_content() if settings.content is None else settings.content
        live = LiveExport(settings.path, sink, content=content, skip=self.skip, poll=settings.poll)
        if self.following.is_set():
            while not self._stop_now(live.interval):
                live.read()
        watchdog = threading.Timer(settings.finish, self._cut_short, args=(sink, live))
        watchdog.daemon = True
        watchdog.start()
        if self.following.is_set():
            live.finish()
        sink.close()
        watchdog.cancel()
        self._update(sink, live)
        self._send_report()

    def _stop_now(self, wait: float) -> bool:
        """Wait up to `wait` seconds for the word to stop; also stop once the parent is gone."""
        return self.stopping.wait(wait) or os.getppid() != self.settings.parent

    def _listen(self) -> None:
        """The parent's commands, until stop or the end of the pipe (the parent closed it or died)."""
        try:
            for line in self.commands:
                try:
                    command = Command.model_validate_json(line)
                except ValidationError:
                    continue
                if command.kind == "follow":
                    self.skip = command.skip
                    self.following.set()
                else:
                    break
        except (OSError, ValueError):
            pass
        self.stopping.set()

    def _update(self, sink: OtlpSink, live: LiveExport) -> None:
        self.report.ended = sink.ended
        self.report.sent = sink.sent
        self.report.failure = sink.failure
        self.report.fault = live.fault
        self.report.steps_left = live.steps_left

    def _cut_short(self, sink: OtlpSink, live: LiveExport) -> None:
        """The `finish` bound passed: say what was sent and what was not, and go."""
        self._update(sink, live)
        self.report.cut_short = self.settings.finish
        self._send_report()
        os._exit(0)

    def _send_report(self) -> None:
        with self._report_lock:
            if self._reported:
                return
            self._reported = True
            try:
                self.report_to.write(self.report.model_dump_json() + "\n")
                self.report_to.flush()
            except (OSError, ValueError):  # no one to tell: the parent is gone
                pass


def main() -> None:
    """Read the settings line, export, report; exits at once afterwards (nothing left to tear down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    line = sys.stdin.readline()
    try:
        settings = ChildSettings.model_validate_json(line)
    except ValidationError as exc:
        sys.stdout.write(
            ChildReport(fault=f"bad settings from the run's process: {exc}").model_dump_json() + "\n"
        )
        sys.stdout.flush()
        os._exit(2)
    try:
        _Child(settings, sys.stdin, sys.stdout).run()
    except Exception as exc:  # reported as the one warning line, never a traceback on the user's terminal
        report = ChildReport(fault=f"{type(exc).__name__}: {exc}")
        try:
            sys.stdout.write(report.model_dump_json() + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


if __name__ == "__main__":
    main()
