"""`inspector receive`: OTLP/HTTP in (protobuf from the SDK's exporter, JSON by hand), run files out."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.otel.exporters import request_lines, run_spans, send_run
from inspector.otel.receiver import Receiver
from inspector.recording import read_run

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    server = Receiver(tmp_path / "runs", port=0, max_bytes=1_000_000)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def test_an_exported_run_arrives_as_its_run_file(
    receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    sent, warning = send_run(read_run(RUNS / "approval.jsonl"), receiver.url, content=True)
    assert warning is None and sent > 0
    files = sorted(receiver.folder.glob("*.jsonl"))
    assert [f.name for f in files] == ["approval.jsonl"]  # two traces (a resume), one run
    main(["show", str(files[0])])
    received = capsys.readouterr().out
    main(["show", str(RUNS / "approval.jsonl")])
    assert received == capsys.readouterr().out


def test_otlp_json_is_taken_too_and_bad_bodies_are_refused(receiver: Receiver) -> None:
    body = request_lines(run_spans(read_run(RUNS / "weather.jsonl")))[0].encode()

    def post(data: bytes, kind: str = "application/json", path: str = "/v1/traces") -> int:
        request = urllib.request.Request(receiver.url + path, data=data, headers={"Content-Type": kind})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code

    assert post(body) == 200
    assert [s.nodes for s in read_run(receiver.folder / "weather.jsonl").steps] == [
        ("chat",),
        ("tools",),
        ("chat",),
    ]
    assert post(b"{not json") == 400
    assert post(b"\x0a\xff\xff", "application/x-protobuf") == 400
    import http.client

    connection = http.client.HTTPConnection(receiver.url.removeprefix("http://"), timeout=5)
    connection.putrequest("POST", "/v1/traces")
    connection.putheader("Content-Length", str(10**9))  # announced, never sent: refused unread
    connection.endheaders()
    assert connection.getresponse().status == 413
    connection.close()
    assert post(body, path="/v1/logs") == 404


def test_receive_listens_on_loopback_only(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "receive", "--port", "0", "-o", str(tmp_path / "out")],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "receiving OTLP/HTTP on http://127.0.0.1:" in line
        url = line.split(" on ")[1].split("/v1/traces")[0]
        assert send_run(read_run(RUNS / "weather.jsonl"), url)[1] is None
        assert (
            json.loads((tmp_path / "out" / "weather.jsonl").read_text().splitlines()[0])["run_id"]
            == "weather"
        )
    finally:
        process.terminate()
        process.wait(10)
        if process.stderr is not None:
            process.stderr.close()
