"""The `inspector` command starts without the recording's writing side: reading a run (`show`, `diff`,
`replay`) needs the reader only, and every command pays for what the command module imports at start."""

import json
import subprocess
import sys

WRITING = (
    "inspector.recording.recorder",
    "inspector.recording.run_writer",
    "inspector.recording.encode",
    "inspector.recording.redact",
    "inspector.recording.state_track",
)


def _loaded_after(code: str) -> set[str]:
    program = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    return set(json.loads(result.stdout))


def test_the_command_and_show_load_no_recorder() -> None:
    loaded = _loaded_after("import inspector.cli, inspector.cli.show")
    assert "inspector.recording.reader" in loaded
    assert loaded.isdisjoint(WRITING), sorted(loaded.intersection(WRITING))


def test_the_package_still_hands_out_the_recorder_when_asked() -> None:
    loaded = _loaded_after(
        "from inspector.recording import DEFAULT_REDACT_KEYS, Recorder, Redaction\n"
        "assert Recorder.__module__ == 'inspector.recording.recorder'\n"
        "assert Redaction.__module__ == 'inspector.recording.redact' and DEFAULT_REDACT_KEYS"
    )
    assert "inspector.recording.recorder" in loaded


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import inspector.recording

    try:
        inspector.recording.NoSuchName  # pyright: ignore[reportAttributeAccessIssue]  # noqa: B018
    except AttributeError as error:
        assert "NoSuchName" in str(error)
    else:
        raise AssertionError("inspector.recording.NoSuchName did not raise AttributeError")
