"""Replay debugger at scale: a generated 100,000-step run opened in the TUI, measured with Pilot.

Targets (issue 6): first paint of the 100,000-step run under 2 s; one step forward, repainted, under
50 ms. "First paint" is from `make_app(path)` (which reads the file) to the first full frame of the
screen mounted by Pilot; "one step" is the action the `n` key runs plus a synchronous layout and render
of every cell (median of 30). The verdict is taken under Pilot, as a user would see it: `press` and
`pause` sleep until the process looks idle (tens of ms even for a key bound to nothing, in 20 ms
slices), so a step key (`p`, one step back; `n` at step 0) is timed next to a key bound to nothing,
alternately, and the difference of their medians (of 15 presses each) is the app's share: the action,
every frame it causes (layout, render, scrolls after refresh) and any work those frames trigger.

Realistic run (issue 15): the flow ReAct agent, one tool call per round, recorded by the real
`Recorder` over 50,000 rounds (100,001 supersteps) so the message history grows by a message per
step. It is generated once per machine session and cached in the temp dir. The app opens it in a child
process (so its peak RSS is its own) and, straight after the first paint, while diagnostics are still
being computed in the background, answers End, `g` (go to a step), `n`/`p` and `/` (search); each is
timed for the key that does the work (End, the Enter that closes the prompt, ...) from the terminal's
key event to the end of the first frame drawn after the app showed the new step (`_Frames`: Pilot's
own waits sleep until the process looks idle, which a background count never does), and by the CPU
time the app's thread spent over the same span (steadier than the wall clock on a shared machine).
Each line says what was still running in the background at that press. Targets: first paint <= 1 s, every key
<= 100 ms, peak RSS <= 300 MB; the same measures on a 9-step recording of the same agent are the
baseline.

Baselines, in the same process: the same measures on a 9-step run (the TUI should cost the same for
both: nothing scales with the run length), and a Textual `DataTable` holding one row per step (what a
non-virtualised timeline costs to fill and paint).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from graph_core.callbacks import BranchDecision, Budget, RunInfo, StepInfo
from graph_core.schema import Message
from inspector.recording import Recorder
from inspector.recording.synthetic import react_topology

STEPS = 100_000
FIRST_PAINT_TARGET_S = 2.0
STEP_TARGET_S = 0.050
SIZE = (120, 40)
PRESSES = 15
REACT_ROUNDS = 50_000
REACT_PAINT_TARGET_S = 1.0
REACT_KEY_TARGET_S = 0.100
REACT_RSS_TARGET_MB = 300.0
CACHE = Path(tempfile.gettempdir()) / "graph-inspector-bench"


def generate(path: Path, steps: int) -> Path:
    """A chat/tools loop of `steps` supersteps through the real Recorder, with a small state."""
    ticks = itertools.count()
    recorder = Recorder(
        path, topology=react_topology(steps + 1), clock=lambda: next(ticks) * 0.01, run_id="bench"
    )
    graph = RunInfo(node_key=None, name="ReActAgent", kind="Graph", graph_name="ReActAgent")
    recorder.on_start(graph, [Message.user("go")])
    for i in range(steps):
        node, after = ("chat", "tools") if i % 2 == 0 else ("tools", "chat")
        recorder.on_step_start(StepInfo(index=i, nodes=(node,), budget=Budget.of(i, steps + 1)))
        info = RunInfo(node_key=node, name=node, kind="Lambda", path=(node,), step=i)
        recorder.on_start(info, f"in {i}")
        recorder.on_end(info, f"out {i}")
        recorder.on_step_end(
            StepInfo(
                index=i,
                nodes=(node,),
                budget=Budget.of(i + 1, steps + 1),
                state={"round": i // 2, "last": f"{node} {i}"},
                branches=(BranchDecision(node, 0, (after,), ()),),
                next_nodes=(after,),
            )
        )
    recorder.on_end(graph, "done")
    recorder.close()
    return path


def _repaint(app: Any) -> None:
    """Lay the screen out and render every cell, as the next frame would (synchronously)."""
    screen = app.screen
    screen._refresh_layout(app.size)  # pyright: ignore[reportPrivateUsage]
    screen._compositor.render_update(full=True)  # pyright: ignore[reportPrivateUsage]


async def _measure(path: Path) -> tuple[float, float, float, float]:
    """(first paint, one step forward repainted, Pilot press+pause of `n`, of an unbound key)."""
    from inspector.tui import make_app

    start = time.perf_counter()
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        _repaint(app)
        first_paint = time.perf_counter() - start
        await pilot.pause()
        steps: list[float] = []
        for _ in range(30):
            t = time.perf_counter()
            await app.run_action("next")  # what the `n`/`→` binding runs
            _repaint(app)
            steps.append(time.perf_counter() - t)
        assert app.replay.cursor == min(30, len(app.replay) - 1)
        await pilot.pause()
        presses: dict[str, list[float]] = {"p": [], "z": []}
        for _ in range(PRESSES):  # alternated, so a slow spell of the machine hits both alike
            for key in ("p", "z"):
                step = key == "p" and app.replay.cursor == 0  # the short run: step forward instead
                t = time.perf_counter()
                await pilot.press("n" if step else key)
                await pilot.pause()
                presses[key].append(time.perf_counter() - t)
    step, idle = statistics.median(presses["p"]), statistics.median(presses["z"])
    return first_paint, statistics.median(steps), step, idle


def _follow(big: Path) -> tuple[float, float, float]:
    """Follow mode on the big run: (a poll that finds no growth, a poll after the recorder appended
    the last steps, including the path to the new end; baseline: `read_run` of the whole file).

    The reader has no incremental API, so a poll after growth re-reads the file: this says what that
    costs at 100,000 steps."""
    from inspector.recording import read_run
    from inspector.tui import Session

    data = big.read_bytes()
    cut = data.rfind(b'\n{"kind":"step"', 0, len(data) - 2_000) + 1
    live = big.with_name("live.jsonl")
    live.write_bytes(data[:cut])
    session = Session(read_run(live))
    session.replay.go(len(session) - 1)
    session.path_at(len(session) - 1)
    idle: list[float] = []
    for _ in range(50):
        t = time.perf_counter()
        assert not session.reload()
        idle.append(time.perf_counter() - t)
    with live.open("ab") as out:
        out.write(data[cut:])
    t = time.perf_counter()
    assert session.reload()
    session.path_at(session.replay.cursor)
    grown = time.perf_counter() - t
    assert session.replay.cursor == STEPS - 1
    t = time.perf_counter()
    read_run(big)
    baseline = time.perf_counter() - t
    return statistics.median(idle), grown, baseline


async def _datatable(steps: int) -> float:
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    class Table(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("step", "nodes", "used", "left")
            table.add_rows((i, "chat" if i % 2 == 0 else "tools", i + 1, steps - i) for i in range(steps))

    start = time.perf_counter()
    async with Table().run_test(size=SIZE) as pilot:
        await pilot.pause()
        return time.perf_counter() - start


def react_run(rounds: int) -> Path:
    """The flow ReAct agent's recording of `rounds` rounds, generated once and kept in the temp dir
    (recording 50,000 rounds takes about a minute; the file is keyed by the rounds and the recorder's
    format version)."""
    from bench.bench_recording import _agent
    from inspector.recording.format import FORMAT_VERSION

    path = CACHE / f"react-{rounds}-v{FORMAT_VERSION}.jsonl"
    if not path.exists():
        CACHE.mkdir(exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        agent = _agent(rounds)
        # The scripted model keeps a copy of every call's messages (for tests to read back), which
        # on a growing history is quadratic: 50,000 rounds would hold ~20 GB. Nothing reads them here.
        agent.model._cursor.calls = _Forgetful()  # pyright: ignore
        agent.invoke([Message.user("go")], callbacks=[Recorder(partial)])
        partial.replace(path)
    return path


class _Forgetful(list[Any]):
    """A call log that keeps nothing."""

    def append(self, item: Any) -> None:
        del item


_CHARS = {"end": None, "enter": "\r", "slash": "/"}


def _queued() -> float | None:
    """Seconds this thread has spent ready to run but waiting for a CPU (Linux), else None."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


