"""Extraction: every format on real files, titles and metadata, normal form, determinism, every
refusal rule, and the sample corpus (including the generated PDF/DOCX files)."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from stigmergy.capture.extract import (
    DOCX,
    EXTRACTOR_REVISION,
    HTML,
    MARKDOWN,
    PDF,
    TEXT,
    Extraction,
    extract,
    normalize_text,
)
from stigmergy.capture.extractors import html_text
from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
CORPUS = ROOT / "sample_corpus"
sys.path.insert(0, str(SCRIPTS))

import make_sample_docs  # noqa: E402
from tinypdf import build_pdf, layout  # noqa: E402

LIMITS = CaptureSettings()
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def _file(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _extract(path: Path, limits: CaptureSettings = LIMITS, media_type: str | None = None) -> Extraction:
    return extract(path.read_bytes(), path.name, limits, media_type)


def _refused(path: Path, limits: CaptureSettings = LIMITS, media_type: str | None = None) -> InputError:
    with pytest.raises(InputError) as info:
        _extract(path, limits, media_type)
    err = info.value
    assert err.locator == path.name
    assert "\n" not in err.message and f"[{err.rule}]" in err.message
    return err


def _two_page_pdf() -> bytes:
    text = "# Harbor launch\n\nHarbor API 1.0 is generally available.\n\n\\newpage\n\n## Numbers\n\nRevenue was £2.36M."
    return build_pdf(layout(text), title="Harbor launch memo", author="Ines", date="D:20260602090000Z")


def _docx(core_title: str = "") -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.title = core_title
    document.add_paragraph("Beacon G2 rollout", style="Title")
    document.add_heading("Scope", level=1)
    document.add_paragraph("Norrland Fresh gets 60 gateways.")
    document.add_paragraph("Umeå depot", style="List Bullet")
    document.add_paragraph("Jönköping depot", style="List Bullet 2")
    document.add_heading("Details", level=2)
    table = document.add_table(rows=2, cols=3)
    table.cell(0, 0).text = "Depot"
    table.cell(0, 1).text = "Gateways"
    table.cell(0, 2).text = "Owner"
    table.cell(1, 0).text = "Umeå"
    table.cell(1, 1).merge(table.cell(1, 2)).text = "60, Samuel"
    document.add_paragraph("Signed off by Maya Okafor.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# -- plain text and normal form -------------------------------------------------------------------


def test_text_is_normalised(tmp_path: Path) -> None:
    path = _file(tmp_path, "chat.txt", "line one  \r\nline\ttwo\x00\x07\r\n\r\n\r\n\r\nlast\u2028para\n\n\n")
    result = _extract(path)
    assert result.text == "line one\nline\ttwo\n\nlast\npara\n"
    assert (result.media_type, result.extractor, result.title, result.metadata, result.pages) == (
        TEXT,
        "text",
        None,
        {},
        None,
    )


def test_normal_form_invariants() -> None:
    text = normalize_text("\n\n  a \t\n\x0bb\x85c\ufeff\x1b[0m\n\n\n\n")
    assert text == "  a\n\nb\nc[0m\n"
    assert normalize_text(" \n\t\n") == ""


def test_text_encodings_declared_by_bom(tmp_path: Path) -> None:
    assert _extract(_file(tmp_path, "a.txt", b"\xef\xbb\xbfhello\n")).text == "hello\n"
    assert _extract(_file(tmp_path, "b.txt", "Inês\n".encode("utf-16"))).text == "Inês\n"
    assert _extract(_file(tmp_path, "c.txt", b"\xfe\xff" + "Inês".encode("utf-16-be"))).text == "Inês\n"


def test_unknown_extension_that_is_utf8_is_text(tmp_path: Path) -> None:
    result = _extract(_file(tmp_path, "notes.log", "2026-06-02 Harbor live\n"))
    assert (result.media_type, result.extractor) == (TEXT, "text")
    no_suffix = _extract(_file(tmp_path, "NOTES", "plain\n"))
    assert no_suffix.text == "plain\n"


def test_explicit_media_type_wins_over_name(tmp_path: Path) -> None:
    path = _file(tmp_path, "stdin.txt", "---\ntitle: From stdin\n---\nbody\n")
    assert _extract(path).metadata == {}
    result = _extract(path, media_type="text/markdown; charset=utf-8")
    assert (result.media_type, result.title, result.text) == (MARKDOWN, "From stdin", "body\n")


# -- Markdown -------------------------------------------------------------------------------------


def test_markdown_front_matter_becomes_metadata(tmp_path: Path) -> None:
    source = (
        "---\ntitle: Driftwood kickoff\ndate: 2026-01-12\nproject: Project Driftwood\n"
        "participants:\n  - Maya Okafor\n  - Grace Nakamura\n---\n\n# Kickoff notes\n\n## Decisions\n\n- Ship it.\n"
    )
    result = _extract(_file(tmp_path, "kickoff.md", source))
    assert result.metadata == {
        "title": "Driftwood kickoff",
        "date": "2026-01-12",
        "project": "Project Driftwood",
        "participants": ["Maya Okafor", "Grace Nakamura"],
    }
    assert result.title == "Driftwood kickoff"
    assert result.text == "# Kickoff notes\n\n## Decisions\n\n- Ship it.\n"
    assert "project:" not in result.text
    assert (result.media_type, result.extractor) == (MARKDOWN, "markdown")
    assert result.extractor_version.startswith(f"{EXTRACTOR_REVISION}+pyyaml-")


def test_markdown_front_matter_with_crlf(tmp_path: Path) -> None:
    result = _extract(_file(tmp_path, "win.md", "---\r\ntitle: Windows notes\r\n---\r\nbody  \r\n"))
    assert (result.metadata, result.text) == ({"title": "Windows notes"}, "body\n")


def test_markdown_title_from_first_h1_outside_code(tmp_path: Path) -> None:
    source = "Intro line.\n\n```\n# not a title\n```\n\n#  Q2 report (final) ##\n\n# Second\n"
    result = _extract(_file(tmp_path, "q2.markdown", source))
    assert result.title == "Q2 report (final)"
    assert result.metadata == {}


def test_markdown_invalid_front_matter_stays_in_body(tmp_path: Path) -> None:
    source = "---\ntitle: [unclosed\ndate: 2026-01-01\n---\n# Real title\n"
    result = _extract(_file(tmp_path, "bad.md", source))
    assert result.metadata == {}
    assert result.text.startswith("---\ntitle: [unclosed\n")
    assert result.title == "Real title"
    # A block that parses but is not a mapping is body text too.
    listy = _extract(_file(tmp_path, "listy.md", "---\n- a\n- b\n---\ntext\n"))
    assert listy.metadata == {} and listy.text.startswith("---\n- a")


# -- HTML -----------------------------------------------------------------------------------------


HTML_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<title>Lisbon office &mdash; intranet</title>
<style>body { color: red; }</style><script>var secret = "<h1>nope</h1>";</script></head>
<body><nav><a href="/">Home</a> <a href="/people">People</a></nav>
<h1>Lisbon   office</h1>
<p>Moving on <b>19 October</b>&nbsp;2026 to Rua do Alecrim.<br>Pack by Thursday.</p>
<!-- TODO: remove the old address -->
<h2>Who is here</h2>
<ul><li>Daniel Ferreira</li><li>Grace Nakamura<ul><li>SRE</li></ul></li></ul>
<table><tr><th>Room</th><th>Floor</th></tr><tr><td>Tejo</td><td><p>3</p></td></tr></table>
<noscript>Enable JavaScript</noscript><template><p>row template</p></template>
<p hidden>hidden text</p>
<pre>curl -s \\
  https://api.example</pre>
</body></html>"""


