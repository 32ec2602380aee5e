"""PNG, JPEG and TIFF images (and a PDF's image-only pages, through `ocr_image`) -> text through OCR:
Tesseract (Debian's `tesseract-ocr` package) driven by pytesseract, images decoded by Pillow.

The text keeps Tesseract's reading order (blocks, paragraphs, lines); paragraphs are separated by a blank
line. Every line has a confidence, the mean of its words' (0-100), listed in the page's metadata
(`ocr.confidence`, one per line). A line below capture.ocr_min_confidence ends with the UNSURE mark
(pages/source.py): it is shown and searchable, but the planner never takes it as a statement and the
gates refuse a wiki line that cites it (docs/capture.md).

Limits: the pixel count is read from the image's header and checked before anything is decoded
(capture.max_image_pixels; Pillow's own MAX_IMAGE_PIXELS is set to the same number, so a bomb that gets
past the header is refused by Pillow too), frames count as pages (capture.max_pages), and Tesseract gets
the time left of capture.max_seconds.
"""

from __future__ import annotations

import io
import os
import re
import warnings
from typing import Any

from stigmergy.capture.extractors import Budget, Format, Reading
from stigmergy.errors import InputError
from stigmergy.pages.source import unsure_mark

REVISION = "1"
LANG = "eng"
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "TIFF": "image/tiff"}


def _engine(locator: str) -> tuple[Any, str]:
    import pytesseract

    try:
        version = str(pytesseract.get_tesseract_version()).split()[0]
    except (pytesseract.TesseractNotFoundError, OSError):
        raise InputError(locator, "ocr-unavailable", "reading an image needs the tesseract program, which is not "
                         "installed", hint="apt-get install tesseract-ocr (make install does it when it can)") from None
    return pytesseract, version


def check_pixels(width: int, height: int, budget: Budget, what: str = "the image") -> None:
    limit = budget.limits.max_image_pixels
    if width * height > limit:
        raise InputError(budget.locator, "image-bomb", f"{what} declares {width:,} x {height:,} pixels, over the limit "
                         f"of {limit:,}; nothing was decoded", hint="raise capture.max_image_pixels in stigmergy.toml")


def open_image(data: bytes, budget: Budget) -> Any:
    """The image, its header read and its size checked; no pixel is decoded yet."""
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = budget.limits.max_image_pixels
    try:
        with warnings.catch_warnings():  # between 1x and 2x the limit Pillow only warns; check_pixels refuses
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        declared = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(declared.group(1)):,} pixels" if declared else "more pixels than the limit"
        raise InputError(budget.locator, "image-bomb", f"the image declares {size}, over the limit of "
                         f"{budget.limits.max_image_pixels:,}; nothing was decoded",
                         hint="raise capture.max_image_pixels in stigmergy.toml") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise InputError(budget.locator, "malformed", f"Pillow cannot open this image ({type(exc).__name__})") from None
    check_pixels(image.size[0], image.size[1], budget)
    if image.format not in MEDIA_TYPES:
        raise InputError(budget.locator, "unsupported-type", f"a {image.format} image, which stigmergy cannot read")
    return image


