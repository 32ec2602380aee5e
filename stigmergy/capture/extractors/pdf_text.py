"""PDF -> text with pypdf, page by page.

A document of more than one page gets a `## Page N` heading before each page's text, so that a
citation into the source page also tells a reader where to look in the original. A page without a text
layer (a scan) is read through OCR from the images it shows (image_ocr.py: each image's declared size
checked before it is decoded, lines below the confidence threshold marked unsure); a PDF with no text
at all is refused as `empty` by the caller.
"""

from __future__ import annotations

import io
import logging
from typing import Any

from stigmergy.capture.extractors import Budget, Format, Reading
from stigmergy.errors import InputError

REVISION = "3"  # 2: extracted markup is escaped (extract.escape_markup); 3: unsafe links inert
MEDIA_TYPE = "application/pdf"


def pdf_to_text(data: bytes, budget: Budget) -> tuple[str, str | None, int, str, dict]:
    """(readable text, metadata title, page count, extractor version, OCR metadata or {})."""
    import pypdf
    from pypdf.errors import PyPdfError

    # pypdf logs every repair it makes on a damaged file; with no handler configured Python prints
    # them on stderr, in the middle of the CLI's output. An application that configures logging
    # still receives them through propagation.
    pdf_logger = logging.getLogger("pypdf")
    if not pdf_logger.handlers:
        pdf_logger.addHandler(logging.NullHandler())

    locator = budget.locator
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError(locator, "malformed", "the PDF is encrypted with a password")
        count = len(reader.pages)
    except InputError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError, RecursionError) as exc:
        raise InputError(locator, "malformed", f"pypdf cannot open this PDF ({_reason(exc)})") from exc
    except Exception as exc:  # pypdf raises a wide range of errors on damaged files
        raise InputError(locator, "malformed", f"pypdf cannot open this PDF ({_reason(exc)})") from exc
    budget.check_pages(count)

    parts: list[str] = []
    total = 0
    confidence: list[int] = []
    engine = ""
    for number in range(count):
        budget.check_time()
        try:
            text = reader.pages[number].extract_text() or ""
        except Exception as exc:  # one unreadable page makes the evidence incomplete: refuse
            raise InputError(
                locator, "malformed", f"pypdf cannot read page {number + 1} ({_reason(exc)})"
            ) from exc
        text = text.strip()
        if not text:
            text, found, engine = _ocr_page(reader.pages[number], number + 1, budget, engine)
            confidence += found
        if count > 1:
            parts.append(f"## Page {number + 1}\n\n{text}" if text else f"## Page {number + 1}")
        elif text:
            parts.append(text)
        total += len(text)
        budget.check_chars(total)
    budget.check_time()

    # A multi-page PDF without any text layer is as empty as a one-page one.
    body = "\n\n".join(parts) if total else ""
    version = f"{REVISION}+pypdf-{pypdf.__version__}" + (f"+tesseract-{engine}" if engine else "")
    meta: dict = {}
    if engine:
        threshold = budget.limits.ocr_min_confidence
        meta = {"ocr": {"engine": f"tesseract {engine}", "min_confidence": threshold, "confidence": confidence,
                        "unsure_lines": sum(1 for c in confidence if c < threshold)}}
    return body, _title(reader), count, version, meta


def _ocr_page(page: object, number: int, budget: Budget, engine: str) -> tuple[str, list[int], str]:
    """The text OCR reads from the images of a page that has no text layer: (text, line confidences,
    engine version). Each image's declared size is checked before pypdf decodes it."""
    from stigmergy.capture.extractors.image_ocr import check_pixels, ocr_image, render_lines

    try:
        resources: Any = page.get("/Resources")  # type: ignore[attr-defined]
        xobjects: Any = resources.get_object().get("/XObject") if resources is not None else None
        declared = [x.get_object() for x in xobjects.get_object().values()] if xobjects is not None else []
    except Exception:  # a page without readable resources has no image to read
        return "", [], engine
    images = [x for x in declared if x.get("/Subtype") == "/Image"]
    if not images:
        return "", [], engine
    for x in images:
        check_pixels(int(x.get("/Width", 0)), int(x.get("/Height", 0)), budget, f"an image on page {number}")
    texts: list[str] = []
    confidence: list[int] = []
    try:
        found = list(page.images)  # type: ignore[attr-defined]
    except Exception as exc:
        raise InputError(budget.locator, "malformed", f"pypdf cannot decode the images of page {number} "
                         f"({_reason(exc)})") from exc
    for image_file in found:
        budget.check_time()
        lines, starts, engine = ocr_image(image_file.image, budget)
        texts.append(render_lines(lines, starts, budget.limits.ocr_min_confidence))
        confidence += [c for _, c in lines]
    return "\n\n".join(t for t in texts if t.strip()), confidence, engine


def _title(reader: object) -> str | None:
    try:
        meta = reader.metadata  # type: ignore[attr-defined]
        title = meta.title if meta is not None else None
    except Exception:  # a broken Info dictionary only costs us the title
        return None
    return str(title).strip() or None if title else None


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _read(data: bytes, budget: Budget) -> Reading:
    body, title, pages, version, meta = pdf_to_text(data, budget)
    return Reading(body, title, version, metadata=meta, pages=pages)


def _verify(data: bytes, name: str, what: str, magic: str | None) -> None:
    if b"%PDF-" in data[:1024]:
        return
    if magic is not None:
        raise InputError(name, "unsupported-type", f"{what} says PDF but the content is {magic}")
    raise InputError(name, "malformed", "not a PDF: no %PDF- header in the first 1024 bytes")


FORMAT = Format(
    media_type=MEDIA_TYPE, extractor="pypdf", extensions=(".pdf",), read=_read, binary=True,
    claims=lambda data: data.startswith(b"%PDF-"), verify=_verify,
    empty_hint="the PDF has neither a text layer nor an image OCR can read",
)