def test_html_readable_text(tmp_path: Path) -> None:
    result = _extract(_file(tmp_path, "office.html", HTML_PAGE))
    assert result.title == "Lisbon office — intranet"
    assert result.text == (
        "# Lisbon office\n\n"
        "Moving on 19 October 2026 to Rua do Alecrim.\n\nPack by Thursday.\n\n"
        "## Who is here\n\n"
        "- Daniel Ferreira\n- Grace Nakamura\n  - SRE\n\n"
        "Room | Floor\nTejo | 3\n\n"
        "```\ncurl -s \\\n  https://api.example\n```\n"
    )
    for dropped in ("secret", "nope", "color", "Home", "TODO", "Enable JavaScript", "row template", "hidden"):
        assert dropped not in result.text
    assert (result.media_type, result.extractor) == (HTML, "html")


def test_html_drops_a_themes_navigation_by_its_landmark_role(tmp_path: Path) -> None:
    # A documentation theme's breadcrumbs and sidebar are divs with ARIA roles, not <nav> (Sphinx's classic theme).
    page = """<html><head><title>codecs</title></head><body>
<div class="related" role="navigation" aria-label="related navigation"><h3>Navigation</h3>
<ul><li><a href="index.html">Library Reference</a> &raquo;</li><li>Binary Data Services &raquo;</li></ul></div>
<div role="search"><form><input name="q"><p>Quick search</p></form></div>
<h1>codecs - Codec registry</h1><p>This module defines base classes for codecs.</p>
<span aria-hidden="true">Skip to content</span><span aria-hidden="false">shown</span>
<div role="main"><p>Main text stays.</p></div>
<div class="sphinxsidebar" role="navigation"><h3>Previous topic</h3><p>struct</p></div></body></html>"""
    result = _extract(_file(tmp_path, "codecs.html", page))
    assert "This module defines base classes for codecs." in result.text and "Main text stays." in result.text
    assert "shown" in result.text
    for dropped in ("Navigation", "Binary Data Services", "Quick search", "Skip to content", "Previous topic"):
        assert dropped not in result.text
    assert result.extractor_version.startswith(f"{EXTRACTOR_REVISION}.{html_text.REVISION}+python-")


