"""A source page's text as the answerer reads it: the sentences of its paragraphs, list items, table rows and chat
turns (`source_units`), each with the sentence or row header it is read after, its reStructuredText heading and, for a
list item's later sentences, the list's lead-in (`item_lead_in`); which lines state anything at all (`statement`,
`row_statement`, `is_claim`). evidence.py makes the answerer's lines of them."""

from __future__ import annotations

import re
from functools import lru_cache

from stigmergy.answer.releases import FENCE_RE, empty_version_note, fence_label, rst_note, version_notes
from stigmergy.gates.figures import claim_text
from stigmergy.pages.markdown import mask_code_spans


def is_claim(raw: str) -> bool:
    s = raw.strip()
    return bool(s) and (not s.startswith(("#", ">", "<!--", "```", "|---", "| ---")) or bool(AUTO_ITEM_RE.match(s))
                        ) and s.strip("|-: ") != ""


# "#. Emit a ``pylock.toml`` …": a reStructuredText list item numbered for you, not a Markdown heading.
AUTO_ITEM_RE = re.compile(r"^\s*#\.\s+")


WEB_LINK_RE = re.compile(r"\]\((https?://[^)\s]+)\)")
_MARKER_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#\.)\s+")
# A line that opens a turn of its own: a chat message or log entry ("[08:02] Sam: …", "07:44 The queue …"),
# or a labelled line ("Venue: …"): hard-wrapped prose never starts a line like this.
_TURN_RE = re.compile(r"^\s*(?:\[\d{1,2}:\d{2}(?::\d{2})?\]|\d{1,2}:\d{2}\s|[A-Z][\w .'’()-]{0,40}:\s)")
# Abbreviations whose period is no sentence's end ("e.g. Git", "i.e. a commit hash", "cf. PEP 440", "vs. the old one").
_ABBREVIATION_END_RE = re.compile(r"(?:^|[\s(\[])(?:e\.\s?g|i\.\s?e|cf|vs|viz|approx|incl|esp|resp)\.$", re.I)
# A sentence may open with code ("``--only-binary=:all:`` or ``--no-deps`` is required …").
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"”')]?\s+(?=[A-Z0-9£$€\"“(]|``?-)")


def _source_units(content: list[str], first: int, body_from: int) -> list[tuple[int, int, str, str]]:
    return [u[:4] for u in source_units(content, first, body_from)]


# A reStructuredText section underline (or overline): the line above it is a heading, not a statement.
_UNDERLINE_RE = re.compile(r"^\s*([=\-~^*#+`'\".:_])\1{2,}\s*$")
# Tildes alone, which open a Markdown fence after a blank line and underline a heading under a title line
_TILDES_RE = re.compile(r"^~{3,}\s*$")
# Markup that states nothing: directives and targets (".. note::", ".. _label:"), a lone "::", a directive's
# options and a document's fields (":maxdepth: 2", ":http-equiv=refresh: 3; url=…", ":orphan:").
# (and a Markdown link's reference definition, "[pypa/get-pip]: https://github.com/pypa/get-pip": where a link in the
# text points, which says nothing of its own)
_MARKUP_RE = re.compile(r"^\s*(?:\.\.\s|::|\{[a-z-]+\}\s*$|:[a-z][\w-]*(?:=[\w-]+)?:(?:\s|$)|\[[^\]]{1,80}\]:\s*(?:https?://|<|/))|"
                        r"lorem ipsum", re.I)
_ALPHA_WORD_RE = re.compile(r"[^\W\d_]{2,}")
# A reStructuredText box: ".. note::", ".. attention:: text"
_ADMONITION_RE = re.compile(r"^\s*\.\.\s+(?:attention|caution|danger|error|hint|important|note|tip|warning|seealso|"
                            r"admonition)::\s*(.*?)\s*$", re.I)


def statement(text: str) -> bool:
    """A source sentence that states something: not markup, and at least two words."""
    return not _MARKUP_RE.search(text) and len(_ALPHA_WORD_RE.findall(text)) >= 2


