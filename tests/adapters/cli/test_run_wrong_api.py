"""`quizbot run` with telegram.api_base_url at a web server that is not the Bot API."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from adapters.cli.main import main

PAGE = ("<!DOCTYPE HTML>\n<html lang=\"en\">\n<head><title>Error response</title></head>\n"
        "<body><h1>Error response</h1><p>Message: Unsupported method.</p></body>\n</html>\n")


class _NotTheBotAPI(BaseHTTPRequestHandler):
    """A web server (nginx, a proxy, python -m http.server) answering an HTML error page."""

    def do_POST(self) -> None:
        body = PAGE.encode()
        self.send_response(501)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotTheBotAPI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_web_page_instead_of_the_bot_api_is_one_line_a_try(
        tmp_path: Path, web_server: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Each try printed PTB's ERROR with the whole page and a JSONDecodeError traceback,
    # then a warning quoting the page again; the final error quoted it a third time.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path}/q.db\n"
                      f"telegram:\n  api_base_url: {web_server}/bot\n"
                      "discord:\n  enabled: false\nstartup_timeout: 1\n")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123456:AAwrongApiSecretToken_abcdef")
    assert main(["run", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "DOCTYPE" not in err and "Unsupported method" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"quizbot: the Telegram Bot API at {web_server}/bot could not be "
                           "reached in 1 s")
    assert "Not Implemented (501). Parsing the server response <" in last
    assert last.endswith("check telegram.api_base_url and the network, or raise "
                         "startup_timeout")
    assert "Can not load invalid JSON data" in err  # the library's line stays, one line