def test_html_drops_the_pages_footer_but_keeps_an_articles(tmp_path: Path) -> None:
    # A site's footer says who made the page, not what the page says: filed as text, the status page's
    # "Powered by Lanternfish Labs" answered "which SMS provider do we use?". An article's own footer (its byline,
    # its date) is the article's, and a footer the page nests in a section is that section's.
    page = """<html><head><title>Status</title></head><body>
<h1>SMS delays</h1><p>Alerts were late by up to 40 minutes.</p>
<article><p>Postmortem text.</p><footer><p>Written by Dana Kim, 19 August 2026</p></footer></article>
<section><p>Updates.</p><footer>Section note stays</footer></section>
<div class="footer" role="contentinfo">&copy; Copyright 2026, Tidemark. Created using Sphinx.</div>
<footer><p>Powered by Lanternfish Labs &middot; <a href="/history">Incident history</a></p></footer>
<div class="footer">&copy; 2001-2026, Python Software Foundation.</div><div id="footer">Please donate.</div>
<div class="footer-note">A class that only starts with footer stays.</div>
<p>After the footer.</p></body></html>"""
    result = _extract(_file(tmp_path, "status.html", page))
    for kept in ("Alerts were late by up to 40 minutes.", "Written by Dana Kim, 19 August 2026",
                 "Section note stays", "A class that only starts with footer stays.", "After the footer."):
        assert kept in result.text
    for dropped in ("Powered by", "Incident history", "Copyright", "Created using Sphinx", "Python Software",
                    "Please donate"):
        assert dropped not in result.text
    # Nothing is lost: the footers' text is the source page's provenance (its front matter), a script's is not.
    assert result.metadata["footer"] == ("© Copyright 2026, Tidemark. Created using Sphinx. Powered by Lanternfish "
                                         "Labs · Incident history © 2001-2026, Python Software Foundation. "
                                         "Please donate.")


def test_html_footer_metadata_is_bounded_and_skips_scripts(tmp_path: Path) -> None:
    page = ("<html><body><p>Body.</p><footer><p>Made by Lanternfish Labs Ltd.</p><script>var track = 1;</script>"
            "<p>" + "x" * 5000 + "</p></footer></body></html>")
    result = _extract(_file(tmp_path, "long.html", page))
    assert result.text == "Body.\n" and "track" not in result.metadata["footer"]
    assert result.metadata["footer"].startswith("Made by Lanternfish Labs Ltd. x") and len(result.metadata["footer"]) == 1000


