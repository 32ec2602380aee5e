"""An answer that reads like one: each kept line becomes a sentence a person would write (a table row says
its header: "Revenue — Q1 2026: £1.88M"; list markers, emphasis and link targets go), carrying its
citations, the line of the context it leans on included ("Project Driftwood kickoff: … is the sponsor"
cites the kickoff's title line too)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot
from stigmergy.answer.slots import kind_fill
from stigmergy.answer.terms import fold
from stigmergy.answer.values import Asked
from stigmergy.gates.figures import MONTH_NAMES, claim_text
from stigmergy.pages.wikilinks import parse_wikilinks
from stigmergy.repo.containment import read_contained
from stigmergy.repo.layout import classify

# Strong emphasis, shown as its words; not inside a code span ("`setuptools.build_meta:__legacy__`" is a name), nor
# a word's own underscores ("my__var"): CommonMark does not read those as emphasis either.
_CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
_STRONG_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w])__(?=\S)(.+?)(?<=\S)__(?![\w])")


def _plain_emphasis(text: str) -> str:
    """The text with its strong emphasis and code-span backticks dropped, a code span's content kept as written."""
    def prose(part: str) -> str:
        return _STRONG_RE.sub(lambda e: e.group(1) or e.group(2), part).replace("**", "").replace("`", "")

    out, at = [], 0
    for m in _CODE_SPAN_RE.finditer(text):
        out.append(prose(text[at : m.start()]))
        out.append(m.group(2).strip() or m.group(2))
        at = m.end()
    out.append(prose(text[at:]))
    return "".join(out)
# A cross-reference as the reader sees it: "{ref}`locally-built wheel cache <wheel-caching>`" (MyST) and
# ":ref:`the cache <wheel-caching>`" (reStructuredText) show their words, not the role or the target.
_ROLE_RE = re.compile(r"(?:\{[\w:.-]+\}|:[\w:.-]+:)`([^`<]+?)(?:\s*<[^>`]*>)?`")
_DATED_HEADING_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s*·\s*")
MAX_HEAD_LINES = 200


def cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


# Capture writes a document's "<" before a tag and its "&" before an entity as "&lt;" and "&amp;" so that the
# source page renders as the document read (capture/extract.escape_markup); an answer shows what the page shows.
_ESCAPED_RE = re.compile(r"&(lt|amp);")
_AUTOLINK_RE = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
# The HTML a Markdown document held, shown as its words: "See <a href="…">related blog post</a>". Named tags
# only: "<venv path>/src/SomeProject" is a placeholder, not a tag.
_INLINE_TAG_RE = re.compile(r"</?(?:a|b|i|em|strong|code|span|sup|sub)\b[^>]*>", re.I)
_BLOCK_TAG_RE = re.compile(r"</?(?:br|p|div|table|thead|tbody|tr|td|th|ul|ol|li|img)\b[^>]*>", re.I)


def shown(text: str) -> str:
    """A source line's text as its page renders it."""
    if "&" not in text and "<" not in text:
        return text
    text = _ESCAPED_RE.sub(lambda m: "<" if m.group(1) == "lt" else "&", text)
    return _BLOCK_TAG_RE.sub(" ", _INLINE_TAG_RE.sub("", _AUTOLINK_RE.sub(r"\1", text)))


def _named_links(raw: str, text: str) -> str:
    """A link shown by another name than its page's ("[[Oliver Brandt|Olly]]") says whom it names, once: "Olly
    (Oliver Brandt) — Head of Sales". A label that is part of the page's name ("[[Project Driftwood|Driftwood]]")
    needs no gloss."""
    if "[[" not in raw:
        return text
    for link in parse_wikilinks(raw):
        label, target = (link.label or "").strip(), link.target.strip().rsplit("/", 1)[-1].removesuffix(".md")
        if not label or not target or fold(label) in fold(target) or "(" in label:
            continue
        at = re.search(r"(?<!\w)" + re.escape(label) + r"(?!\w)", text)
        if at and not text[at.end():].lstrip().startswith("("):
            text = f"{text[: at.end()]} ({target}){text[at.end():]}"
    return text


