"""Every parser on the capture path is linear or bounded (issue 18): a 50,000-backtick line, HTML with
20,000 nested lists, a forged DOCX list level. No timing here (bench/parsers.py times the worst inputs
beside plain text of the same size); these prove the bounds themselves: the credential scan never hands
the detector more than a window of a line and still finds what a window holds, nested lists are refused
at a limit the error names, and a list level cannot blow up the text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import run_cli
from test_security_input import _state

from stigmergy.capture.extractors.html_text import MAX_LIST_DEPTH
from stigmergy.capture.inputs import InputItem
from stigmergy.capture.queue import read_input
from stigmergy.capture.secrets import OVERLAP, WINDOW, find_secrets, windows
from stigmergy.errors import InputError
from stigmergy.settings import Settings


def _read(name: str, data: bytes):  # noqa: ANN202
    return read_input(InputItem(locator=name, read=lambda: data, size=len(data)), Settings().capture)


@pytest.mark.parametrize("line", ["`" * 50_000, "`a" * 25_000, " ".join(["word"] * 20_000),
                                  "x" * 3_000 + " " + "y " * 4_000, "a" * 10_000])
def test_a_long_line_is_scanned_in_bounded_windows_that_cover_it(line: str) -> None:
    parts = windows(line)
    assert all(len(p) <= WINDOW for p in parts)
    assert sum(len(p) for p in parts) <= 2 * len(line)  # linear: each character is scanned at most twice
    # Every word (up to OVERLAP characters) lies whole in one window.
    for word in {w for w in line.split(" ") if 0 < len(w) <= OVERLAP}:
        assert any(f" {word} " in f" {p} " for p in parts), word
    assert parts[0] == line[: len(parts[0])] and line.endswith(parts[-1])


@pytest.mark.parametrize("at", [0, 700, 1000, 1020, 5000, 49_000])
def test_a_credential_anywhere_in_a_long_line_is_still_found(at: int) -> None:
    filler = ("lorem ipsum dolor sit amet " * 2000)[:50_000]
    line = filler[:at] + " AKIAIOSFODNN7EXAMPLE " + filler[at:]
    kinds = {f.kind for f in find_secrets(line)}
    assert "AWS Access Key" in kinds
    prose = filler[:at] + " the db password is Tr0ub4dor-3-horse " + filler[at:]
    assert find_secrets(prose), at


def test_a_50000_backtick_line_captures_like_any_text(wiki: Path, tmp_path: Path) -> None:
    path = tmp_path / "ticks.md"
    path.write_text("# Ticks\n\n" + "`" * 50_000 + "\n\nHarbor Logistics moved 4,000 shipments in April 2026.\n")
    code, out, err = run_cli(["capture", str(path)], cwd=wiki)
    assert code == 0, out + err


def _nested(depth: int, word: str = "item") -> bytes:
    return ("<html><body><p>Lead paragraph.</p>" + f"<ul><li>{word}" * depth + "</li></ul>" * depth
            + "</body></html>").encode()


def test_html_lists_nested_past_the_limit_are_refused_naming_it(wiki: Path, tmp_path: Path) -> None:
    assert _read("ok.html", _nested(MAX_LIST_DEPTH)).extraction.text.count("- item") == MAX_LIST_DEPTH
    with pytest.raises(InputError) as caught:
        _read("deep.html", _nested(20_000))
    assert caught.value.rule == "html-depth" and str(MAX_LIST_DEPTH) in caught.value.message
    # Through the CLI: one line naming the file, the rule and the limit; nothing stored; the batch lands.
    (tmp_path / "deep.html").write_bytes(_nested(20_000))
    (tmp_path / "fine.md").write_text("# Fine\n\nBorealis signed a carrier contract in May 2026.\n")
    before = _state(wiki)
    code, out, err = run_cli(["capture", str(tmp_path / "deep.html")], cwd=wiki)
    assert code == 1, out + err
    assert "deep.html" in out + err and "html-depth" in out + err and f"over {MAX_LIST_DEPTH} deep" in out + err
    assert _state(wiki) == before
    code, out, err = run_cli(["capture", str(tmp_path / "deep.html"), str(tmp_path / "fine.md")], cwd=wiki)
    assert "filed" in out, out + err


def test_a_forged_docx_list_level_is_bounded() -> None:
    import docx
    from docx.oxml.ns import qn
    from docx.oxml.parser import OxmlElement

    document = docx.Document()
    document.add_paragraph("Beacon rollout", style="Title")
    p = document.add_paragraph("Umeå depot", style="List Bullet")
    ppr = p._p.get_or_add_pPr()
    num = OxmlElement("w:numPr")
    ilvl, num_id = OxmlElement("w:ilvl"), OxmlElement("w:numId")
    ilvl.set(qn("w:val"), "999999999")
    num_id.set(qn("w:val"), "1")
    num.append(ilvl)
    num.append(num_id)
    ppr.append(num)
    out = io.BytesIO()
    document.save(out)
    text = _read("forged.docx", out.getvalue()).extraction.text
    line = next(ln for ln in text.splitlines() if "Umeå" in ln)
    assert line == "  " * 8 + "- Umeå depot"