def test_html_chunked_parse_matches_and_unclosed_title(tmp_path: Path) -> None:
    from stigmergy.capture.extractors.html_text import html_to_text

    body = "".join(
        f"<p>Para {i} &amp; caf&eacute; <b>bold</b></p><ul><li>item {i}</li></ul>" for i in range(3000)
    )
    text, _ = html_to_text(f"<html><body>{body}</body></html>")
    assert len(body) > 65_536 and text.count("Para") == 3000 and "café" in text and "&" in text
    result = _extract(_file(tmp_path, "t.html", "<title>Status<body><p>All good</p>"))
    assert (result.title, result.text) == ("Status", "All good\n")


def test_html_title_falls_back_to_h1_and_declared_charset(tmp_path: Path) -> None:
    page = '<html><head><meta charset="iso-8859-1"></head><body><h1>Caf\xe9 notes</h1><p>ok</p></body></html>'
    result = _extract(_file(tmp_path, "cafe.htm", page.encode("latin-1")))
    assert result.title == "Café notes"
    assert result.text == "# Café notes\n\nok\n"


# -- PDF ------------------------------------------------------------------------------------------


def test_pdf_pages_title_and_headings(tmp_path: Path) -> None:
    result = _extract(_file(tmp_path, "memo.pdf", _two_page_pdf()))
    assert (result.media_type, result.extractor, result.pages) == (PDF, "pypdf", 2)
    assert result.title == "Harbor launch memo"
    assert result.extractor_version.startswith(f"{EXTRACTOR_REVISION}+pypdf-")
    assert result.text == (
        "## Page 1\n\nHarbor launch\nHarbor API 1.0 is generally available.\n\n"
        "## Page 2\n\nNumbers\nRevenue was £2.36M.\n"
    )


def test_single_page_pdf_has_no_page_heading(tmp_path: Path) -> None:
    data = build_pdf(layout("Only page."), title="One", author="A", date="D:20260101000000Z")
    result = _extract(_file(tmp_path, "one.pdf", data))
    assert (result.text, result.pages) == ("Only page.\n", 1)


def test_pdf_writer_is_byte_deterministic() -> None:
    assert _two_page_pdf() == _two_page_pdf()


def test_pdf_without_extension_is_sniffed(tmp_path: Path) -> None:
    assert _extract(_file(tmp_path, "scan", _two_page_pdf())).media_type == PDF


# -- DOCX -----------------------------------------------------------------------------------------


def test_docx_structure_and_title(tmp_path: Path) -> None:
    result = _extract(_file(tmp_path, "rollout.docx", _docx()))
    assert (result.media_type, result.extractor, result.pages) == (DOCX, "python-docx", None)
    assert result.extractor_version.startswith(f"{EXTRACTOR_REVISION}+python-docx-")
    assert result.title == "Beacon G2 rollout"  # the Title paragraph, core title being empty
    assert result.text == (
        "# Beacon G2 rollout\n\n# Scope\n\nNorrland Fresh gets 60 gateways.\n\n"
        "- Umeå depot\n  - Jönköping depot\n\n## Details\n\n"
        "Depot | Gateways | Owner\nUmeå | 60, Samuel\n\nSigned off by Maya Okafor.\n"
    )


def test_docx_core_title_wins(tmp_path: Path) -> None:
    assert _extract(_file(tmp_path, "r.docx", _docx("Rollout plan"))).title == "Rollout plan"


# -- determinism ----------------------------------------------------------------------------------


def test_same_bytes_same_extraction(tmp_path: Path) -> None:
    files = [
        _file(tmp_path, "a.md", "---\ntitle: T\n---\nbody\n"),
        _file(tmp_path, "b.html", HTML_PAGE),
        _file(tmp_path, "c.pdf", _two_page_pdf()),
        _file(tmp_path, "d.docx", _docx()),
        _file(tmp_path, "e.txt", "x\n"),
    ]
    for path in files:
        assert _extract(path) == _extract(path)


