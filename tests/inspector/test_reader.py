"""read_run: header checks, tolerance of cut-off tails, corrupt lines, laziness."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.recording import Recorder, RunFileError, RunFileWarning, read_run
from inspector.recording.synthetic import react_topology, simulate_react


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


@pytest.fixture
def run_file(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    simulate_react(Recorder(path, topology=react_topology(), clock=_clock(), run_id="r1"), 3)
    return path


def test_contract_fields(run_file: Path) -> None:
    run = read_run(run_file)
    assert run.status == "ok"
    assert run.topology is not None and run.topology.name == "ReActAgent"
    assert [e.source for e in run.topology.back_edges] == ["tools"]
    assert run.output["content"] == "It is sunny in Paris."
    assert run.error is None
    assert len(run.steps) == 7
    assert [s.index for s in run.steps] == list(range(7))
    assert [s.nodes for s in run.steps] == [("chat",), ("tools",)] * 3 + [("chat",)]
    for step in run.steps:
        assert step.budget.steps_used == step.index + 1
        assert step.budget.steps_max == 7
        assert step.budget.steps_remaining == 7 - step.index - 1
    assert run.steps[-1].state["messages"][0] == {"role": "user", "content": "What is the weather in Paris?"}
    assert run.steps[-1].state["return_directly_tool_call_id"] == ""


def test_steps_expose_node_runs_branches_and_durations(run_file: Path) -> None:
    run = read_run(run_file)
    chat = run.steps[0].node_run("chat")
    assert chat is not None and chat.component == "ChatModel" and chat.duration == 0.25
    assert chat.input == [{"role": "user", "content": "What is the weather in Paris?"}]
    assert chat.output["tool_calls"][0]["name"] == "get_weather"
    tools = run.steps[1].node_run("tools")
    assert tools is not None and [t.tool_call_id for t in tools.tools] == ["call_0"]
    assert tools.tools[0].output == "sunny, 20 C"
    assert [(b.source, b.chosen) for b in run.steps[0].branches] == [("chat", ["tools"])]
    assert run.steps[0].duration is not None and run.steps[0].duration > 0
    assert run.header.input == {"$refs": [[0, 1]]} and run.resolve(run.header.input)[0]["role"] == "user"


def test_cut_off_last_line_means_incomplete(run_file: Path) -> None:
    data = run_file.read_bytes()
    lines = data.splitlines(keepends=True)
    # cut in the middle of the 4th step's last line: steps 0..2 survive
    fourth_end = [i for i, line in enumerate(lines) if line.startswith(b'{"kind":"step",')][3]
    cut = b"".join(lines[:fourth_end]) + lines[fourth_end][:30]
    run_file.write_bytes(cut)
    run = read_run(run_file)
    assert run.status == "incomplete"
    assert len(run.steps) == 3
    assert run.output is None


def test_cut_off_file_without_final_newline_is_incomplete(run_file: Path) -> None:
    data = run_file.read_bytes()
    run_file.write_bytes(data[:-1])  # the run_finished line lost its newline: still not trusted as complete
    assert read_run(run_file).status == "incomplete"


def test_corrupt_middle_line_names_its_line(run_file: Path) -> None:
    lines = run_file.read_text().splitlines(keepends=True)
    lines[5] = '{"kind":"node_started", garbage\n'
    run_file.write_text("".join(lines))
    with pytest.raises(RunFileError) as info:
        read_run(run_file)
    assert info.value.line_no == 6
    assert isinstance(info.value, ValueError)
    assert f"{run_file}:6:" in str(info.value)


def test_lenient_mode_skips_corrupt_lines_with_a_warning(run_file: Path) -> None:
    lines = run_file.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith('{"kind":"step",'))
    lines.insert(index, "not json at all\n")
    run_file.write_text("".join(lines))
    with pytest.raises(RunFileError):
        read_run(run_file)
    with pytest.warns(RunFileWarning):
        run = read_run(run_file, lenient=True)
    assert run.skipped_lines == [index + 1]
    assert run.status == "ok" and len(run.steps) == 7
    assert [(b.source, b.chosen) for b in run.steps[0].branches] == [("chat", ["tools"])]


def test_large_files_check_line_starts_at_open_and_the_rest_on_access(run_file: Path) -> None:
    lines = run_file.read_text().splitlines(keepends=True)
    bad = next(i for i, line in enumerate(lines) if line.startswith('{"kind":"step",'))
    lines[bad] = lines[bad].replace('"output":', '"output"', 1)  # still starts like an event line
    run_file.write_text("".join(lines))
    run = read_run(run_file, check_limit=0)  # memory-mapped, indexed, not fully parsed
    assert len(run.steps) == 7
    with pytest.raises(RunFileError) as info:
        _ = run.steps[0].node_runs
    assert info.value.line_no == bad + 1
    lines[bad] = "junk\n"
    run_file.write_text("".join(lines))
    with pytest.raises(RunFileError) as info:
        read_run(run_file, check_limit=0)
    assert info.value.line_no == bad + 1


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"", "empty"),
        (b"hello\n", "not JSON"),
        (b'{"kind":"header","format":"other"}\n', "not a `graph-inspector-run` header"),
        (b'{"kind":"header","format":"graph-inspector-run","version":99}\n', "newer"),
    ],
)
def test_not_a_run_file(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert needle in str(info.value) and info.value.line_no == 1


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RunFileError, match="no such file"):
        read_run(tmp_path / "nope.jsonl")


def test_header_only_file_is_an_incomplete_run(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    header = {
        "kind": "header",
        "format": "graph-inspector-run",
        "version": 2,
        "run_id": "x",
        "started_at": "t",
    }
    path.write_text(json.dumps(header) + "\n")
    run = read_run(path)
    assert run.status == "incomplete" and len(run.steps) == 0 and run.topology is None


def test_steps_sequence_behaves_like_a_sequence(run_file: Path) -> None:
    steps = read_run(run_file).steps
    assert steps[-1].index == 6
    assert [s.index for s in steps[1:3]] == [1, 2]
    with pytest.raises(IndexError):
        steps[7]
    assert steps[2] is steps[2]  # cached


def test_large_files_are_memory_mapped_and_closable(run_file: Path) -> None:
    with read_run(run_file, check_limit=0) as run:
        assert run.steps[-1].state["messages"][-1]["role"] == "tool"
    with pytest.raises(ValueError):
        _ = run.steps[0].index + len(run.value(0))  # the mapping is closed


def _value_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.startswith('{"kind":"value",')]


def test_lenient_mode_keeps_the_numbering_of_values_after_a_lost_value_line(run_file: Path) -> None:
    intact = read_run(run_file)
    expected = intact.steps[-1].state["messages"]
    lines = run_file.read_text().splitlines(keepends=True)
    lost = _value_lines(lines)[1]  # the first assistant message, referred to by every later state
    lines[lost] = "{garbled beyond recognition\n"
    run_file.write_text("".join(lines))
    with pytest.warns(RunFileWarning):
        run = read_run(run_file, lenient=True)
    assert run.skipped_lines == [lost + 1]
    messages = run.steps[-1].state["messages"]
    assert len(messages) == len(expected)
    assert messages[1] == {"$repr": f"<value 1 lost: line {lost + 1} was corrupt>", "$type": "lost"}
    # every other message is the one recorded there, not its neighbour shifted into the gap
    assert messages[:1] + messages[2:] == expected[:1] + expected[2:]
    assert run.output == intact.output


def test_lenient_mode_marks_a_value_line_whose_json_is_broken_in_a_large_file(run_file: Path) -> None:
    lines = run_file.read_text().splitlines(keepends=True)
    broken = _value_lines(lines)[2]
    lines[broken] = lines[broken].replace('"value":', '"value"', 1)  # still starts like a value line
    run_file.write_text("".join(lines))
    run = read_run(run_file, check_limit=0, lenient=True)  # indexed, the value read on access
    with pytest.warns(RunFileWarning, match=f":{broken + 1}: skipped a corrupt line"):
        messages = run.steps[-1].state["messages"]
    assert messages[2]["$type"] == "lost" and messages[3]["role"] == "assistant"
    with pytest.raises(RunFileError) as info:
        _ = read_run(run_file, check_limit=0).steps[-1].state
    assert info.value.line_no == broken + 1


@pytest.mark.parametrize(
    "raw",
    [
        b'{"kind":"value","value":{"role":"user","content":"hi"}}',
        b' {"a": 1} ',
        b'{"a":1}x',
        b'{"a":1} {}',
        b"",
        b"   ",
        b'{"a":',
        b"NaN",
        b"1 ",
        b"\xef\xbb\xbf{}",  # a UTF-8 byte order mark
        '{"a": "é"}'.encode("utf-16"),  # another encoding, detected by json.loads
        b"\xff",
        b'{"a":"\\ud800"}',
        b'{"a":"\xed\xa0\x80"}',  # a lone surrogate, encoded (json.loads takes it, pydantic does not)
        b'{"a":"\x01"}',  # a control character inside a string
        b'\x0c{"a":1}',  # a form feed is not JSON whitespace
        b'{"a":1,"b":2,"a":3}',  # a repeated key: the last value, the first place
        b'{"a":1e400,"b":-0,"c":-0.0,"d":5e-324,"e":1.0000000000000000000001,"f":NaN}',
        b'{"a":' + b"9" * 4300 + b"}",  # as many digits as Python turns into an int
        b'{"a":' + b"9" * 4301 + b"}",  # one more
        b"[" * 199 + b"]" * 199,  # deeper than pydantic's parser goes, within MAX_NESTING
        b'{"a":[1,2,]}',
    ],
)
def test_load_json_is_json_loads(raw: bytes) -> None:
    """The reader's line parser tries pydantic's parser first; what it gives or raises for any line is
    what `json.loads` gives or raises."""
    from inspector.recording.line_parse import load_json

    def outcome(parse: Any) -> tuple[str, str]:
        try:
            return "ok", repr(parse(raw))
        except ValueError as exc:
            return type(exc).__name__, str(exc)

    assert outcome(load_json) == outcome(json.loads)


def test_load_json_is_json_loads_for_every_fixture_line_cut_and_altered() -> None:
    """The same for every line of the fixture recordings, and for those lines cut short and with bytes
    swapped for JSON's own punctuation (seeded, so the cases repeat)."""
    import random

    from inspector.recording.line_parse import load_json

    def outcome(parse: Any, raw: bytes) -> tuple[str, str]:
        try:
            return "ok", repr(parse(raw))
        except ValueError as exc:
            return type(exc).__name__, str(exc)

    rng = random.Random(15)
    swaps = [b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"e", b"-", b".", b"0", b" ", b"\xed", b"\x00"]
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
    lines = [line for path in sorted(fixtures.glob("*.jsonl")) for line in path.read_bytes().splitlines()]
    assert len(lines) > 100
    for line in lines:
        cases = [line, line[: rng.randrange(len(line) + 1)]]
        for _ in range(3):
            at = rng.randrange(len(line))
            cases.append(line[:at] + rng.choice(swaps) + line[at + 1 :])
        for raw in cases:
            assert outcome(load_json, raw) == outcome(json.loads, raw), raw


