"""DOCX -> text with python-docx, in document order (paragraphs and tables interleaved).

`Heading N` styles become N `#`s, the `Title` style a `#` line, list paragraphs (List Bullet / List
Number styles, or any paragraph with numbering) `- ` items indented by level, and
table rows `a | b` lines (merged cells once). Headers, footers, footnotes, comments and text boxes
are not read. The title is the core properties' title, else the first Title paragraph, else the
first Heading 1.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from stigmergy.capture.extractors import Budget, Format, Reading
from stigmergy.errors import InputError

REVISION = "3"  # 2: extracted markup is escaped (extract.escape_markup); 3: unsafe links inert
MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_ZIP = b"PK\x03\x04"

_HEADING = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^list (bullet|number)(?:\s*([2-9]))?$", re.IGNORECASE)


def docx_to_text(data: bytes, budget: Budget) -> tuple[str, str | None, str]:
    """(readable text, title, extractor version)."""
    from importlib.metadata import version

    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    locator = budget.locator
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            budget.check_expanded(sum(info.file_size for info in archive.infolist()))
        document = docx.Document(io.BytesIO(data))
    except InputError:
        raise
    except Exception as exc:  # python-docx and lxml raise many kinds of errors on damaged files
        text = " ".join(str(exc).split())[:160]
        raise InputError(
            locator, "malformed", f"python-docx cannot open this DOCX ({type(exc).__name__}: {text})"
        ) from exc

    lines: list[tuple[str, str]] = []
    title_style: str | None = None
    first_h1: str | None = None
    total = 0
    for item in document.iter_inner_content():
        budget.check_time()
        if isinstance(item, Paragraph):
            kind, line = _paragraph(item)
            if not line:
                continue
            if kind == "title" and title_style is None:
                title_style = item.text.strip()
            if kind == "h1" and first_h1 is None:
                first_h1 = item.text.strip()
            lines.append((kind, line))
            total += len(line) + 2
        elif isinstance(item, Table):
            for row in _rows(item):
                lines.append(("row", row))
                total += len(row) + 1
        budget.check_chars(total)

    out: list[str] = []
    previous = None
    for kind, line in lines:
        if out:
            out.append("\n" if kind == previous and kind in {"li", "row"} else "\n\n")
        out.append(line)
        previous = kind
    core_title = (document.core_properties.title or "").strip()
    return (
        "".join(out),
        core_title or title_style or first_h1,
        f"{REVISION}+python-docx-{version('python-docx')}",
    )


def _paragraph(paragraph: Any) -> tuple[str, str]:
    text = " ".join(paragraph.text.replace("\t", " ").split())
    if not text:
        return "p", ""
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    heading = _HEADING.match(style)
    if heading:
        level = int(heading.group(1))
        return f"h{level}", "#" * min(level, 6) + " " + text
    if style.lower() == "title":
        return "title", "# " + text
    level = _list_level(paragraph, style)
    if level is not None:
        return "li", "  " * level + "- " + text
    return "p", text


def _list_level(paragraph: Any, style: str) -> int | None:
    ppr = paragraph._p.pPr
    num_pr = ppr.numPr if ppr is not None else None
    if num_pr is not None and num_pr.numId is not None and num_pr.numId.val != 0:
        ilvl = num_pr.ilvl
        # Word's levels are 0-8; a forged level of a billion must not indent a line by two billion spaces.
        return min(max(int(ilvl.val), 0), 8) if ilvl is not None and ilvl.val is not None else 0
    match = _LIST_STYLE.match(style)
    if match:
        return min(int(match.group(2)) - 1, 8) if match.group(2) else 0
    return None


def _rows(table: Any) -> list[str]:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            # A merged cell is returned once per grid column it spans; keep it once.
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


def is_docx_zip(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def _read(data: bytes, budget: Budget) -> Reading:
    body, title, version = docx_to_text(data, budget)
    return Reading(body, title, version)


def _verify(data: bytes, name: str, what: str, magic: str | None) -> None:
    if magic == "a ZIP archive":
        if is_docx_zip(data):
            return
        raise InputError(name, "malformed", "not a DOCX: the ZIP archive has no word/document.xml")
    if magic is not None:
        raise InputError(name, "unsupported-type", f"{what} says DOCX but the content is {magic}")
    raise InputError(name, "malformed", "not a DOCX: the content is not a ZIP archive")


FORMAT = Format(
    media_type=MEDIA_TYPE, extractor="python-docx", extensions=(".docx",), read=_read, binary=True,
    media_aliases=(MEDIA_TYPE,), claims=lambda data: data.startswith(_ZIP) and is_docx_zip(data), verify=_verify,
)