def row_statement(text: str, before: str) -> bool:
    """A table row under its header row is read with it ("Never — Number of responses: 68"): a row of a
    one-word label and a figure states as much as a sentence does."""
    cells = [c for c in text.strip().strip("|").split("|") if c.strip()]
    return (text.startswith("|") and before.startswith("|") and len(cells) >= 2 and not _MARKUP_RE.search(text)
            and bool(_ALPHA_WORD_RE.search(text)))


# A sentence that opens with a pointer back ("This can be…", "These options…", "It also…").
_ANAPHOR_RE = re.compile(r"^\s*(?:this|that|these|those|such|it)\b", re.I)
# A sentence that goes on with the one before it: its subject is that one's ("It is not on the roadmap.",
# "These original hashes are obtained from a origin.json file"), or it qualifies it ("However, weaker ones …").
# … and "Setting this to os.devnull disables …": a gerund whose object is what the sentence before named
GOES_ON_RE = re.compile(r"^\s*(?:it|its|this|that|these|those|they|their|such|however|but|"
                         r"(?![a-z]*thing\b)[a-z]+ing (?:this|it|that))\b", re.I)  # "Everything that …" is no gerund
FOLLOW_ON_WORDS = 25  # a longer sentence says something of its own
# A paragraph that is only a literal: an option, a setting or a code span, perhaps with its value's placeholder.
_TERM_ALONE_RE = re.compile(r"^\s*(?:``[^`]{1,60}``|`[^`]{1,60}`|--?[A-Za-z][\w-]*(?:[ =]<?[\w-]+>?)?)\s*:?\s*$")
# Another reason beside the one before: "also" among a sentence's first eight words, or an opener that adds.
ALSO_RE = re.compile(r"^\s*(?:(?:\S+\s+){0,7}also\b|(?:another|in addition|moreover|besides|on top of that)\b)", re.I)
# A short instruction to the reader: what to bring, do or ask for next
NEXT_STEP_RE = re.compile(r"^\s*(?:bring|take|show|ask|call|email|wear|collect|sign|present|remember|make sure|"
                           r"do not|don't|then)\b", re.I)
_BARE_SEP_RE = re.compile(r"\s\|\s")


def _bare_cells(raw: str) -> int:
    """The column separators of a table row written without its outer pipes ("What | Where | Who to ask"), as
    an HTML table or a spreadsheet reads out; 0 for any other line."""
    s = raw.strip()
    if not s or s.startswith(("|", "#", ">", "```")) or _MARKER_RE.match(raw):
        return 0
    return len(_BARE_SEP_RE.findall(mask_code_spans(s) if "`" in s else s))  # "`cat a | sort`" is one cell


def _bare_row(content: list[str], offset: int) -> bool:
    """A line of a table without outer pipes: a run of at least two lines with the same number of " | "
    separators. Read as one paragraph, a wide table of this kind became one long line that "answered"
    whatever any of its cells mentioned; read as rows, each row stands alone with the header row as its
    context, like a Markdown table's."""
    n = _bare_cells(content[offset])
    if not n:
        return False
    return any(0 <= j < len(content) and _bare_cells(content[j]) == n for j in (offset - 1, offset + 1))


_BROKEN_AT_HYPHEN_RE = re.compile(r"[A-Za-z0-9]-$")