def _cut_and_altered(seed: int) -> list[bytes]:
    """Every fixture line, cut short once and with a byte swapped for JSON punctuation three times."""
    import random

    rng = random.Random(seed)
    swaps = [b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b"e", b"-", b".", b"0", b" ", b"\xed", b"\x00"]
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
    lines = [line for path in sorted(fixtures.glob("*.jsonl")) for line in path.read_bytes().splitlines()]
    assert len(lines) > 100
    cases: list[bytes] = []
    for line in lines:
        cases += [line, line[: rng.randrange(len(line) + 1)]]
        for _ in range(3):
            at = rng.randrange(len(line))
            cases.append(line[:at] + rng.choice(swaps) + line[at + 1 :])
    return cases


def test_the_open_check_passes_only_lines_json_loads_reads_as_an_object() -> None:
    """Opening a file checks its lines without parsing them (`is_json_object`, on UTF-8 text): a line
    it passes is one `json.loads` reads as an object, for every fixture line cut and altered."""
    from inspector.recording.line_parse import is_json_object

    passed = refused = 0
    for raw in _cut_and_altered(16):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue  # (the open check looks at a file with broken UTF-8 the slow way)
        if is_json_object(raw):
            passed += 1
            assert isinstance(json.loads(raw), dict), raw
        else:
            refused += 1
    assert passed > 100 and refused > 100  # the cases hold both