def readable(line: Line) -> str:
    """The line as a sentence."""
    text = line.text.strip()
    if text.startswith("|") and line.before.startswith("|"):
        head, row = cells(line.before), cells(text)
        if len(head) == len(row) and len(row) >= 2:
            text = f"{row[0]} — " + "; ".join(f"{h}: {c}" for h, c in zip(head[1:], row[1:], strict=True) if c)
        else:
            text = ", ".join(c for c in row if c)
    elif text.startswith("|"):
        text = ", ".join(c for c in cells(text) if c)
    text = _ROLE_RE.sub(lambda m: m.group(1).strip(), text)
    text = _plain_emphasis(_named_links(line.raw, text))
    text = shown(text)
    text = " ".join(text.split())
    if text and text[-1] not in ".!?:;)”\"'":
        text += "."
    return text[:1].upper() + text[1:]


def _source_head(root: Path, layers: tuple[str, ...], path: str, want_date: str, heading: str = "",
                 before: int = 0) -> list[Cite]:
    """A readable source's title line, and its occurred_at line when that is the date the answer gives; with
    `heading`, the last line above line `before` that is that heading (a Markdown or reStructuredText
    section title the answer leans on is cited too)."""
    kind = classify(path)
    if kind is None or kind[0] != "source" or kind[1] not in layers:
        return []
    text = read_contained(root, path, errors="replace") or ""
    out = []
    if heading:
        lines = text.split("\n")
        for i in range(min(before, len(lines)), 0, -1):
            if lines[i - 1].strip().lstrip("#").strip() == heading.strip():
                out.append(Cite(path, i, i, lines[i - 1]))
                break
    for i, t in enumerate(text.split("\n")[:MAX_HEAD_LINES], 1):
        if want_date and t.startswith("occurred_at:") and want_date in t:
            out.append(Cite(path, i, i, t))
        if t.startswith("# "):
            out.append(Cite(path, i, i, t))
            break
    return out


# A short line whose subject is a pronoun says what it says of its previous sentence's subject: "You do not
# need to rotate them." is an answer only with "Beta API keys are now production keys." before it.
_BACK_RE = re.compile(r"\b(?:it|its|they|them|their|these|those|he|she|him|his|her)\b", re.I)
SHORT_LINE = 8  # words: as the embedder's reading of a line (select.embed_text)


# A sentence whose subject is "this" or "that" ("This was changed in pip 10.0 due to …") speaks of the sentence
# before it, at any length: "why isn't eager the default" is answered with "The default strategy is
# only-if-needed." before it.
_THIS_RE = re.compile(r"^(?:this|that)\s+(?:is|was|has|had|will|would|can|could|may|might|must|should|means|meant|"
                      r"changed|happened|applies|applied|became|becomes|made|makes|also|only|allows|lets|caused|"
                      r"implements|uses|requires|needs|includes|provides|contains|depends|works|runs|replaces|supports|"
                      r"covers|affects|ensures|prevents|avoids|removes|adds|keeps|gives|returns)\b", re.I)


def leans_back(text: str) -> bool:
    return (len(text.split()) < SHORT_LINE and bool(_BACK_RE.search(text))) or bool(_THIS_RE.match(_main_clause(
        text.strip()))) or bool(_OLD_ONE_RE.search(text)) or bool(_SUCH_CASES_RE.search(text)) or bool(
        _GERUND_THIS_RE.match(text.strip())) or bool(_USED_FOR_RE.search(text))


# "In combination with the --dry-run and --ignore-installed it can be used to *resolve* …": what "it" is (the
# --report option the sentence before names) is the answer's subject
_USED_FOR_RE = re.compile(r"\b(?:it|they|this|these) (?:can|could|may|might) (?:also )?be used\b", re.I)


