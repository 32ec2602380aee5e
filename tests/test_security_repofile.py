"""The repository's own file chooses too much (issue 18): a committed `stigmergy.toml` may not send captured
material to a vendor's public endpoint the user never named, nor make a directory capture take dot-files,
`.git/` or what the user's Git rules ignore; layer names that look alike are refused; a file name's
invisible direction controls are printed escaped."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from conftest import git, run_cli

from stigmergy.errors import ConfigError
from stigmergy.settings import load_settings


class _Proxy:
    """A TCP listener on 127.0.0.1 that every HTTP(S) request of the process is sent to (HTTPS_PROXY): it
    counts connections and answers none, so a request to a vendor's endpoint would be seen here."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.connections = 0
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def close(self) -> None:
        self._stop = True
        self.thread.join(2)
        self.sock.close()


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    p = _Proxy()
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, p.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    yield p
    p.close()


def _append(wiki: Path, text: str) -> None:
    with (wiki / "stigmergy.toml").open("a", encoding="utf-8") as fh:
        fh.write(text)
    git(wiki, "commit", "-qam", "a change from someone who can push")


def _set_section(wiki: Path, section: str, body: str) -> None:
    """Replace (or add) `[section]` of the repository file."""
    text = (wiki / "stigmergy.toml").read_text(encoding="utf-8")
    head, sep, rest = text.partition(f"\n[{section}]\n")
    if sep:
        after = rest.split("\n[", 1)
        text = head + f"\n[{section}]\n{body}" + ("\n[" + after[1] if len(after) > 1 else "")
    else:
        text += f"\n[{section}]\n{body}"
    (wiki / "stigmergy.toml").write_text(text, encoding="utf-8")
    git(wiki, "commit", "-qam", "a change from someone who can push")


# ---------------------------------------------------------------- model kinds without the user's endpoint


@pytest.mark.parametrize(("section", "kind"), [("planner", "openai"), ("planner", "anthropic"),
                                               ("answer", "anthropic"), ("answer", "openai")])
def test_a_model_kind_from_the_repository_alone_sends_nothing(wiki: Path, proxy: _Proxy, section: str,
                                                               kind: str) -> None:
    _set_section(wiki, section, f'kind = "{kind}"\nmodel = "some-model"\n')
    head = git(wiki, "rev-parse", "HEAD")
    if section == "planner":
        code, out, err = run_cli(["capture", "--text", "Harbor Logistics moved 4,000 shipments in April 2026."],
                                 cwd=wiki)
    else:
        code, out, err = run_cli(["ask", "How many shipments did Harbor Logistics move?"], cwd=wiki)
    assert code == 2, out + err
    line = next(ln for ln in err.splitlines() if ln.startswith("error:"))
    assert f"{section}.kind" in line and f"{section}.base_url" in line and "nothing was sent" in line
    assert proxy.connections == 0
    if section == "planner":
        assert git(wiki, "rev-parse", "HEAD") == head  # refused before anything was stored
    # The user's own choice stands: their kind (without a base_url, the vendor's endpoint is theirs to pick),
    # or an endpoint of theirs under the repository's kind.
    user = {f"STIGMERGY_{section.upper()}__KIND": kind}
    assert section not in load_settings(wiki, env=user).repository_llm
    mine = {f"STIGMERGY_{section.upper()}__BASE_URL": "http://127.0.0.1:9/v1"}
    assert section not in load_settings(wiki, env=mine).repository_llm
    with pytest.raises(ConfigError, match="nothing was sent"):
        load_settings(wiki, env={}).require_endpoint(section)


def test_answer_kind_planner_follows_the_planners_endpoint(wiki: Path, proxy: _Proxy) -> None:
    _set_section(wiki, "planner", 'kind = "openai"\nmodel = "some-model"\n')
    _set_section(wiki, "answer", 'kind = "planner"\n')
    code, out, err = run_cli(["ask", "Who moved shipments?"], cwd=wiki)
    assert code == 2 and "planner.base_url" in err, out + err
    assert proxy.connections == 0