class _Frames:
    """When the app finished each `show_cursor` (every key measured here ends in one) and when each
    frame was drawn, so a key's answer is timed from the terminal's event to the first frame drawn
    after the screen took it in. Pilot's own waits cannot time this: they wait until the process looks
    idle, and a background count keeps it busy. Each answer's CPU time in the app's thread over the
    same span goes to `cpu` (steadier than the wall clock on a loaded machine; it includes any count
    slice that ran before the frame, not the diagnosing or searching child processes), and the time
    the thread spent ready to run but waiting for a CPU to `queued` (Linux's schedstat; None
    elsewhere): wall time well over CPU time is this wait, or idle waiting (Textual's frame pacing)."""

    def __init__(self, app: Any) -> None:
        from textual import events
        from textual.screen import Screen
        from textual.worker import active_worker

        self.shown: list[float] = []
        self.keys: list[float] = []
        self.frames: list[tuple[float, float, float, float | None]] = []
        self.cpu: list[float] = []
        self.queued: list[float | None] = []
        show_cursor = app.show_cursor
        on_event = app.on_event

        async def taken(event: events.Event) -> None:
            if isinstance(event, events.Key):  # the app took the key in: a show after it answers it
                self.keys.append(time.perf_counter())
            await on_event(event)

        app.on_event = taken

        def shown() -> None:
            show_cursor()
            try:  # a background worker showing what it found (counts, diagnostics) is no key's answer
                active_worker.get()
            except LookupError:
                self.shown.append(time.perf_counter())

        app.show_cursor = shown
        refresh = Screen._compositor_refresh  # pyright: ignore[reportPrivateUsage]
        frames = self.frames

        def drawn(self: Screen[Any]) -> None:
            start = time.perf_counter()
            refresh(self)
            frames.append((start, time.perf_counter(), time.thread_time(), _queued()))

        Screen._compositor_refresh = drawn  # pyright: ignore[reportPrivateUsage]

    async def answer(self, app: Any, key: str) -> float:
        """Send `key` as the terminal would; seconds until the first frame after the app showed it."""
        from textual import events

        keys = len(self.keys)
        t0, cpu0, queued0 = time.perf_counter(), time.thread_time(), _queued()
        app._driver.send_message(events.Key(key, _CHARS.get(key, key)))  # pyright: ignore[reportPrivateUsage]
        while time.perf_counter() - t0 < 120:
            await asyncio.sleep(0.001)
            # not a show the background work asked for before the key was taken in (a count reaching
            # the cursor, diagnostics arriving)
            shows = [t for t in self.shown if len(self.keys) > keys and t >= self.keys[keys]]
            if shows:
                after = shows[0]
                drawn = [(end, cpu, queued) for start, end, cpu, queued in self.frames if start >= after]
                if drawn:
                    end, cpu, queued = drawn[0]
                    self.cpu.append(cpu - cpu0)
                    self.queued.append(None if queued is None or queued0 is None else queued - queued0)
                    return end - t0
        raise TimeoutError(f"no frame after {key!r}")