# -- refusals -------------------------------------------------------------------------------------


def test_too_large_is_checked_before_parsing(tmp_path: Path) -> None:
    path = _file(tmp_path, "big.pdf", b"not a pdf at all" * 10)
    err = _refused(path, replace(LIMITS, max_bytes=100))
    assert err.rule == "too-large"


def test_empty_inputs(tmp_path: Path) -> None:
    assert _refused(_file(tmp_path, "zero.txt", b"")).rule == "empty"
    assert _refused(_file(tmp_path, "blank.md", " \n\t\n")).rule == "empty"
    assert _refused(_file(tmp_path, "fm.md", "---\ntitle: Only metadata\n---\n")).rule == "empty"
    assert _refused(_file(tmp_path, "js.html", "<script>alert(1)</script>")).rule == "empty"
    blank_pdf = build_pdf([[("blank", "")]], title="Scan", author="A", date="D:20260101000000Z")
    err = _refused(_file(tmp_path, "scan.pdf", blank_pdf))
    assert err.rule == "empty" and err.hint and "OCR" in err.hint


def test_unsupported_types(tmp_path: Path) -> None:
    err = _refused(_file(tmp_path, "photo.txt", PNG))
    assert err.rule == "unsupported-type" and "PNG" in err.message
    assert _refused(_file(tmp_path, "archive.md", b"PK\x03\x04rest")).rule == "unsupported-type"
    assert _refused(_file(tmp_path, "memo.html", _two_page_pdf())).rule == "unsupported-type"
    assert _refused(_file(tmp_path, "image.bin", b"GIF89a\x01\x00\x01\x00")).rule == "unsupported-type"
    # A PNG is read (through OCR) whatever its name; a truncated one is malformed, never decoded as text.
    assert _refused(_file(tmp_path, "image.bin", PNG)).rule == "malformed"
    assert _refused(_file(tmp_path, "blob.dat", b"\x00\xff\xfe\x80binary")).rule == "unsupported-type"
    assert _refused(_file(tmp_path, "record.bin", b"HDR\x00\x00\x01ascii")).rule == "unsupported-type"
    assert _refused(_file(tmp_path, "photo.pdf", PNG)).rule == "unsupported-type"
    assert _refused(_file(tmp_path, "report.docx", _two_page_pdf())).rule == "unsupported-type"


def test_undecodable_latin1(tmp_path: Path) -> None:
    err = _refused(_file(tmp_path, "notes.txt", "Caf\xe9 cr\xe8me".encode("latin-1")))
    assert err.rule == "undecodable" and "0xe9" in err.message
    assert _refused(_file(tmp_path, "notes.md", "Jönköping".encode("latin-1"))).rule == "undecodable"


def test_too_many_pages(tmp_path: Path) -> None:
    err = _refused(_file(tmp_path, "memo.pdf", _two_page_pdf()), replace(LIMITS, max_pages=1))
    assert err.rule == "too-many-pages" and "2 pages" in err.message


def test_too_slow(tmp_path: Path) -> None:
    # A negative budget is already spent when the first page starts: deterministic, no timing.
    slow = replace(LIMITS, max_seconds=-1.0)
    assert _refused(_file(tmp_path, "memo.pdf", _two_page_pdf()), slow).rule == "too-slow"
    assert _refused(_file(tmp_path, "plan.docx", _docx()), slow).rule == "too-slow"
    assert _refused(_file(tmp_path, "page.html", HTML_PAGE), slow).rule == "too-slow"


def test_too_long(tmp_path: Path) -> None:
    short = replace(LIMITS, max_readable_chars=20)
    assert _refused(_file(tmp_path, "long.txt", "word " * 10), short).rule == "too-long"
    assert _refused(_file(tmp_path, "long.pdf", _two_page_pdf()), short).rule == "too-long"
    assert _refused(_file(tmp_path, "long.docx", _docx()), short).rule == "too-long"
    assert _extract(_file(tmp_path, "ok.txt", "x" * 19), short).text == "x" * 19 + "\n"