def test_the_open_check_of_many_lines_passes_what_it_passes_line_by_line() -> None:
    """`usual_lines` checks a file's lines together: a run of lines it passes is one `usual_line`
    passes line by line (the open check then skips them), and it passes the usual file whole. Checked
    on groups of fixture lines cut and altered and of lines made to run a value on from one line into
    the next, to hold two values, or to nest right at the limit. (It may refuse what each line would
    pass, such as a line ending in a space: then the lines are checked one by one.)"""
    import random

    from inspector.recording.line_parse import MAX_NESTING, usual_line, usual_lines, utf8

    def deep(brackets: int) -> bytes:
        return b'{"kind":"value","value":' + b"[" * (brackets - 1) + b"]" * (brackets - 1) + b"}"

    hostile = [
        b'{"kind":"a","x":[{}',  # an array left open, closed on the next line
        b'{"kind":"b"}]}',
        b'{"kind":"c"}{"kind":"d"}',  # two values on one line (would make up the count)
        b'{"kind":"e"} {"kind":"f"}',
        b'{"kind":"g","s":"}',  # a string left open at the line's end
        b'{"kind":"h"}"}',
        b'{"kind":"i","x":{}',  # an object left open
        b"}",
        b'{"kind":"j"} ',
        deep(MAX_NESTING),
        deep(MAX_NESTING + 1),
    ]
    assert usual_line(deep(MAX_NESTING)) and not usual_line(deep(MAX_NESTING + 1))
    for run_on in ([hostile[0], hostile[1], hostile[2]], [hostile[6], hostile[7], hostile[3]]):
        assert not usual_lines(b"".join(line + b"\n" for line in run_on))  # lines as many as objects
    pool = [line for line in _cut_and_altered(17) if utf8(line)] + hostile * 40
    good = [line for line in pool if usual_line(line)]
    rng = random.Random(17)
    passed = 0
    for _ in range(3000):
        source = good if rng.random() < 0.5 else pool
        group = [rng.choice(source) for _ in range(rng.randint(1, 6))]
        if usual_lines(b"".join(line + b"\n" for line in group)):
            assert all(usual_line(line) for line in group), group
            passed += 1
    assert 300 < passed < 2700  # the groups hold both
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
    for path in sorted(fixtures.glob("*.jsonl")):
        lines = path.read_bytes().splitlines(keepends=True)
        assert usual_lines(b"".join(lines[1:])), path.name  # every line after the header, at once


