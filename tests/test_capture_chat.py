"""Chat exports: a Slack export written in Slack's documented format, captured as one source page per
channel and day, filed, indexed and found; private channels only through [channels]; hostile zips."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest
from conftest import run_cli
from export_fixtures import discord_export, found, msg, slack_export
from test_capture import snapshot, source_files

from stigmergy.pages.source import parse_source_page

BOARD = """
[layers.board]
readers = ["test@example.com"]

[channels]
"#board" = "board"
"D01ANNBOB" = "board"
"""


def _capture(wiki: Path, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli(["capture", *args, "--json"], cwd=wiki)
    return code, json.loads(out)


def _pages(wiki: Path) -> dict[str, object]:
    return {p.title: p for p in (parse_source_page(f.read_text(), str(f.relative_to(wiki))) for f in
                                 sorted(wiki.rglob("sources/**/cap_*.md")))}


def test_slack_export_pages_threads_edits_deletions_files(wiki: Path, tmp_path: Path) -> None:
    export = slack_export(tmp_path / "acme-slack.zip")
    code, report = _capture(wiki, str(export))
    assert code == 1  # the private channel and the DM have no mapping: refused, the rest filed
    by_status = {c["locator"].split(":")[-1]: c for c in report["captures"]}
    assert by_status["general/2026-03-02.json"]["status"] == "filed"
    assert by_status["board/2026-03-02.json"]["rule"] == "private-channel"
    assert by_status["D01ANNBOB/2026-03-02.json"]["rule"] == "private-channel"
    pages = _pages(wiki)
    assert set(pages) == {"Slack #general, 2026-03-02", "Slack #general, 2026-03-03"}
    day1 = pages["Slack #general, 2026-03-02"]
    assert day1.text.split("\n")[:5] == [
        "- [09:14] Ann Lee: We decided to ship Atlas 2.0 on Friday @Bob Ray",
        "  - [09:20] Bob Ray: Agreed, release notes by Thursday",
        "  - [2026-03-03 08:30] Cee Okafor: Late reply: QA signed off",  # the thread stays together
        "- [09:40] Cee Okafor: Typo here (edited)",
        "- [10:05] Bob Ray: Plan attached [files: atlas-plan.pdf]",
    ]
    assert "deleted" not in day1.text and "joined" not in day1.text  # deletion honoured, joins dropped
    assert day1.layer == "public" and day1.occurred_at == "2026-03-02"
    assert day1.metadata["chat"]["authors"] == ["Ann Lee", "Bob Ray", "Cee Okafor"]
    assert day1.submitted_by == "Test Person <test@example.com>"  # several authors: each named on its line
    day2 = pages["Slack #general, 2026-03-03"]
    assert day2.text == "- [09:00] Ann Lee: Budget for Atlas is 45k (edited)\n"  # message_changed applied
    assert day2.submitted_by == "Ann Lee <ann@example.com>"  # one author wrote the whole page
    assert "Late reply" not in day2.text  # the reply lives with its thread only
    # Filed, indexed and found by search.
    assert any(p.startswith("wiki/") for c in report["captures"] for p in c["pages"])
    hits = found(wiki, "Atlas budget 45k")
    assert any("45k" in snippet for _, snippet in hits), hits


def test_recapture_is_idempotent_and_a_mapping_files_private_channels_in_their_layer(wiki: Path, tmp_path: Path) -> None:
    export = slack_export(tmp_path / "acme-slack.zip")
    (wiki / "stigmergy.toml").write_text((wiki / "stigmergy.toml").read_text() + BOARD)
    code, first = _capture(wiki, str(export))
    assert code == 0, first
    layers = {c["locator"].split(":")[-1]: c["source_path"] for c in first["captures"]}
    assert layers["board/2026-03-02.json"].startswith("layers/board/sources/")
    assert layers["D01ANNBOB/2026-03-02.json"].startswith("layers/board/sources/")
    dm = _pages(wiki)["Direct messages, Ann Lee and Bob Ray, 2026-03-02"]
    assert dm.layer == "board" and dm.submitted_by == "Bob Ray <bob@example.com>"
    before = snapshot(wiki)
    code, again = _capture(wiki, str(export))
    assert code == 0 and {c["status"] for c in again["captures"]} == {"exists"}
    assert snapshot(wiki)["log"] == before["log"]
    # A reader of public only may not file the board's channel: refused, the public days unchanged.
    code, out, _ = run_cli(["capture", str(export), "--as", "intern@example.com", "--force", "--json"], cwd=wiki)
    rules = {c["locator"].split(":")[-1]: c.get("rule") for c in json.loads(out)["captures"]}
    assert rules["board/2026-03-02.json"] == "not-a-reader"


def test_unlisted_folder_is_private_until_mapped(wiki: Path, tmp_path: Path) -> None:
    d = "2026-04-01"
    export = slack_export(tmp_path / "x.zip", {"general": {d: [msg("U01ANN", d, 9, 0, "Public hello")]}},
                          extra_members={f"secret-ops/{d}.json": json.dumps([msg("U01ANN", d, 9, 5, "hidden plan")])})
    code, report = _capture(wiki, str(export))
    assert code == 1
    refused = [c for c in report["captures"] if c["status"] == "failed"]
    assert [c["rule"] for c in refused] == ["private-channel"]
    assert all("hidden plan" not in f.read_text() for f in source_files(wiki))


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("users.json", "[]")
        z.writestr("channels.json", "[]")
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _declare_size(data: bytes, member: str, size: int) -> bytes:
    """The zip with `member`'s uncompressed size in the central directory rewritten (a lying header)."""
    at = data.index(b"PK\x01\x02")
    out = bytearray(data)
    while at != -1:
        name_len = struct.unpack("<H", out[at + 28 : at + 30])[0]
        if out[at + 46 : at + 46 + name_len] == member.encode():
            out[at + 24 : at + 28] = struct.pack("<I", size)
        at = out.find(b"PK\x01\x02", at + 4)
    return bytes(out)