def ocr_image(image: Any, budget: Budget) -> tuple[list[tuple[str, int]], list[int], str]:
    """(lines as (text, confidence), the indexes that start a paragraph, engine version) of one image."""
    from PIL import Image

    pytesseract, version = _engine(budget.locator)
    try:
        image.load()
        gray = image.convert("L")
        # Handed to tesseract as an uncompressed PGM: the PNG pytesseract would write costs a compression
        # here and a decompression in tesseract, about 0.15 s CPU for an A4 page at 300 dpi.
        gray.format = "PPM"
    except Image.DecompressionBombError:
        raise InputError(budget.locator, "image-bomb", "the image is over the pixel limit; nothing was decoded") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise InputError(budget.locator, "malformed", f"the image cannot be decoded ({type(exc).__name__})") from None
    left = max(budget.limits.max_seconds - budget.elapsed(), 1.0)
    # Tesseract's OpenMP threads spin against each other on a small machine: one thread reads a page with
    # half the CPU time (measured in bench/formats.py). A caller's own setting wins.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    try:
        data = pytesseract.image_to_data(gray, lang=LANG, output_type=pytesseract.Output.DICT, timeout=left)
    except RuntimeError:  # pytesseract's timeout
        raise InputError(budget.locator, "too-slow", f"OCR took over {budget.limits.max_seconds:g} s and was stopped",
                         hint="raise capture.max_seconds in stigmergy.toml") from None
    except (pytesseract.TesseractError, OSError) as exc:
        raise InputError(budget.locator, "malformed", f"tesseract cannot read this image ({exc})") from None
    lines: dict[tuple[int, int, int, int], list[tuple[str, float]]] = {}
    for i, word in enumerate(data["text"]):
        conf = float(data["conf"][i])
        if conf < 0 or not str(word).strip():
            continue
        key = (data["page_num"][i], data["block_num"][i], data["par_num"][i], data["line_num"][i])
        lines.setdefault(key, []).append((str(word).strip(), conf))
    out: list[tuple[str, int]] = []
    starts: list[int] = []
    last_par = None
    for key, words in lines.items():  # dicts keep Tesseract's order: its reading order
        if key[:3] != last_par:
            starts.append(len(out))
            last_par = key[:3]
        out.append((" ".join(w for w, _ in words), round(sum(c for _, c in words) / len(words))))
    return out, starts, version


def render_lines(lines: list[tuple[str, int]], starts: list[int], threshold: int) -> str:
    parts: list[str] = []
    for n, (text, conf) in enumerate(lines):
        if n in starts and parts:
            parts.append("")
        parts.append(text + unsure_mark(conf) if conf < threshold else text)
    return "\n".join(parts)


def image_to_text(data: bytes, budget: Budget) -> tuple[str, str, dict[str, Any], int, str]:
    """(readable text, media type, metadata, page count, extractor version)."""
    import pytesseract

    image = open_image(data, budget)
    media = MEDIA_TYPES[image.format]
    frames = int(getattr(image, "n_frames", 1) or 1)
    budget.check_pages(frames)
    threshold = budget.limits.ocr_min_confidence
    bodies: list[str] = []
    confidence: list[int] = []
    version = ""
    for frame in range(frames):
        budget.check_time()
        if frames > 1:
            image.seek(frame)
            check_pixels(image.size[0], image.size[1], budget, f"frame {frame + 1}")
        lines, starts, version = ocr_image(image, budget)
        text = render_lines(lines, starts, threshold)
        confidence += [c for _, c in lines]
        bodies.append(f"## Page {frame + 1}\n\n{text}" if frames > 1 else text)
        budget.check_chars(sum(len(b) for b in bodies))
    meta = {"ocr": {"engine": f"tesseract {version}", "lang": LANG, "min_confidence": threshold,
                    "confidence": confidence, "unsure_lines": sum(1 for c in confidence if c < threshold)}}
    return "\n\n".join(bodies), media, meta, frames, f"{REVISION}+tesseract-{version}+pytesseract-{pytesseract.__version__}"


_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"II*\x00", "image/tiff"),
          (b"MM\x00*", "image/tiff"))


def _kind(data: bytes) -> str | None:
    return next((media for magic, media in _MAGIC if data.startswith(magic)), None)


def _read(data: bytes, budget: Budget) -> Reading:
    body, media, meta, pages, version = image_to_text(data, budget)
    return Reading(body, None, version, metadata=meta, pages=pages, media_type=media)


def _verify(data: bytes, name: str, what: str, magic: str | None) -> None:
    if _kind(data):
        return  # the bytes say which of the three it is
    if magic is not None:
        raise InputError(name, "unsupported-type", f"{what} says an image but the content is {magic}")
    raise InputError(name, "malformed", "not a PNG, JPEG or TIFF image")


FORMAT = Format(
    media_type="image/png", extractor="ocr", extensions=(".png", ".jpg", ".jpeg", ".tif", ".tiff"), read=_read,
    binary=True, media_aliases=("image/png", "image/jpeg", "image/jpg", "image/tiff"),
    claims=lambda data: _kind(data) is not None, verify=_verify, empty_hint="OCR found no text in the image",
)