def test_malformed_documents(tmp_path: Path) -> None:
    assert _refused(_file(tmp_path, "broken.pdf", b"%PDF-1.4\n1 0 obj garbage")).rule == "malformed"
    assert _refused(_file(tmp_path, "text.pdf", b"just some text")).rule == "malformed"
    truncated = _two_page_pdf()[:200]
    assert _refused(_file(tmp_path, "truncated.pdf", truncated)).rule == "malformed"
    assert _refused(_file(tmp_path, "text.docx", b"just some text")).rule == "malformed"
    sheet = io.BytesIO()
    with zipfile.ZipFile(sheet, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    assert _refused(_file(tmp_path, "sheet.docx", sheet.getvalue())).rule == "malformed"
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("word/document.xml", "<not really xml")
    assert _refused(_file(tmp_path, "broken.docx", broken.getvalue())).rule == "malformed"


def test_heavy_libraries_are_imported_lazily() -> None:
    code = (
        "import sys, stigmergy.capture.extract\n"
        "bad = [m for m in ('pypdf', 'docx') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# -- the sample corpus ----------------------------------------------------------------------------


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md")


def test_every_sample_document_extracts() -> None:
    files = _corpus_files()
    public = [p for p in files if "_restricted" not in p.parts]
    assert len(public) >= 32
    suffixes = [p.suffix for p in public]
    assert suffixes.count(".pdf") == 2 and suffixes.count(".docx") == 2 and suffixes.count(".html") >= 4
    for path in files:
        result = extract(path.read_bytes(), str(path.relative_to(CORPUS)), LIMITS)
        assert result.title or path.suffix == ".txt", path
        assert 150 <= len(result.text.split()) <= 700, path
        if path.suffix == ".md":
            assert result.metadata.get("title") and result.metadata.get("date"), path


def test_canary_lives_only_in_the_restricted_layer() -> None:
    holders = [p for p in _corpus_files() if b"CANARY-BOARD-7731" in p.read_bytes()]
    assert holders and all("_restricted" in p.parts for p in holders)


def test_generated_documents_match_the_committed_ones() -> None:
    built = make_sample_docs.build_all()
    assert sorted(built) == sorted(
        str(p.relative_to(CORPUS)) for p in _corpus_files() if p.suffix in {".pdf", ".docx"}
    )
    for rel, data in built.items():
        committed = (CORPUS / rel).read_bytes()
        assert extract(data, rel, LIMITS) == extract(committed, rel, LIMITS), rel


def test_a_new_format_is_one_new_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Registry of extractors: a module of capture/extractors/ that declares FORMAT is detected by its
    # extension and dispatched to, with no edit anywhere else.
    import stigmergy.capture.extract as extract_mod
    import stigmergy.capture.extractors as extractors

    (tmp_path / "zz_tsv_text.py").write_text(
        "from stigmergy.capture.extractors import Format, Reading\n"
        "def _read(text, budget):\n"
        "    rows = [line.split('\\t') for line in text.splitlines() if line]\n"
        "    return Reading('\\n'.join(' | '.join(r) for r in rows), rows[0][0], 'tsv-1')\n"
        "FORMAT = Format(media_type='text/tab-separated-values', extractor='tsv', extensions=('.tsv',), read=_read)\n"
    )
    monkeypatch.setattr(extractors, "__path__", [*extractors.__path__, str(tmp_path)])
    extractors.formats.cache_clear()
    extract_mod._registry.cache_clear()
    try:
        assert [f.extractor for f in extractors.formats()] == ["chat", "python-docx", "html", "ocr", "email", "pypdf", "tsv"]
        got = extract(b"name\tarr\nAurora\t1.3M\n", "figures.tsv", CaptureSettings())
        assert (got.media_type, got.extractor, got.extractor_version) == ("text/tab-separated-values", "tsv", "tsv-1")
        assert got.text == "name | arr\nAurora | 1.3M\n" and got.title == "name"
    finally:
        monkeypatch.undo()
        extractors.formats.cache_clear()
        extract_mod._registry.cache_clear()
    with pytest.raises(InputError):
        extract(b"\x00\x01binary", "figures.tsv", CaptureSettings())  # gone again: unknown and not text


# What a reference page's markup becomes (the cases of the fifteenth and sixteenth sessions):
# - a docstring in a <pre> is code, not a sentence naming "Convert ISO"; a block that holds a fence of its own gets a
#   longer one;
# - a library reference names its classes in <code>: as plain words, "Cursor" and "Logger" read as names of
#   organisations. A span holding a backtick gets a longer fence; code nested in code is one span; a table cell's
#   code is a span too; a <pre>'s own <code> stays inside the fence, unmarked;
# - a Sphinx heading ends in <a class="headerlink">¶</a>: read as text, every heading and signature of a reference
#   page ended in "¶". A link with words keeps them.
_HTML_CODE_CASES = {
    "pre-fenced": (
        "<html><body><p>Register a converter:</p><pre>def convert_date(val):\n"
        "    \"\"\"Convert ISO 8601 date to datetime.date object.\"\"\"</pre>"
        "<pre>```\nnested\n```</pre></body></html>",
        "Register a converter:\n\n```\ndef convert_date(val):\n    \"\"\"Convert ISO 8601 date to datetime.date "
        "object.\"\"\"\n```\n\n````\n```\nnested\n```\n````\n"),
    "inline-code-spans": (
        "<html><body><p>Create a new <a href='#c'><code class='xref'><span class='pre'>Cursor</span></code></a> "
        "object and call <code>execute()</code> on it; press <kbd>Ctrl</kbd>+<kbd>C</kbd>; quote <code>a`b</code>; "
        "<code>outer <code>inner</code></code>.</p><h2>The <tt>Logger</tt> class</h2>"
        "<table><tr><td><code>level</code></td><td>an int</td></tr></table>"
        "<pre><code>log = Logger()</code></pre><p><code> </code>empty</p></body></html>",
        "Create a new `Cursor` object and call `execute()` on it; press `Ctrl`+`C`; quote ``a`b``; "
        "`outer inner`.\n\n## The `Logger` class\n\n`level` | an int\n\n```\nlog = Logger()\n```\n\nempty\n"),
    "permalinks-dropped": (
        "<html><body><h2>Caching<a class='headerlink' href='#caching' title='Permalink'>¶</a></h2>"
        "<dl><dt>cursor(factory=Cursor)<a class='headerlink' href='#c'>¶</a></dt></dl>"
        "<p>See <a href='#x'>the cache</a> first.</p>"
        "<table><tr><th>Key<a href='#k'>§</a></th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>"
        "</body></html>",
        "## Caching\n\ncursor(factory=Cursor)\n\nSee the cache first.\n\nKey | Value\na | 1\n"),
}


@pytest.mark.parametrize("case", sorted(_HTML_CODE_CASES))
def test_html_code_stays_code(tmp_path: Path, case: str) -> None:
    page, expected = _HTML_CODE_CASES[case]
    assert _extract(_file(tmp_path, "ref.html", page)).text == expected


def test_html_a_footer_of_many_small_nodes_is_read_in_bounded_time(tmp_path: Path) -> None:
    # 200,000 tiny text nodes in one footer: what is kept stops at the metadata's bound, and the page still reads.
    page = "<html><body><p>Body.</p><footer>" + "<b>x</b>" * 200_000 + "</footer><p>After.</p></body></html>"
    result = _extract(_file(tmp_path, "wide.html", page))
    assert result.text == "Body.\n\nAfter.\n" and len(result.metadata["footer"]) <= 1000


def test_html_many_footers_are_read_in_bounded_time(tmp_path: Path) -> None:
    # 100,000 footers, each different: what is read for the metadata stops at its bound, so they are not each
    # compared with all the others.
    page = "<html><body><p>Body.</p>" + "".join(f"<footer>f{i}</footer>" for i in range(100_000)) + "</body></html>"
    result = _extract(_file(tmp_path, "many.html", page))
    assert result.text == "Body.\n" and result.metadata["footer"].startswith("f0 f1 f2 ")
    assert len(result.metadata["footer"]) <= 1000