@pytest.mark.parametrize(("name", "data", "rule"), [
    ("climb.zip", _zip({"../../etc/general/2026-01-01.json": b"[]"}), "unsafe-path"),
    ("abs.zip", _zip({"/tmp/general/2026-01-01.json": b"[]"}), "unsafe-path"),
    ("huge.zip", _declare_size(_zip({"general/2026-01-01.json": b"[]"}), "general/2026-01-01.json", 2 * 1024**3),
     "too-large"),
    ("bomb.zip", _zip({"general/2026-01-01.json": b"[" + b" " * 8_000_000 + b"]"}), "zip-bomb"),
    ("notslack.zip", _zip({"readme.txt": b"x"}).replace(b"users.json", b"usersxjson"), "unsupported-type"),
])
def test_hostile_exports_are_refused_with_one_line_and_nothing_stored(wiki: Path, tmp_path: Path, name: str,
                                                                     data: bytes, rule: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    before = snapshot(wiki)
    code, out, err = run_cli(["capture", str(path)], cwd=wiki)
    assert code == 1
    lines = [ln for ln in (out + err).splitlines() if f"[{rule}]" in ln]
    assert len(lines) == 1, out + err
    assert snapshot(wiki) == before


def test_a_chat_page_reads_back_to_the_same_source_text(tmp_path: Path) -> None:
    # What import replays is the page's own bytes: they alone give the same readable text.
    from stigmergy.capture.chat.slack import read_export
    from stigmergy.capture.extract import CHAT, extract
    from stigmergy.settings import CaptureSettings

    export = slack_export(tmp_path / "a.zip")
    pages = read_export(export.read_bytes(), "a.zip", CaptureSettings())
    for locator, page in pages:
        one = extract(page.to_bytes(), locator, CaptureSettings(), media_type=CHAT)
        two = extract(page.to_bytes(), "renamed.json", CaptureSettings())  # recognised by its bytes
        assert one.text == two.text and one.metadata == two.metadata
    assert len({p.to_bytes() for _, p in pages}) == len(pages)


def test_discord_export_is_one_page_per_day_with_replies_nested(wiki: Path, tmp_path: Path) -> None:
    code, report = _capture(wiki, str(discord_export(tmp_path / "launch.json")))
    assert code == 0, report
    pages = _pages(wiki)
    assert pages["Discord #launch, 2026-03-02"].text == (
        "- [09:14] Ann Lee: The Orion beta opens on 9 March @Bob Ray\n"
        "  - [09:20] Bob Ray: I'll send the invites\n"
        "  - [2026-03-03 08:00] Ann Lee: Invites went out\n")
    assert pages["Discord #launch, 2026-03-03"].text == "- [10:00] Bob Ray: Orion pricing is 12 euros (edited) [files: pricing.xlsx]\n"
    assert pages["Discord #launch, 2026-03-03"].submitted_by == "Bob Ray"
    code, again = _capture(wiki, str(discord_export(tmp_path / "launch.json")))
    assert {c["status"] for c in again["captures"]} == {"exists"}
    code, dm = _capture(wiki, str(discord_export(tmp_path / "dm.json", "DirectTextChat")))
    assert code == 1 and {c["rule"] for c in dm["captures"]} == {"private-channel"}


def test_export_and_import_replay_chat_pages_and_mbox_messages_as_they_were(wiki: Path, tmp_path: Path) -> None:
    from test_capture_mail import mbox_of

    (wiki / "stigmergy.toml").write_text((wiki / "stigmergy.toml").read_text() + BOARD)
    assert _capture(wiki, str(slack_export(tmp_path / "a.zip")))[0] == 0
    assert _capture(wiki, str(mbox_of(tmp_path / "team.mbox", 2)))[0] == 0
    assert run_cli(["export", str(tmp_path / "bundle")], cwd=wiki)[0] == 0
    other = tmp_path / "other"
    assert run_cli(["init", str(other)], cwd=tmp_path)[0] == 0
    (other / "stigmergy.toml").write_text((other / "stigmergy.toml").read_text() + BOARD)
    code, out, err = run_cli(["import", str(tmp_path / "bundle")], cwd=other)
    assert code == 0, out + err
    def shape(root: Path) -> dict:
        return {p.title: (p.text, p.layer, p.submitted_by, p.metadata) for p in _pages(root).values()}
    assert shape(other) == shape(wiki) and len(shape(wiki)) == 6


def test_a_deleted_message_leaves_nothing_but_its_place_in_the_thread(wiki: Path, tmp_path: Path) -> None:
    d = "2026-05-04"
    parent = msg("U01ANN", d, 9, 0, "the launch code is swordfish", thread_ts="0", reply_count=1)
    parent.update(subtype="tombstone", thread_ts=parent["ts"])
    reply = msg("U02BOB", d, 9, 5, "noted", thread_ts=parent["ts"])
    export = slack_export(tmp_path / "t.zip", {"general": {d: [parent, reply]}})
    assert _capture(wiki, str(export))[0] == 0
    page = _pages(wiki)[f"Slack #general, {d}"]
    assert page.text == "- [09:00] (message deleted)\n  - [09:05] Bob Ray: noted\n"
    from stigmergy.repo.evidence import LocalEvidenceStore

    original = LocalEvidenceStore(wiki / ".stigmergy" / "objects").get(page.artifacts[0].sha256)
    assert b"swordfish" not in original and b"U01ANN" not in original


def test_a_credential_in_a_message_refuses_that_day_only(wiki: Path, tmp_path: Path) -> None:
    d1, d2 = "2026-05-04", "2026-05-05"
    export = slack_export(tmp_path / "s.zip", {"general": {
        d1: [msg("U01ANN", d1, 9, 0, "slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx for the bot")],
        d2: [msg("U01ANN", d2, 9, 0, "rotated the bot token")]}})
    code, report = _capture(wiki, str(export))
    assert code == 1
    rules = {c["locator"].rsplit("/", 1)[1]: (c["status"], c["rule"]) for c in report["captures"]}
    assert rules == {f"{d1}.json": ("failed", "secret"), f"{d2}.json": ("filed", None)}
    assert all("xoxb" not in f.read_text() for f in source_files(wiki))