_GERUND_THIS_RE = re.compile(r"^(?![a-z]*thing\b)[a-z]+ing (?:this|that|it) (?:to|on|off|as|in)\b", re.I)  # "Setting this to …"


# "Versions of pip prior to v24.2 did not use system certificates by default. To use system certificates with pip
# v22.2 or later, you must opt in": a sentence of releases said after one that bounds them by a later release holds
# only up to that release; the bound is said with it.
_BOUND_RE = re.compile(r"\b(?:prior to|before|until|up to|older than) (?:v|version |release |pip )?\d+\.\d+", re.I)
_RELEASE_RE = re.compile(r"\b(?:v|version |release |pip )\d+\.\d+", re.I)


def bounded_before(line: Line) -> bool:
    """The line gives releases and the sentence before it bounds them by a later release (`_BOUND_RE`)."""
    return bool(_RELEASE_RE.search(line.text)) and bool(_BOUND_RE.search(line.before)) and not _BOUND_RE.search(line.text)


# "While it may be coincidentally true that pip installs in the order of the file, this is not a promise": the main
# clause after a leading subordinate one is what leans back.
_LEADING_CLAUSE_RE = re.compile(r"^(?:while|although|though|even though|whereas)\b[^,]{3,200},\s*", re.I)


def _main_clause(text: str) -> str:
    m = _LEADING_CLAUSE_RE.match(text)
    return text[m.end() :] if m else text


# "We will accept bug reports in such cases, but for now the zip application should not be used in production": the
# cases the sentence before names ("there could be issues in some situations", itself "in this form": experimental).
_SUCH_CASES_RE = re.compile(r"\bin (?:such|these|those|this|that) (?:cases?|situations?|form|scenarios?|circumstances)\b",
                            re.I)


# "…, you may wish to delete the old directory": the one the sentences before it speak of. Such a sentence reads
# two back when the one before it speaks of "this cache" too ("Previously this cache was stored in a directory
# called http", after "A new cache format is now used, stored in a directory called http-v2").
_OLD_ONE_RE = re.compile(r"\bthe (?:old|previous|former) (?!versions?\b|releases?\b)[a-z]+\b", re.I)
_DEMONSTRATIVE_RE = re.compile(r"\b(?:this|these|that|those) (?!is\b|was\b|are\b|were\b)[a-z]+\b", re.I)


