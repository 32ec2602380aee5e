"""Mail: a multipart .eml with an attachment and an mbox, captured with their headers as provenance,
quoted replies folded, attachments as artifacts of their own; a nested-multipart bomb refused."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from export_fixtures import found, multipart_mail
from test_capture import snapshot, source_files

from stigmergy.capture.mail.message import fold_quotes
from stigmergy.pages.source import parse_source_page
from stigmergy.repo.evidence import LocalEvidenceStore

REPLY_BODY = """Sounds good, Friday it is.

Bob

On Tue, 3 Mar 2026 at 10:15, Ann Lee <ann@example.com> wrote:
> Hi Bob,
>
> We moved the Atlas launch to Friday 6 March.
>
> Ann
"""


def _page(wiki: Path, source_path: str):  # noqa: ANN202
    return parse_source_page((wiki / source_path).read_text(), source_path)


def test_multipart_mail_with_attachment_is_captured_filed_and_found(wiki: Path, tmp_path: Path) -> None:
    eml = tmp_path / "launch.eml"
    eml.write_bytes(multipart_mail())
    code, out, err = run_cli(["capture", str(eml), "--json"], cwd=wiki)
    assert code == 0, out + err
    [c] = json.loads(out)["captures"]
    assert c["status"] == "filed" and c["pages"]
    page = _page(wiki, c["source_path"])
    assert page.title == "Atlas launch moved to Friday"
    assert page.submitted_by == "Ann Lee <ann@example.com>" and page.occurred_at == "2026-03-03T10:15:00+00:00"
    assert page.metadata["message_id"] == "<atlas-1@example.com>"
    assert page.metadata["to"] == ["Bob Ray <bob@example.com>", "team@example.com"]
    assert page.text.startswith("From: Ann Lee (ann@example.com)\nTo: Bob Ray (bob@example.com), team@example.com\n")
    assert "We moved the Atlas launch to Friday 6 March." in page.text
    assert page.text.count("Friday 6 March") == 1  # the HTML twin of the text part is not a second body
    assert "## Attachment: runbook.txt\n\nAttached runbook: rotate the Halden keys every 90 days." in page.text
    message, attachment = page.artifacts
    assert message.media_type == "message/rfc822" and attachment.media_type == "text/plain"
    store = LocalEvidenceStore(wiki / ".stigmergy" / "objects")
    assert store.get(attachment.sha256) == b"Attached runbook: rotate the Halden keys every 90 days.\n"
    assert run_cli(["fsck"], cwd=wiki)[0] == 0
    hits = found(wiki, "rotate the Halden keys")
    assert any("Halden" in snippet and "90 days" in snippet for _, snippet in hits), hits


def test_quoted_replies_are_folded_and_the_original_keeps_them(wiki: Path, tmp_path: Path) -> None:
    folded = fold_quotes(REPLY_BODY)
    assert folded.split("\n")[:4] == [
        "Sounds good, Friday it is.", "", "Bob", "",
    ]
    assert "[quoted reply folded: 3 lines — On Tue, 3 Mar 2026 at 10:15, Ann Lee <ann@example.com> wrote]" in folded
    assert "Friday 6 March" not in folded
    outlook = "Agreed.\n\n-----Original Message-----\nFrom: Ann\nSent: Tuesday\nSubject: x\n\nold text\n"
    assert fold_quotes(outlook) == "Agreed.\n\n[earlier message folded: 5 lines]"
    assert fold_quotes("> only a quote\n") == "> only a quote\n"  # nothing else: nothing is folded
    reply = tmp_path / "reply.eml"
    reply.write_bytes(multipart_mail(subject="Re: Atlas launch moved to Friday", message_id="<atlas-2@example.com>",
                                     in_reply_to="<atlas-1@example.com>", body=REPLY_BODY,
                                     from_="Bob Ray <bob@example.com>"))
    code, out, _ = run_cli(["capture", str(reply), "--json"], cwd=wiki)
    [c] = json.loads(out)["captures"]
    page = _page(wiki, c["source_path"])
    assert page.metadata["in_reply_to"] == "<atlas-1@example.com>"
    assert "Friday 6 March" not in page.text.split("## Attachment")[0]


def mbox_of(box: Path, n: int) -> Path:
    mails = [multipart_mail(subject=f"Weekly note {k}", message_id=f"<w{k}@example.com>",
                            body=f"Week {k}: the Atlas team closed {10 + k} tickets.\n") for k in range(n)]
    box.write_bytes(b"".join(b"From ann@example.com Tue Mar  3 10:15:00 2026\n" + m.replace(b"\r\n", b"\n") + b"\n"
                             for m in mails))
    return box


def test_mbox_is_one_capture_per_message_idempotently(wiki: Path, tmp_path: Path) -> None:
    box = mbox_of(tmp_path / "team.mbox", 3)
    code, out, err = run_cli(["capture", str(box), "--json"], cwd=wiki)
    assert code == 0, out + err
    captures = json.loads(out)["captures"]
    assert [c["locator"].rsplit(":", 1)[1] for c in captures] == ["1", "2", "3"]
    titles = sorted(_page(wiki, c["source_path"]).title for c in captures)
    assert titles == ["Weekly note 0", "Weekly note 1", "Weekly note 2"]
    log = snapshot(wiki)["log"]
    code, out, _ = run_cli(["capture", str(box), "--json"], cwd=wiki)
    assert code == 0 and {c["status"] for c in json.loads(out)["captures"]} == {"exists"}
    assert snapshot(wiki)["log"] == log


def _nested_bomb(depth: int) -> bytes:
    head = b"From: x@example.com\r\nSubject: bomb\r\nMIME-Version: 1.0\r\n"
    parts, tail = [], []
    for n in range(depth):
        parts.append(b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n))
        tail.append(b"\r\n--b%d--\r\n" % n)
    return head + b"".join(parts) + b"Content-Type: text/plain\r\n\r\nboom\r\n" + b"".join(reversed(tail))


def test_mail_bombs_are_refused_with_one_line_and_nothing_stored(wiki: Path, tmp_path: Path) -> None:
    for name, data, rule in (("deep.eml", _nested_bomb(5000), "mail-bomb"), ("nested.eml", _nested_bomb(40), "mail-bomb"),
                             ("box.mbox", b"not an mbox", "malformed")):
        path = tmp_path / name
        path.write_bytes(data)
        before = snapshot(wiki)
        code, out, err = run_cli(["capture", str(path)], cwd=wiki)
        assert code == 1
        assert len([ln for ln in (out + err).splitlines() if f"[{rule}]" in ln]) == 1, out + err
        assert snapshot(wiki) == before and not source_files(wiki)


def test_an_unreadable_attachment_is_named_and_kept(wiki: Path, tmp_path: Path) -> None:
    eml = tmp_path / "zip.eml"
    eml.write_bytes(multipart_mail(b"PK\x03\x04" + b"\x00" * 40, "bundle.zip", ("application", "zip"),
                                   message_id="<z@example.com>"))
    code, out, _ = run_cli(["capture", str(eml), "--json"], cwd=wiki)
    assert code == 0
    [c] = json.loads(out)["captures"]
    page = _page(wiki, c["source_path"])
    assert "## Attachment: bundle.zip" in page.text and "ZIP archive" in page.text
    assert page.artifacts[1].bytes == 44