def test_an_event_line_means_what_json_loads_reads_in_it() -> None:
    """A step line is decoded and checked by msgspec; what its parser refuses and `json.loads` reads
    (NaN, a lone surrogate escape) is checked the same way from `json.loads`'s values, so every line
    decodes to the record its JSON means, or fails as `json.loads` and the check together would."""
    from inspector.recording.format import decode_line, line_from

    def outcome(parse: Any, raw: bytes) -> str:
        try:
            return repr(parse(raw))
        except ValueError:  # (not JSON, or no valid event: which is found first may differ)
            return "error"

    def from_json_loads(raw: bytes) -> Any:
        return line_from(json.loads(raw))

    special = [
        b'{"kind":"step","index":0,"nodes":["a"],"t":0,"budget":{},"state":{"x":NaN,"s":"\\ud800"},"full":true}',
        b'{"kind":"value","value":"\\udfff"}',
    ]
    for raw in [*special, *_cut_and_altered(17)]:
        assert outcome(decode_line, raw) == outcome(from_json_loads, raw), raw
    state = decode_line(special[0]).state
    assert state["x"] != state["x"] and state["s"] == "\ud800"  # NaN, the lone surrogate


def _spoil_first(run_file: Path, kind: bytes, old: bytes, new: bytes) -> int:
    """Replace `old` with `new` in the first line of `kind`; that line's 1-based number."""
    lines = run_file.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(b'{"kind":"' + kind + b'"'))
    lines[at] = lines[at].replace(old, new, 1)
    run_file.write_bytes(b"".join(lines))
    return at + 1


def test_a_line_that_is_no_valid_event_is_named_with_the_field_at_fault(run_file: Path) -> None:
    line_no = _spoil_first(run_file, b"step", b'"nodes":', b'"nodes":"chat","was":')
    with pytest.raises(RunFileError) as info:
        read_run(run_file, check_limit=0).steps[0]
    assert info.value.line_no == line_no
    assert "is not a valid event (nodes: Expected `array`, got `str`)" in str(info.value)


def test_a_header_whose_topology_is_malformed_says_where(run_file: Path) -> None:
    header, rest = run_file.read_bytes().split(b"\n", 1)
    document = json.loads(header)
    del document["topology"]["nodes"]
    run_file.write_bytes(json.dumps(document).encode() + b"\n" + rest)
    with pytest.raises(RunFileError, match=r"the header is malformed: topology: nodes: Field required"):
        read_run(run_file)


def test_a_file_with_broken_utf8_in_a_line_names_that_line(run_file: Path) -> None:
    line_no = _spoil_first(run_file, b"value", b'"content":"', b'"content":"\xff')
    with pytest.raises(RunFileError) as info:
        read_run(run_file)
    assert info.value.line_no == line_no


def test_lines_starting_are_the_complete_lines_read_at_open(run_file: Path) -> None:
    """Out-of-band lines are found in the bytes read at open: in file order, whole lines only, and not
    one appended after the run was opened."""
    edit = b'{"kind":"edit","step":1,"path":"x","old":1,"new":2}'
    data = run_file.read_bytes().splitlines(keepends=True)
    data[3:3] = [edit + b"\n"]
    data.append(edit.replace(b'"step":1', b'"step":5') + b"\n")
    data.append(b'{"kind":"edit","step":9')  # cut off: not a line yet
    run_file.write_bytes(b"".join(data))
    run = read_run(run_file)
    with run_file.open("ab") as more:
        more.write(b'\n{"kind":"edit","step":7,"path":"x","old":1,"new":2}\n')
    assert run.lines_starting(b'{"kind":"edit"') == [edit, edit.replace(b'"step":1', b'"step":5')]
    assert run.lines_starting(b'{"kind":"aborted"') == []