# ---------------------------------------------------------------- what a directory capture takes


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "project"
    (proj / "docs").mkdir(parents=True)
    (proj / "docs/notes.md").write_text("# Notes\n\nHarbor Logistics moved 4,000 shipments in April 2026.\n")
    (proj / ".bash_history").write_text("export AWS_PROFILE=prod\nls -la\n")
    (proj / ".config").mkdir()
    (proj / ".config/tool.md").write_text("# Tool\n\nA dot-folder's note about the Harbor API.\n")
    git(proj, "init", "-q")
    (proj / ".gitignore").write_text("scratch/\n*.local.md\n")
    (proj / "scratch").mkdir()
    (proj / "scratch/draft.md").write_text("# Draft\n\nA draft the user keeps out of Git.\n")
    (proj / "mine.local.md").write_text("# Mine\n\nThe user's own scratch note.\n")
    return proj


def _taken(wiki: Path, proj: Path, *flags: str) -> list[str]:
    code, out, err = run_cli(["--json", "capture", "--no-file", *flags, str(proj)], cwd=wiki)
    assert code in (0, 1), out + err
    return sorted(c["locator"] for c in json.loads(out)["captures"])


def test_a_committed_include_all_takes_no_dot_file_git_folder_or_ignored_file(wiki: Path, tmp_path: Path) -> None:
    proj = _project(tmp_path)
    _set_section(wiki, "capture", 'include = ["*"]\nexclude = []\n')
    assert _taken(wiki, proj) == ["project/docs/notes.md"]
    # Only the person at the keyboard can ask for hidden and ignored files; `.git/` is never taken.
    taken = _taken(wiki, proj, "--include-hidden")
    assert "project/.bash_history" in taken and "project/scratch/draft.md" in taken
    assert "project/mine.local.md" in taken and "project/.config/tool.md" in taken
    assert not [t for t in taken if "/.git/" in t]


def test_a_folder_outside_any_git_tree_still_leaves_dot_files_out(wiki: Path, tmp_path: Path) -> None:
    proj = tmp_path / "plain"
    proj.mkdir()
    (proj / "a.md").write_text("# A\n\nBorealis signed a carrier contract in May 2026.\n")
    (proj / ".env").write_text("TOKEN=abc\n")
    _set_section(wiki, "capture", 'include = ["*"]\nexclude = []\n')
    assert _taken(wiki, proj) == ["plain/a.md"]


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("twin", ["Board", "ｂｏａｒｄ", "bоard", "BОARD"])
def test_layer_names_that_look_alike_are_refused_naming_both(wiki: Path, twin: str) -> None:
    _append(wiki, f'\n[layers.board]\nreaders = ["ceo@example.com"]\n\n[layers.{json.dumps(twin)}]\nreaders = ["*"]\n')
    code, out, err = run_cli(["status"], cwd=wiki)
    assert code == 2, out + err
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "'board'" in lines[0] and repr(twin) in lines[0], err
    assert "look-alike" in lines[0]


def test_a_layer_name_must_be_ascii(wiki: Path) -> None:
    _append(wiki, '\n[layers."bоard"]\nreaders = ["ceo@example.com"]\n')  # Cyrillic о, no twin
    code, out, err = run_cli(["status"], cwd=wiki)
    assert code == 2 and "ASCII" in err, out + err


@pytest.mark.parametrize("name", ["invoice\u202etxt.exe.md", "a\u2066b\u2069c.md", "x\u200fy\u061cz.md"])
def test_direction_controls_in_a_file_name_are_printed_escaped(wiki: Path, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("# Note\n\nHarbor Logistics moved 4,000 shipments in April 2026.\n")
    for args in (["capture", str(path)], ["--json", "capture", "--force", str(path)]):
        code, out, err = run_cli(args, cwd=wiki)
        assert code == 0, out + err
        for ch in "\u202e\u2066\u2069\u200f\u061c":
            assert ch not in out + err, (args, ascii(out + err))
    assert json.loads(out)["captures"][0]["locator"].endswith(name.encode("unicode_escape").decode("ascii"))
    source = next((wiki / "sources").rglob("cap_*.md")).read_text(encoding="utf-8")
    assert not any(ch in source for ch in "\u202e\u2066\u2069\u200f\u061c")
    # A directory capture escapes the same way.
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / name).write_text("# Other\n\nBorealis signed a carrier contract in May 2026.\n")
    code, out, err = run_cli(["capture", str(folder)], cwd=wiki)
    assert code == 0 and "\u202e" not in out + err and "\u2066" not in out + err, ascii(out + err)