async def _type(app: Any, keys: str, prompt: str) -> None:
    """Open a prompt with `prompt` and type `keys` into it, waiting on the screen, not on idleness.

    Each key is waited for until the field shows what was typed so far: a prompt opens with the last
    answer selected (the first key replaces it), so waiting on the value's length alone passed at
    once, and the keys were still being handled when the Enter being timed was sent."""
    from textual import events
    from textual.widgets import Input

    from inspector.tui.prompt import PromptScreen

    driver = app._driver  # pyright: ignore[reportPrivateUsage]
    driver.send_message(events.Key(prompt, _CHARS.get(prompt, prompt)))
    while not (isinstance(app.screen, PromptScreen) and isinstance(app.focused, Input)):
        await asyncio.sleep(0.001)
    field = app.focused
    for n, key in enumerate(keys, 1):
        driver.send_message(events.Key(key, key))
        sent = time.perf_counter()
        while field.value != keys[:n]:
            if time.perf_counter() - sent > 60:
                raise TimeoutError(f"the prompt shows {field.value!r} after typing {keys[:n]!r}")
            await asyncio.sleep(0.001)


async def _measure_keys(path: Path) -> dict[str, Any]:
    """First paint, then each key while the background work is still going; the app's peak RSS."""
    from inspector.tui import make_app

    start = time.perf_counter()
    app = make_app(path)
    out: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        _repaint(app)
        out["paint"] = time.perf_counter() - start
        frames = _Frames(app)
        session = app.session
        out["diagnosing_at_paint"] = session.diagnostics is None
        last = len(app.replay) - 1
        keys: dict[str, list[float]] = {k: [] for k in ("end", "g", "n", "p", "/")}
        busy: dict[str, list[str]] = {k: [] for k in keys}
        cpu: dict[str, list[float]] = {k: [] for k in keys}
        queued: dict[str, list[float]] = {k: [] for k in keys}

        async def timed(name: str, key: str) -> None:
            counting = not session.paths_done
            flags = (("diagnosing", session.diagnostics is None), ("counting", counting),
                     ("collecting hits", app.finder.collecting))  # fmt: skip
            still = [what for what, on in flags if on]
            keys[name].append(await frames.answer(app, key))
            cpu[name].append(frames.cpu[-1])
            if frames.queued[-1] is not None:
                queued[name].append(frames.queued[-1])
            busy[name].append(", ".join(still) or "nothing")

        for round_ in range(3):
            await timed("end", "end")
            assert app.replay.cursor == last
            await timed("p", "p")
            await timed("n", "n")
            target = (last * (round_ + 1)) // 4
            await _type(app, str(target), "g")
            await timed("g", "enter")
            assert app.replay.cursor == target, (app.replay.cursor, target)
            await _type(app, "lookup", "slash")
            await timed("/", "enter")
        await pilot.pause()
        out["keys"] = {k: max(v) for k, v in keys.items()}
        out["cpu"] = {k: max(v) for k, v in cpu.items()}
        out["queued"] = {k: max(v) if v else None for k, v in queued.items()}
        out["busy"] = {k: v[keys[k].index(max(keys[k]))] for k, v in busy.items()}
        out["steps"] = len(app.replay)
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["child_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return out


def _measure_in_child(path: Path) -> dict[str, Any]:
    """`_measure_keys` in a fresh interpreter, so its peak RSS is the app's alone."""
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_tui", "--keys", str(path)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def _queued_note(measured: dict[str, Any], key: str) -> str:
    """`, queued N ms`: the most a press of `key` waited for a CPU (nothing where it cannot be read)."""
    queued = measured.get("queued", {}).get(key)
    return "" if queued is None else f", queued {queued * 1000:4.1f} ms"


def _realistic() -> None:
    t = time.perf_counter()
    big = react_run(REACT_ROUNDS)
    small = react_run(4)
    print(f"ReAct recording, {REACT_ROUNDS:,} rounds ({big.stat().st_size / 1e6:.0f} MB, cached in "
          f"{CACHE}): ready in {time.perf_counter() - t:.1f} s")  # fmt: skip
    base = _measure_in_child(small)
    got = _measure_in_child(big)
    n = got["steps"]

    def verdict(ok: bool) -> str:
        return "OK" if ok else "MISSED"

    print(f"first paint   {n:,} steps: {got['paint']:.3f} s   {base['steps']} steps: {base['paint']:.3f} s   "
          f"ratio {got['paint'] / base['paint']:.1f}x   target <= {REACT_PAINT_TARGET_S:.1f} s   "
          f"{verdict(got['paint'] <= REACT_PAINT_TARGET_S)}"
          f"{'   (diagnostics still running)' if got['diagnosing_at_paint'] else ''}")  # fmt: skip
    for key, label in (("end", "End"), ("g", "g (Enter)"), ("n", "n"), ("p", "p"), ("/", "/ (Enter)")):
        ms, small_ms = got["keys"][key] * 1000, base["keys"][key] * 1000
        cpu, small_cpu = got["cpu"][key] * 1000, base["cpu"][key] * 1000
        target = REACT_KEY_TARGET_S * 1000
        print(f"key {label:<10} {n:,} steps: {ms:6.1f} ms, cpu {cpu:5.1f} ms{_queued_note(got, key)} "
              f"(background: {got['busy'][key]})   "
              f"{base['steps']} steps: {small_ms:5.1f} ms, cpu {small_cpu:4.1f} ms"
              f"{_queued_note(base, key)}   "
              f"target <= {target:.0f} ms   {verdict(ms <= target)}")  # fmt: skip
    print("  (each: the slowest of 3 presses, from the terminal's key event to the end of the first "
          "frame drawn after the app showed the new step; cpu: the most CPU time the app's thread "
          "spent over that span in the 3 presses; queued: the most time it spent ready to run but "
          "waiting for a CPU, taken by other processes)")  # fmt: skip
    print(f"peak RSS      {n:,} steps: {got['rss_mb']:.0f} MB   "
          f"{base['steps']} steps: {base['rss_mb']:.0f} MB   "
          f"target <= {REACT_RSS_TARGET_MB:.0f} MB   {verdict(got['rss_mb'] <= REACT_RSS_TARGET_MB)}   "
          f"(diagnosing child process: {got['child_rss_mb']:.0f} MB)")  # fmt: skip
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs")


def run() -> None:
    _realistic()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        big = generate(Path(tmp) / "big.jsonl", STEPS)
        print(
            f"generated {STEPS:,} steps ({big.stat().st_size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - t:.1f} s"
        )
        small = generate(Path(tmp) / "small.jsonl", 9)
        small_paint, small_step, small_press, small_idle = asyncio.run(_measure(small))
        big_paint, big_step, big_press, idle_press = asyncio.run(_measure(big))
        table = asyncio.run(_datatable(STEPS))
        idle_poll, grown_poll, reread = _follow(big)
    print(f"first paint   {STEPS:,} steps: {big_paint:.3f} s   9 steps: {small_paint:.3f} s   "
          f"ratio {big_paint / small_paint:.1f}x   target < {FIRST_PAINT_TARGET_S:.1f} s   "
          f"{'OK' if big_paint < FIRST_PAINT_TARGET_S else 'MISSED'}")  # fmt: skip
    print(f"step forward  {STEPS:,} steps: {big_step * 1000:.1f} ms   9 steps: {small_step * 1000:.1f} ms   "
          f"ratio {big_step / small_step:.2f}x   target < {STEP_TARGET_S * 1000:.0f} ms   "
          f"{'OK' if big_step < STEP_TARGET_S else 'MISSED'}")  # fmt: skip
    share = big_press - idle_press
    print(f"step under Pilot, {STEPS:,} steps: step key {big_press * 1000:.1f} ms, unbound key "
          f"{idle_press * 1000:.1f} ms (Pilot's idle waits), difference {share * 1000:.1f} ms   "
          f"9 steps: difference {(small_press - small_idle) * 1000:.1f} ms   target < "
          f"{STEP_TARGET_S * 1000:.0f} ms   {'OK' if share < STEP_TARGET_S else 'MISSED'}")  # fmt: skip
    print(f"baseline: DataTable with {STEPS:,} rows, fill + first paint {table:.3f} s "
          f"({table / big_paint:.1f}x the replay app's first paint)")  # fmt: skip
    print(f"follow, {STEPS:,} steps: poll without growth {idle_poll * 1e6:.0f} µs; poll after growth "
          f"(re-read, cursor to the new end) {grown_poll * 1000:.0f} ms; baseline read_run of the whole "
          f"file {reread * 1000:.0f} ms ({grown_poll / reread:.2f}x)")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["--keys"]:
        print(json.dumps(asyncio.run(_measure_keys(Path(sys.argv[2])))))
    else:
        run()
