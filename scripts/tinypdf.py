"""A tiny, dependency-free PDF writer for the sample corpus and the tests.

It writes text only: Helvetica and Helvetica-Bold with WinAnsiEncoding, US Letter pages, one text
object per line, uncompressed content streams, an Info dictionary with a fixed Title and dates, and a
document ID derived from the content. The same input gives the same bytes, on any machine.

    from tinypdf import layout, build_pdf
    pdf_bytes = build_pdf(layout(markdown_text), title="...", author="...", date="D:20260612090000Z")

`layout` understands just enough Markdown for documents: `# ` and `## ` headings, `- ` bullets,
paragraphs (wrapped), and a line holding only `\\newpage` for an explicit page break.
"""

from __future__ import annotations

import hashlib
import textwrap

PAGE_WIDTH = 612
PAGE_HEIGHT = 792
MARGIN = 72
BODY_SIZE = 10.5
LEADING = 14
WRAP = 92

# (font resource, size, extra space before) per line style.
_STYLES = {
    "h1": ("F2", 16.0, 10),
    "h2": ("F2", 12.5, 8),
    "p": ("F1", BODY_SIZE, 0),
    "blank": ("F1", BODY_SIZE, 0),
}

Line = tuple[str, str]  # (style, text)


def layout(markdown: str, wrap: int = WRAP) -> list[list[Line]]:
    """Wrap and paginate a small Markdown subset into pages of styled lines."""
    pages: list[list[Line]] = [[]]
    y = PAGE_HEIGHT - MARGIN

    def room(style: str) -> bool:
        return y - _STYLES[style][2] - LEADING >= MARGIN

    def put(style: str, text: str) -> None:
        nonlocal y
        if not room(style):
            pages.append([])
            y = PAGE_HEIGHT - MARGIN
            if style == "blank":
                return
        if style == "blank" and not pages[-1]:
            return
        pages[-1].append((style, text))
        y -= _STYLES[style][2] + LEADING

    for block in markdown.strip().split("\n\n"):
        block = block.strip()
        if block == "\\newpage":
            pages.append([])
            y = PAGE_HEIGHT - MARGIN
            continue
        if block.startswith("## "):
            put("h2", block[3:].strip())
        elif block.startswith("# "):
            put("h1", block[2:].strip())
        elif block.startswith("- "):
            for item in block.split("\n- "):
                lines = textwrap.wrap(" ".join(item.removeprefix("- ").split()), wrap - 2)
                for i, line in enumerate(lines):
                    put("p", ("- " if i == 0 else "  ") + line)
        else:
            for line in textwrap.wrap(" ".join(block.split()), wrap):
                put("p", line)
        put("blank", "")
    return [page for page in pages if any(style != "blank" for style, _ in page)]


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _content(page: list[Line]) -> bytes:
    out: list[bytes] = []
    y = PAGE_HEIGHT - MARGIN
    for style, text in page:
        font, size, before = _STYLES[style]
        y -= before
        if style != "blank" and text:
            out.append(
                b"BT /%s %s Tf %d %d Td %s Tj ET" % (font.encode(), _num(size), MARGIN, y, _pdf_string(text))
            )
        y -= LEADING
    return b"\n".join(out) + b"\n"


def _num(value: float) -> bytes:
    return (f"{value:.2f}".rstrip("0").rstrip(".")).encode()


def _info_string(text: str) -> bytes:
    # Info strings are PDFDocEncoding; keep them to printable ASCII.
    return _pdf_string(text.encode("ascii", "replace").decode("ascii"))


def build_pdf(pages: list[list[Line]], *, title: str, author: str, date: str) -> bytes:
    """The PDF file's bytes. `date` is a PDF date string such as D:20260612090000Z."""
    if not pages:
        raise ValueError("a PDF needs at least one page")
    objects: list[bytes] = []
    page_ids = [5 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = b" ".join(b"%d 0 R" % pid for pid in page_ids)
    objects.append(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    for page in pages:
        content = _content(page)
        content_id = len(objects) + 2
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >>"
            b" /Contents %d 0 R >>" % (PAGE_WIDTH, PAGE_HEIGHT, content_id)
        )
        objects.append(b"<< /Length %d >>\nstream\n%sendstream" % (len(content), content))
    info_id = len(objects) + 1
    objects.append(
        b"<< /Title %s /Author %s /Producer (stigmergy tinypdf) /CreationDate (%s) /ModDate (%s) >>"
        % (_info_string(title), _info_string(author), date.encode("ascii"), date.encode("ascii"))
    )

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    doc_id = hashlib.md5(bytes(out)).hexdigest().encode()
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        info_id,
        doc_id,
        doc_id,
        xref,
    )
    return bytes(out)