def _sentences(block: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """A block's lines joined and split into sentences, each with the lines it spans."""
    text, starts = "", []
    for n, part in block:
        starts.append((len(text), n))
        # "signed with HMAC-" / "SHA256": a line broken at a word's hyphen joins without a space.
        text += part + ("" if _BROKEN_AT_HYPHEN_RE.search(part) else " ")
    out: list[tuple[int, int, str]] = []
    pos = 0
    for piece in _SENTENCE_END_RE.split(text.rstrip()):
        at = text.index(piece, pos)
        end = at + len(piece)
        pos = end
        if out and _ABBREVIATION_END_RE.search(out[-1][2]):
            # "(e.g. Git, Mercurial, etc.)": the period of an abbreviation ends no sentence
            first, _, said = out.pop()
            out.append((first, max(n for off, n in starts if off < end), f"{said} {piece.strip()}"))
            continue
        out.append((max(n for off, n in starts if off <= at), max(n for off, n in starts if off < end), piece.strip()))
    return out


_RST_CODE_RE = re.compile(r"^(\s*)\.\.\s+(?:code-block|code|sourcecode|prompt|doctest)::")
LEAD_IN_WORDS = 5  # a lead-in this short ("To run tests:") reads the paragraph before it too
# A lead-in that ends on what the sentence before it said: "There are a number of reasons for this:"
_POINTS_BACK_RE = re.compile(r"\b(?:this|that|these|those|it|them)\s*:\s*$", re.I)


def _paragraph_before(blocks: list[tuple[list[tuple[int, str]], str, tuple[int, int] | None]], breaks: set[int]
                      ) -> tuple[int, int, str] | None:
    """The last sentence of the plain paragraph right before the last block, in the same section."""
    for i in range(len(blocks) - 2, -1, -1):
        if i + 1 in breaks:
            return None
        block = blocks[i][0]
        if not block:
            continue
        head = block[0][1]
        if head.startswith("|") or _MARKER_RE.match(head) or _TURN_RE.match(head) or head.rstrip().endswith(":"):
            return None
        return _sentences(block)[-1]
    return None


def source_units(content: list[str], first: int, body_from: int
                 ) -> list[tuple[int, int, str, str, tuple[int, int] | None, str]]:
    """A source's text as (first line, last line, sentence, its context): hard-wrapped paragraphs and list
    items are joined, then split into sentences, each citing exactly the lines it spans; a sentence's
    context is the previous sentence of its paragraph. A table row stands alone, with the table's header
    row as its context (the row says "| Revenue | £1.88M |", the header says which quarter). A list item or
    a code block takes the sentence that introduces it as its context ("The default clone location is:" for
    "- `<venv path>/src/SomeProject` in virtual environments"; a tab's label, "Windows", for the path in its
    code block)."""
    # (lines, context, the context's lines)
    blocks: list[tuple[list[tuple[int, str]], str, tuple[int, int] | None]] = []
    header, header_at = "", 0
    in_table = in_code = False
    heading_at: dict[int, str] = {}  # block index -> the reStructuredText heading above it
    heading = ""
    intro: tuple[str, tuple[int, int]] | None = None  # the sentence (or label) that introduces what follows
    intro_depth = 0  # the fence depth a label introduces (0: a sentence)
    fences: list[str] = []
    pending: tuple[str, tuple[int, int]] | None = None  # a reStructuredText release note, for its body
    rst_code: int | None = None  # the indent of the reStructuredText code directive whose body is being read
    breaks: set[int] = set()  # block indices where a section, a table or a code block began
    for offset, raw in enumerate(content):
        n = first + offset
        # "~~~~~~~~" under a title line is a reStructuredText heading's underline, not a Markdown fence
        underline = bool(offset and content[offset - 1].strip() and _TILDES_RE.match(raw)) and not fences
        fence = FENCE_RE.match(raw) if offset >= body_from and not underline else None
        if fence:
            # A Markdown code fence (never a section underline), nested ones too (a tab holding a code
            # block): an opener's label ("````{tab} Windows") introduces what it holds.
            marker, label = fence.group(1), fence_label(fence.group(2))
            if fences and not label and marker[0] == fences[-1][0] and len(marker) >= len(fences[-1]):
                fences.pop()
                if intro_depth > len(fences):
                    intro, intro_depth = None, 0
            else:
                fences.append(marker)
                if _ALPHA_WORD_RE.search(label):
                    intro, intro_depth = (label, (n, n)), len(fences)
            in_code = bool(fences)
            breaks.add(len(blocks))
            blocks.append(([], "", None))
            if empty_version_note(content, offset, fence.group(2)):
                # "```{versionadded} 22.3" closed at once: the note is about the section it opens, and says so
                # alone, as an empty ".. versionadded:: 22.3" does ("New in version 22.3.")
                blocks.append(([(n, f"{label}.")], "", None))
                blocks.append(([], "", None))
            continue
        if offset >= body_from and _UNDERLINE_RE.match(raw):
            if blocks and len(blocks[-1][0]) == 1 and offset and content[offset - 1].strip():
                heading = blocks.pop()[0][0][1].strip()  # the title line above its underline
            blocks.append(([], "", None))
            breaks.add(len(blocks))
            heading_at[len(blocks)] = heading
            intro = None
            continue
        if rst_code is not None and raw.strip() and len(raw) - len(raw.lstrip()) <= rst_code:
            rst_code = None  # dedented: the code block is over
            in_code = bool(fences)
        code = _RST_CODE_RE.match(raw) if offset >= body_from else None
        if code:
            # ".. code-block:: console" and its indented lines: code, introduced by the sentence before it
            rst_code, in_code = len(code.group(1)), True
            breaks.add(len(blocks))
            blocks.append(([], "", None))
            continue
        admonition = _ADMONITION_RE.match(raw) if offset >= body_from else None
        if admonition:
            # ".. attention::" then, indented, "PyPI no longer supports ``pip search`` …": the box's body says what
            # it says; the directive is markup, not the first words of its first sentence
            blocks.append(([(n, admonition.group(1))] if admonition.group(1) else [], "", None))
            if admonition.group(1):
                blocks.append(([], "", None))
            continue
        note = rst_note(raw) if offset >= body_from else None
        if note is not None:
            # ".. versionadded:: 22.2" states what Sphinx renders ("New in version 22.2."); the indented body
            # that follows reads it as its context, as a MyST note's body does.
            breaks.add(len(blocks))
            blocks.append(([(n, f"{note[0]}: {note[1]}" if note[1] else f"{note[0]}.")], "", None))
            blocks.append(([], "", None))
            pending = (note[0], (n, n))
            continue
        bare = offset >= body_from and _bare_row(content, offset)
        raw = f"| {' | '.join(c.strip() for c in raw.split('|'))} |" if bare else raw
        row = raw.lstrip().startswith("|")
        if offset < body_from or not is_claim(raw):
            in_table = in_table and row  # a separator row (|---|) keeps the table going
            if raw.lstrip().startswith("#"):
                intro = None  # a new section: what introduced the last one's lists is behind
                breaks.add(len(blocks))
            blocks.append(([], "", None))
            continue
        if row:
            breaks.add(len(blocks))
            if not in_table:
                header, header_at, in_table = raw.strip(), n, True
                blocks.append(([(n, raw.strip())], "", None))
            else:
                blocks.append(([(n, raw.strip())], header, (header_at, header_at)))
            blocks.append(([], "", None))
            continue
        in_table = False
        item = bool(_MARKER_RE.match(raw))
        if not blocks or not blocks[-1][0] or item or _TURN_RE.match(raw) or _MARKUP_RE.match(raw):
            if not (item or in_code):
                intro = None  # a paragraph of its own: not part of a list the last lead-in introduced
            ctx, at = intro if intro and (item or in_code) else pending or ("", None)
            blocks.append(([], ctx, at))
        pending = None
        blocks[-1][0].append((n, raw.strip()))
        if raw.rstrip().endswith(":") and not in_code:
            said = _sentences(blocks[-1][0])
            a, b, last = said[-1]
            lead = claim_text(last).strip() or last
            prev = _paragraph_before(blocks, breaks) if len(said) == 1 and len(lead.split()) <= LEAD_IN_WORDS else None
            if len(said) >= 2 and _POINTS_BACK_RE.search(lead):
                # "… you must not use pip's internal APIs in this way. There are a number of reasons for this:": the
                # lead-in's "this" is the sentence before it, which the items give the reasons of
                prev = said[-2]
            if prev is not None:
                # "To run tests:" says little; the paragraph before it says what for ("… run the tests in
                # parallel …"): both introduce the command.
                lead, a = f"{prev[2]} {lead}", prev[0]
            intro = (lead, (a, b))
    units: list[tuple[int, int, str, str, tuple[int, int] | None, str]] = []
    current = ""
    ended: tuple[str, tuple[int, int]] | None = None  # the last sentence of the previous plain paragraph
    item_ended: tuple[str, tuple[int, int]] | None = None  # … of the previous list item
    for i, (block, context, context_at) in enumerate(blocks):
        current = heading_at.get(i, current)
        if i in breaks:
            ended = item_ended = None
        if not block:
            continue
        previous, previous_at = context, context_at
        sentences = _sentences(block)
        raw_first = content[block[0][0] - first]
        if not previous and item_ended and not _MARKER_RE.match(raw_first) and raw_first[:2] == "  ":
            # "- Hashes are required for _all_ requirements." then, indented under it, "This is because …": a
            # list item's further paragraph goes on with the item.
            previous, previous_at = item_ended
        elif not previous and ended and _TERM_ALONE_RE.match(ended[0]):
            # "``--ignore-installed``" alone, then "Act as if the currently installed version isn't there …": a
            # paragraph that is only a literal is the term the next paragraph describes (a definition list's term).
            previous, previous_at = ended
        elif not previous and ended and _ANAPHOR_RE.match(sentences[0][2]):
            # "This can be useful in deploy scripts, …" opens a paragraph about what the one before said
            # ("… by passing --require-hashes"): that sentence is its context.
            previous, previous_at = ended
        for a, b, piece in sentences:
            units.append((a, b, piece, previous, previous_at, current))
            previous, previous_at = piece, (a, b)
        item = bool(_MARKER_RE.match(block[0][1]))
        plain = not (block[0][1].startswith("|") or item or _TURN_RE.match(block[0][1]))
        last = (sentences[-1][2], (sentences[-1][0], sentences[-1][1])) if sentences else None
        ended = last if plain else None
        if item or (item_ended and raw_first[:2] == "  "):
            item_ended = last  # an item, or a paragraph of one, that a further indented paragraph may go on with
        else:
            item_ended = None
    return units


def item_lead_in(leads: dict[tuple[int, int], str], a: int, b: int, sentence: str, before: str,
                 before_at: tuple[int, int] | None) -> str:
    """The lead-in ("Over the two weeks at 100%:") of the list item whose later sentence this is ("All 212 telemetry
    gaps in the period were real"): the first sentence reads it as `before`, the later ones read the sentence before
    them, and the lead-in says when and where for all of them. `leads` holds each unit's own, by its lines."""
    first_of_item = bool(_MARKER_RE.match(sentence)) and before.rstrip().endswith(":")
    leads[(a, b)] = before if first_of_item else leads.get(before_at, "") if before_at else ""
    return "" if first_of_item else leads[(a, b)]


@lru_cache(maxsize=256)
def units_of(text: str, first: int, body_from: int
             ) -> tuple[tuple[int, int, str, str, tuple[int, int] | None, str], ...]:
    """`source_units` of a page's read text, memoised: a warm server reads the same pages for many questions."""
    return tuple(source_units(text.split("\n"), first, body_from))


@lru_cache(maxsize=256)
def leads_of(text: str, first: int, body_from: int) -> tuple[str, ...]:
    """`item_lead_in` of each of `units_of`'s units, in their order, memoised as they are."""
    leads: dict[tuple[int, int], str] = {}
    return tuple(item_lead_in(leads, a, b, piece, before, at) for a, b, piece, before, at, _ in units_of(
        text, first, body_from))


@lru_cache(maxsize=256)
def notes_of(text: str, first: int, body_from: int) -> dict[int, tuple[str, int]]:
    return version_notes(text.split("\n"), first, body_from)
