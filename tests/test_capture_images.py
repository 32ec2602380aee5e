"""Images through OCR: PNG, JPEG, TIFF and a scanned (image-only) PDF rendered from known text with
Pillow, read back by Tesseract, captured, filed, indexed and found; unsure lines never cited; bombs."""

from __future__ import annotations

import difflib
import io
import json
import os
import shutil
import struct
import zlib
from pathlib import Path

import pytest
from conftest import run_cli
from export_fixtures import SCAN_TEXT, found, rendered_image
from test_capture import snapshot, source_files
from test_gates_engine import body, repo, rules, run  # noqa: F401 — `repo` is the gates' fixture
from test_gates_support import cited, make_source

from stigmergy.capture.extract import extract
from stigmergy.pages.source import is_unsure, parse_source_page, unsure_mark
from stigmergy.plan.schema import Plan, UpdatePage
from stigmergy.settings import CaptureSettings

# CI installs tesseract (make ocr-engine); a developer machine without it skips, CI never does.
needs_ocr = pytest.mark.skipif(shutil.which("tesseract") is None and not os.environ.get("CI"),
                               reason="tesseract-ocr is not installed (make ocr-engine)")


def accuracy(read: str, truth: list[str]) -> float:
    a, b = " ".join(read.split()), " ".join(" ".join(truth).split())
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def scanned_pdf() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(rendered_image())).save(out, "PDF", resolution=150)
    return out.getvalue()


@needs_ocr
@pytest.mark.parametrize(("name", "data"), [
    ("scan.png", lambda: rendered_image()), ("scan.jpg", lambda: rendered_image(fmt="JPEG")),
    ("scan.tiff", lambda: rendered_image(fmt="TIFF")), ("scan.pdf", scanned_pdf),
])
def test_rendered_text_reads_back_with_confidence_per_line(name: str, data) -> None:  # noqa: ANN001
    found_text = extract(data(), name, CaptureSettings())
    assert accuracy(found_text.text, SCAN_TEXT) >= 0.98, found_text.text
    ocr = found_text.metadata["ocr"]
    assert len(ocr["confidence"]) == len(SCAN_TEXT) and ocr["min_confidence"] == 60
    assert found_text.text.index("Halden") < found_text.text.index("Oslo") < found_text.text.index("Rollback")


@needs_ocr
def test_an_image_is_captured_filed_and_found(wiki: Path, tmp_path: Path) -> None:
    image = tmp_path / "whiteboard.png"
    image.write_bytes(rendered_image())
    code, out, err = run_cli(["capture", str(image), "--json"], cwd=wiki)
    assert code == 0, out + err
    [c] = json.loads(out)["captures"]
    assert c["status"] == "filed" and c["pages"]
    page = parse_source_page((wiki / c["source_path"]).read_text(), c["source_path"])
    assert page.artifacts[0].media_type == "image/png" and page.artifacts[0].extractor == "ocr"
    hits = found(wiki, "Atlas database Oslo region")
    assert any("Oslo" in snippet for _, snippet in hits), hits


@needs_ocr
def test_lines_below_the_threshold_are_marked_and_never_cited(wiki: Path, tmp_path: Path) -> None:
    (wiki / "stigmergy.toml").write_text((wiki / "stigmergy.toml").read_text().replace(
        "ocr_min_confidence = 60", "ocr_min_confidence = 100"))
    image = tmp_path / "scan.png"
    image.write_bytes(rendered_image())
    code, out, err = run_cli(["capture", str(image), "--json"], cwd=wiki)
    assert code == 0, out + err
    [c] = json.loads(out)["captures"]
    page = parse_source_page((wiki / c["source_path"]).read_text(), c["source_path"])
    lines = [ln for ln in page.text.split("\n") if ln.strip()]
    assert lines and all(is_unsure(ln) for ln in lines)
    for wiki_page in (wiki / "wiki").rglob("*.md"):
        assert c["source_path"] not in wiki_page.read_text(), wiki_page  # the planner took no line as a fact


def test_the_gates_refuse_a_wiki_line_that_cites_an_unsure_line(repo) -> None:  # noqa: F811
    src = make_source(repo["root"], 7, ["Aurora opened an office in Porto." + unsure_mark(41),
                                        "Aurora opened an office in Lisbon."])
    note = "wiki/notes/Q1 review.md"
    unsure = f"- Aurora opened an office in Porto. {cited(note, src, 0)}"
    verdict = run(repo, Plan((UpdatePage(note, body("Q1 review", [*repo["note_lines"], unsure])),)))
    assert "contract" in rules(verdict)
    assert any("unsure" in ln for v in verdict.violations for ln in v.lines)
    sure = f"- Aurora opened an office in Lisbon. {cited(note, src, 1)}"
    assert "contract" not in rules(run(repo, Plan((UpdatePage(note, body("Q1 review", [*repo["note_lines"], sure])),))))


def _png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def test_an_image_bomb_is_refused_with_one_line_and_nothing_stored(wiki: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_header(50_000, 50_000))
    before = snapshot(wiki)
    code, out, err = run_cli(["capture", str(bomb)], cwd=wiki)
    assert code == 1
    assert len([ln for ln in (out + err).splitlines() if "[image-bomb]" in ln]) == 1, out + err
    assert "2,500,000,000 pixels" in out + err
    assert snapshot(wiki) == before and not source_files(wiki)