def sentence(line: Line, slot: Slot, via_context: bool, names: Names, q: Asked, root: Path,
             layers: tuple[str, ...], with_text: bool, then: Line | None = None,
             earlier: Line | None = None) -> dict[str, Any]:
    """One answer sentence for `line`, with the citations it rests on; `then`: the sentence after it that goes
    on with it (evidence.follow_on), said and cited with it; `earlier`: the sentence before it as an evidence line
    (evidence.said_before), whose own sentence before is said too when both lean back."""
    text = readable(line)
    shown = [u for u in line.links if u not in text] if slot.kind == "place" else []
    if shown:
        text = f"{text.rstrip('.')} ({', '.join(shown)})."  # where: the address, not only the link's words
    cites: list[Cite] = [] if line.type == "source" else [line.wiki_cite]
    cites.extend(line.cites)
    if line.before_cite is not None and line.text.startswith("|"):
        cites.append(line.before_cite)
    elif line.before and not via_context and (leans_back(line.text) or bounded_before(line)):
        text = f"{readable(replace(line, text=claim_text(line.before).strip(), before=''))} {text}"
        if line.before_cite is not None:
            cites.append(line.before_cite)
        if earlier is not None and earlier.before and earlier.before_cite is not None and (
                (_OLD_ONE_RE.search(line.text) and _DEMONSTRATIVE_RE.search(earlier.text)) or (
                (_SUCH_CASES_RE.search(line.text) or _THIS_RE.match(_main_clause(line.text.strip())))
                and leans_back(earlier.text))):
            text = f"{readable(replace(earlier, text=claim_text(earlier.before).strip(), before=''))} {text}"
            cites.append(earlier.before_cite)
    if via_context:
        label, extra = _context(line, slot, names, q, root, layers)
        if label:
            text = f"{label}: {text}" if not label.endswith((".", "!", "?")) else f"{label} {text}"
            cites.extend(extra)
    if line.note and line.note not in text:
        # What a release changed is said with its release, as the documentation shows it.
        text = f"{line.note}: {text}"
        if line.note_cite is not None:
            cites.append(line.note_cite)
    elif line.note and text.rstrip(".") == line.note and not via_context:
        # A note with no body (".. versionadded:: 22.2") is about the section it opens: "pip inspect: New in …".
        label = line.headings[-1] if line.headings else line.title
        text = f"{label}: {text}"
        cites.extend(c for cite in line.cites for c in _source_head(root, layers, cite.path, "", label, cite.start))
    dated = _dated(text, line.date) if line.type == "source" else text
    if dated != text:
        text = dated  # and the source's date line cited, which says the day
        cites.extend(c for cite in line.cites[:1] for c in _source_head(root, layers, cite.path, line.date[:10]))
    if then is not None:
        text = f"{text} {readable(then)}"
        cites.extend(then.cites)
    unique = list(dict.fromkeys(cites))
    return {"text": text, "page": line.page, "title": line.title, "type": line.type, "line": line.line,
            "citations": [c.to_dict(with_text) for c in unique]}


# Only the source's own day: "tomorrow" would be a date no cited line says (a figure the answer made up).
_RELATIVE_DAY_RE = re.compile(r"\b(today|tonight|this morning|this afternoon|this evening)\b(?!['’]s)", re.I)


def _dated(text: str, date: str) -> str:
    """A day a source names by its own date ("deprecated from today", in release notes of 2 June 2026) with that
    date beside it: read later, "today" is no answer to "when"."""
    m = _RELATIVE_DAY_RE.search(text)
    if not m or not date:
        return text
    try:
        day = dt.date.fromisoformat(date[:10])
    except ValueError:
        return text
    # The month by the project's own names: strftime's %B follows the process's locale ("Juni" under de_DE).
    month = MONTH_NAMES[day.month - 1].capitalize()
    if re.search(rf"\b{day.day}(?:st|nd|rd|th)?\s+{month}\b|\b{month}\s+{day.day}\b", text, re.I):
        return text  # "switched off this morning, 26 June, by Grace": the line gives the day itself
    return f"{text[: m.end()]} ({day.day} {month} {day.year}){text[m.end() :]}"


def _context(line: Line, slot: Slot, names: Names, q: Asked, root: Path, layers: tuple[str, ...]
             ) -> tuple[str, list[Cite]]:
    """The piece of the line's context that holds the slot's value, and the lines that say it."""
    if line.before and not line.text.startswith("|") and kind_fill(slot, line.before, names, q) > 0:
        return line.before.rstrip(), [line.before_cite] if line.before_cite else []
    for heading in reversed(line.headings):
        if kind_fill(slot, heading, names, q) > 0:
            m = _DATED_HEADING_RE.match(heading)
            label = re.sub(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]", lambda mm: mm.group(2) or mm.group(1), heading)
            date = m.group(1) if m else ""
            label = _DATED_HEADING_RE.sub(lambda mm: f"{mm.group(1)}, ", label) if m else label
            extra = [c for cite in line.cites for c in _source_head(root, layers, cite.path, date, heading, cite.start)]
            return label, list(dict.fromkeys(extra))
    if kind_fill(slot, line.title, names, q) > 0:
        if line.title_cite is not None:
            return line.title, [line.title_cite]
        extra = [c for cite in line.cites for c in _source_head(root, layers, cite.path, "")]
        return line.title, list(dict.fromkeys(extra))
    return "", []
