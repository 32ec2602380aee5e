"""The deterministic planner on documents nobody here wrote: entities from front matter, no decision
titles as entities, numbered paths kept whole, no capture ids in page titles."""

from __future__ import annotations

from pathlib import Path

from test_plan_support import file_and_commit, make_repo, write_source

from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.plan.deterministic.statements import Link, Unit, source_links, split_units


def _entities_filed(tmp_path: Path, text: str, title: str) -> set[str]:
    """The titles of the entity pages one source with `text` files into a new wiki."""
    root = make_repo(tmp_path)
    file_and_commit(root, write_source(root, 1, text, title=title), 1)
    return set(_titles(root, "entities"))


def _titles(root: Path, folder: str) -> dict[str, dict]:
    out = {}
    for p in sorted((root / "wiki" / folder).glob("*.md")):
        meta, _, _ = split_front_matter(p.read_text(encoding="utf-8"))
        out[meta["title"]] = meta
    return out


def test_front_matter_entity_and_mentions_get_pages(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    rel = write_source(root, 1, "Quarterly numbers are in and the team is pleased with the quarter.\n",
                       title="KPI metrics 2026", metadata={"entity": "Cascade Foods", "mentions": ["Halden Mills"]})
    result = file_and_commit(root, rel, 1)
    ents = _titles(root, "entities")
    assert {"Cascade Foods", "Halden Mills"} <= set(ents), (ents, result.plan.summary)
    body = (root / "wiki/entities/Halden Mills.md").read_text(encoding="utf-8")
    assert "front matter" in body and "#L" in body


def test_decision_titles_are_not_entities(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = """## Decision 1: The Evidence Plane

We decided that the Evidence Plane holds every capture. The Evidence Plane is append-only.

## Decision 2: Two Ownership Zones

We agreed on Two Ownership Zones: code owns front matter, people own prose. Two Ownership Zones keep edits safe.
"""
    file_and_commit(root, write_source(root, 1, text, title="Architecture decisions"), 1)
    ents = _titles(root, "entities")
    assert not {"Evidence Plane", "Two Ownership Zones", "The Evidence Plane"} & set(ents), ents


def test_numbered_folder_is_not_a_sentence_end() -> None:
    units, _ = split_units(["Files live under Clients/3. Cascade Foods/contracts and are signed yearly."], 1)
    assert [u.text for u in units] == ["Files live under Clients/3. Cascade Foods/contracts and are signed yearly."]


def test_note_titles_never_carry_a_capture_id(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    body = "Revenue was $1.2M in Q1 2026 according to the finance team at Halden Mills.\n"
    for n in (1, 2, 3):
        rel = write_source(root, n, body.replace("1.2", f"1.{n}"), title="KPI metrics 2026", occurred_at="2026-04-01")
        file_and_commit(root, rel, n)
    notes = sorted(_titles(root, "notes"))
    assert len(notes) == 3, notes
    assert not any("cap_" in t for t in notes), notes
    # One date for the three: the file's name tells them apart (the next test).
    assert "KPI metrics 2026 (doc2.md)" in notes


def test_two_notes_of_one_title_and_date_are_told_apart_by_what_differs(tmp_path: Path) -> None:
    # pip's docs captured as one folder: "Pip install" from cli/ and from reference/, one date, became "Pip install"
    # and "Pip install (2026-12-05)", a date both share. What differs is the folder, then the file's name.
    root = make_repo(tmp_path)
    body = "The {} command installs packages from the index and from local archives, with their dependencies.\n"
    for n, where in enumerate(("docs/html/cli/pip_install.rst", "docs/html/reference/pip_install.rst",
                               "docs/html/ux/research-results/pip-install.md", "docs/html/cli/pip-install.md",
                               "docs/html/pip_install.txt"), 1):
        rel = write_source(root, n, body.format(f"variant {n}"), title="Pip install", occurred_at="2026-12-05",
                           locator=where)
        file_and_commit(root, rel, n)
    rel = write_source(root, 6, "Since version 25 the resolver backtracks over every candidate release by default.\n",
                       title="Pip install", occurred_at="2027-01-10", locator="docs/html/cli/pip_install.rst")
    file_and_commit(root, rel, 6)
    # docs/html/pip_install.txt: "html" says only that it holds documents, so its file's name tells it apart.
    assert sorted(_titles(root, "notes")) == ["Pip install", "Pip install (2027-01-10)", "Pip install (pip-install.md)",
                                              "Pip install (pip_install.txt)", "Pip install (reference)",
                                              "Pip install (research-results)"]


def test_titles_named_matches_whole_words_like_the_regex_it_replaces() -> None:
    import re

    from stigmergy.plan.context import _titles_named

    stems = ["Q2 review", "Lane", "Dwell time", "C++ (lang)", "Straße plan", "Lanes", "ab", "Mean kinetic temperature (MKT)"]
    paths = tuple(f"wiki/notes/{s}.md" for s in stems)
    text = "The q2 REVIEW covered Lane costs, dwell time, C++ (lang) and the mean kinetic temperature (MKT); Lanesend."
    want = [p for p, s in zip(paths, stems, strict=True) if len(s) >= 3 and re.search(
        rf"(?<![\w]){re.escape(s)}(?![\w])", text, re.I if " " in s else 0)]
    assert _titles_named(text, paths) == want
    assert "wiki/notes/Lane.md" in want and "wiki/notes/Lanes.md" not in want
    assert _titles_named("", paths) == [] and _titles_named(text, ()) == []


def test_chat_turns_are_statements_of_their_own() -> None:
    lines = ["[07:58] Ines Carvalho: good morning! launch day", "[08:01] Grace Nakamura: on-call is me until 14:00",
             "[08:02] Samuel Achterberg: confirmed, I'm backup", "Maya Okafor: well done everyone"]
    units, _ = split_units(lines, 10)
    assert [(u.start, u.text.split(":")[0]) for u in units] == [
        (10, "[07"), (11, "[08"), (12, "[08"), (13, "Maya Okafor")]


def test_lead_in_lines_are_not_copied_and_a_heading_period_travels_with_its_figure(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = """## Q1 2026 results

ARR at Halden Logistics was $1.2M, up 40% QoQ, a record for the account.

A few things about working with Halden Logistics.
"""
    file_and_commit(root, write_source(root, 1, text, title="Halden review"), 1)
    body = (root / "wiki/notes/Halden review.md").read_text(encoding="utf-8")
    assert "- Q1 2026 results: ARR at" in body and "#L" in body
    assert "A few things" not in body


def test_a_table_the_extractors_write_without_pipes_is_read_row_by_row() -> None:
    # HTML and DOCX tables come out as "a | b | c" lines with no outer pipes and no separator row.
    lines = ["## Practical", "", "What | Where | Who to ask", "Wi-Fi | LanternfishStaff | #it-help",
             "Meeting rooms | Tejo, Douro | Book in the calendar", "Beacon rack | Lab | Samuel Achterberg (Leeds)",
             "", "Best,", "Priya Raghunathan | VP Product | Lanternfish Labs", "Harbor API | Beacon | Tidemark",
             "", "Run `grep x | sort | uniq` first, then", "read a | b | c as prose."]
    units, _ = split_units(lines, 1)
    got = [(u.start, u.end, u.kind, u.text) for u in units]
    assert got[:3] == [
        (3, 4, "row", "Wi-Fi — Where: LanternfishStaff; Who to ask: #it-help"),
        (3, 5, "row", "Meeting rooms — Where: Tejo, Douro; Who to ask: Book in the calendar"),
        (3, 6, "row", "Beacon rack — Where: Lab; Who to ask: Samuel Achterberg (Leeds)"),
    ]
    # Two lines of the same shape are a table too, but too short to trust the first as a header.
    assert (9, 9, "row", "Priya Raghunathan; VP Product; Lanternfish Labs") in got
    assert (10, 10, "row", "Harbor API; Beacon; Tidemark") in got
    # A pipe in inline code or a lone line with pipes stays prose.
    assert got[-1][2] == "sentence" and got[-1][0] == 12


def test_a_bare_table_whose_cells_hold_code_is_read_row_by_row() -> None:
    # The HTML extractor writes a reference's inline code as code spans, in table cells too: the rows stay rows
    # (before, a backtick anywhere in a line made it prose, and the table one long line naming "Enum Name").
    lines = ["Code | Enum Name | Details", "`100` | `CONTINUE` | RFC 7231, Section 6.2.1",
             "`101` | `SWITCHING_PROTOCOLS` | RFC 7231, Section 6.2.2", "", "Pipe with `a | b | c` | x"]
    units, _ = split_units(lines, 1)
    got = [(u.start, u.end, u.kind, u.text) for u in units]
    assert got[0] == (1, 2, "row", "`100` — Enum Name: `CONTINUE`; Details: RFC 7231, Section 6.2.1")
    assert got[1][:3] == (1, 3, "row")
    # A pipe inside a code span is no cell separator: the last line has two cells, alone, so it is prose.
    assert got[-1][2] == "sentence"


def test_an_entity_named_in_one_row_of_a_docx_table_gets_that_row_not_the_table(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    text = """## Practical

What | Where | Who to ask
Wi-Fi | LanternfishStaff (password in 1Password) | #it-help
Meeting rooms | Tejo, Douro, Mondego | Book in the calendar
Beacon test rack | Lab, ground floor | Samuel Achterberg from Leeds
"""
    file_and_commit(root, write_source(root, 1, text, title="Lisbon office",
                                       metadata={"mentions": ["Samuel Achterberg"]}), 1)
    body = (root / "wiki/entities/Samuel Achterberg.md").read_text(encoding="utf-8")
    assert "Beacon test rack — Where: Lab, ground floor" in body, body
    assert "Meeting rooms" not in body and "Wi-Fi" not in body


def test_names_only_in_table_cells_make_no_entity_pages(tmp_path: Path) -> None:
    # A reference page's tables: each cell is read as a row, not as prose, so a capitalised pair repeated down
    # a column ("HTTP RFC") is no evidence of an identity. The same pair twice in prose is.
    text = """## Status codes

Code | Meaning | Defined in
200 | OK | HTTP RFC
301 | Moved Permanently | HTTP RFC
401 | Unauthorized | Authentication RFC
407 | Proxy Authentication Required | Authentication RFC

Harbor Gateway forwards the codes unchanged. We asked Harbor Gateway to log them too.
"""
    names = _entities_filed(tmp_path, text, "Status codes")
    assert "Harbor Gateway" in names, names
    assert not {"HTTP RFC", "Authentication RFC", "Moved Permanently"} & names, names


def test_an_interactive_session_is_code_and_a_one_character_last_line_is_cited() -> None:
    # The HTML extractor writes a reference page's example as bare lines, with prose right under it.
    lines = ["Pack and unpack integers:", "", ">>> from struct import *", ">>> calcsize('>bhl')", "7",
             "The ordering of format characters may have an impact on size in native mode.", "",
             "The sizes we measured were 2 and", "7"]
    units, _ = split_units(lines, 1)
    assert [(u.start, u.end, u.text) for u in units] == [
        (1, 1, "Pack and unpack integers:"),
        (6, 6, "The ordering of format characters may have an impact on size in native mode."),
        (8, 9, "The sizes we measured were 2 and 7"),  # the "7" on line 9 is inside the cited range
    ]
    # A mail quoted three levels deep is prose, not a session.
    quoted, _ = split_units([">>> Thanks for the update, we sign the renewal on Monday."], 1)
    assert [u.start for u in quoted] == [1] and "sign the renewal" in quoted[0].text


def test_a_reference_page_files_its_prose_not_its_interactive_examples(tmp_path: Path) -> None:
    # struct.html of Python's library reference, as the HTML extractor writes it. Its example was read as a
    # paragraph, and filing the whole page was refused by the planner's own gate ("figures on a cited line must
    # appear in the cited lines": the "7" on the example's last line was left out of the cited range).
    root = make_repo(tmp_path)
    text = """## Examples

Pack and unpack integers of three different sizes, using big endian ordering:

>>> from struct import *
>>> pack(">bhl", 1, 2, 3)
b'\\x01\\x00\\x02\\x00\\x00\\x00\\x03'
>>> calcsize('>bhl')
7
The ordering of format characters may have an impact on size in native mode since padding is implicit.

## Notes

Native size and alignment are determined using the C compiler's sizeof expression.
The standard size of a long long is 8 bytes and of a short 2 bytes, whatever the platform.
"""
    file_and_commit(root, write_source(root, 1, text, title="struct — Interpret bytes"), 1)  # asserts the gates
    body = "".join(p.read_text(encoding="utf-8") for p in (root / "wiki/notes").glob("*.md"))
    assert "8 bytes" in body and "calcsize" not in body and ">>" not in body, body


def test_two_identifiers_joined_by_and_are_two_names() -> None:
    from stigmergy.plan.deterministic.names import proper_name_runs

    def names(text: str) -> list[str]:
        return [n for n, _ in proper_name_runs(text)]

    # Reference documentation names code in pairs: each is its own name, not one "X and Y" entity.
    assert names("You subclass StreamReader and StreamWriter first.") == ["StreamReader", "StreamWriter"]
    assert names("Only messages at ERROR and CRITICAL go to stderr.") == ["ERROR", "CRITICAL"]
    assert names("The Bank of England and HSBC agreed.") == ["Bank of England", "HSBC"]
    # A name with "and" in it stays whole when neither side is written as code.
    assert names("We met Marks and Spencer in Leeds.") == ["Marks and Spencer", "Leeds"]
    assert names("Procter and Gamble signed on Monday.") == ["Procter and Gamble"]


def test_keywords_in_capitals_are_no_names_and_acronym_pairs_are() -> None:
    from stigmergy.plan.deterministic.names import proper_name_runs

    def names(text: str) -> list[str]:
        return [n for n, _ in proper_name_runs(text)]

    assert names("Run CREATE TABLE first, then INSERT INTO it.") == []
    assert names("FOR IMMEDIATE RELEASE: Tidemark ships.") == ["Tidemark"]
    # A hyphenated word in capitals is shouted too (a man page's heading, quoted in a sentence).
    assert names('See the section "CONFIGURED REMOTE-TRACKING BRANCHES" for Tidemark.') == ["Tidemark"]
    # Acronyms side by side are a name ("AWS KMS", "REST API"); one long word in capitals is too ("UNICEF").
    assert names("The keys live in AWS KMS behind the REST API.") == ["AWS KMS", "REST API"]
    assert names("We met the UNICEF staff.") == ["UNICEF"]


def test_a_name_made_into_a_modifier_is_no_name() -> None:
    from stigmergy.plan.deterministic.names import proper_name_runs

    def names(text: str) -> list[str]:
        return [n for n, _ in proper_name_runs(text)]

    # "Python-related pages", "ASCII-only instances", "Windows-specific paths": the name describes something else,
    # and the compound is no entity (the Python how-to filed "Python-related" and "ASCII-only" as entity pages).
    assert names("See pointers to Python-related pages, kept by Guido van Rossum.") == ["Guido van Rossum"]
    assert names("It accepts ASCII-only instances of str, and Windows-specific paths.") == []
    # Hyphenated names stay whole: both sides capitalised, or a lower-case part that is no modifier.
    assert names("Hewlett-Packard met Rolls-Royce in Wi-fi Park.") == ["Hewlett-Packard", "Rolls-Royce", "Wi-fi Park"]


def test_a_section_a_page_points_to_is_no_entity(tmp_path: Path) -> None:
    # Reference documentation points the reader at its sections: "See Error Handlers", "described in Numeric
    # Types". A pointer names a part of the text, not an identity; the same name used as one still is.
    text = """## Codecs

Errors are handled as described in Error Handlers. See Error Handlers for the list of names.
The complex type is described in Numeric Types, and see also Numeric Types for the float type.
Harbor Gateway forwards the codes unchanged. We asked Harbor Gateway to log them too.
"""
    names = _entities_filed(tmp_path, text, "Codecs")
    assert "Harbor Gateway" in names, names
    assert not {"Error Handlers", "Numeric Types"} & names, names


def test_two_names_the_page_also_uses_alone_are_not_one_x_and_y_name(tmp_path: Path) -> None:
    text = """## Turtle graphics

The public methods of the classes Screen and Turtle are listed here. Screen and Turtle share a canvas.
A Screen holds the canvas. The Turtle moves on the canvas. Each Screen has a title. Turtle keeps its pen.
Marks and Spencer stocks the kit. We met Marks and Spencer in Leeds.
"""
    names = _entities_filed(tmp_path, text, "Turtle graphics")
    assert "Screen and Turtle" not in names, names
    assert "Marks and Spencer" in names, names


def test_a_run_that_only_opens_sentences_with_a_word_written_lower_elsewhere_is_no_name(tmp_path: Path) -> None:
    text = """## Bytes

Lowercase ASCII characters are the byte values a to z. Lowercase ASCII letters sort first.
A lowercase letter has an uppercase pair.
Harbor Gateway forwards the bytes unchanged. We asked Harbor Gateway to log them too.
"""
    names = _entities_filed(tmp_path, text, "Bytes")
    assert "Harbor Gateway" in names, names
    assert "Lowercase ASCII" not in names, names


def test_a_single_word_the_page_also_writes_in_lower_case_is_no_name(tmp_path: Path) -> None:
    # Sixteenth pass: "Text" and "Handlers" in a library guide are common nouns given a capital (a class, a
    # heading's word), since the page writes "text" and "handlers" in its prose too. A word written in lower case
    # only inside code (`tidewater.connect()`) is still a name in prose.
    text = """## Widgets

Lines typed with Text are kept. The lines from Text scroll. A Text widget wraps them. Plain text is fine.
Call `tidewater.connect()` first. Our vendor Tidewater keeps the session. We asked the company Tidewater for logs.
The customer success team at Tidewater replied.
"""
    names = _entities_filed(tmp_path, text, "Widgets")
    assert "Text" not in names, names
    assert "Tidewater" in names, names


def test_a_table_of_contents_entry_is_no_evidence_of_a_name(tmp_path: Path) -> None:
    # Sixteenth pass: a guide's table of contents lists its numbered sections in title case; "Lists", "Function"
    # and "Statements" were filed as entities from "4.8.4. Arbitrary Argument Lists" and its neighbours. The same
    # name in prose still counts.
    text = """## Contents

- 4.1. More on Lists
- 4.2. Sorting the Lists
- 4.3. Tips for using Lists
- 4.4. Copying the Lists
- 5. Working with Tidewater

We signed with Tidewater in May. The invoices from Tidewater arrive monthly. Our account at Tidewater is open.
"""
    names = _entities_filed(tmp_path, text, "Guide")
    assert "Lists" not in names, names
    assert "Tidewater" in names, names


def test_a_numbered_label_is_no_name(tmp_path: Path) -> None:
    # Sixteenth pass: a book numbers its parts and exhibits ("as shown in Listing 5-1", "see Chapter 10"); the
    # labels were filed as entities "Listing", "Chapter", "Figure" and "Table". A label word used as a name, with
    # no number after it, still counts.
    text = """## Structs

We build on the code from Listing 5-1 and the struct in Listing 5-2. Compare it with Listing 5-3 later.
Chapter 10 covers traits, and Chapter 8 covers strings. We used Chapter 3's loops.
We signed with Schedule in May. The invoices from Schedule arrive monthly. Our account at Schedule is open.
"""
    names = _entities_filed(tmp_path, text, "Structs")
    assert not {"Listing", "Chapter"} & names, names
    assert "Schedule" in names, names


def test_a_reference_signature_is_code_not_a_statement() -> None:
    # Sixteenth pass: a Sphinx `<dt>` as the HTML extractor writes it, "sqlite3.connect(database, timeout=5.0, …)",
    # was a note's key point (its defaults read as figures). A sentence that mentions a call stays a sentence.
    lines = ["sqlite3.connect(database, timeout=5.0, cached_statements=128)", "",
             "class logging.Formatter(fmt=None, datefmt=None) -> None", "",
             "Call connect() to open the database file in 5.0 seconds."]
    units, _ = split_units(lines, 1)
    assert [(u.start, u.text) for u in units] == [(5, "Call connect() to open the database file in 5.0 seconds.")]


def test_how_something_is_chosen_is_no_decision() -> None:
    # Sixteenth pass: a reference page's "the size of the buffer is chosen using a heuristic" was filed under a
    # note's "Decisions"; what someone chose or decided still is one.
    from stigmergy.plan.deterministic.analysis import is_decision
    def unit(text: str) -> Unit:
        return Unit(text, 1, 1, "", "sentence", 0)
    assert not is_decision(unit("The size of the buffer is chosen using a heuristic."))
    assert not is_decision(unit("Their parameters are automatically chosen as follows."))
    assert is_decision(unit("We chose Twilio as the SMS provider."))
    assert is_decision(unit("The board decided that the price is final."))
    assert is_decision(unit("Postgres was chosen over MySQL for the ledger."))


def test_a_word_in_an_address_or_a_command_is_not_the_page_writing_it_in_lower_case(tmp_path: Path) -> None:
    # Sixteenth pass: "github.com" and "python -m pip" are no prose use of "github" and "python"; pip's own docs
    # lost GitHub and Python as entities until the lower-case check skipped addresses, paths and commands.
    text = """## Install

Clone it from https://github.com/tidewater/kit and run python -m pip install kit.
We host the code with GitHub today. The issues are tracked at GitHub too. A mirror from GitHub runs nightly.
"""
    assert "GitHub" in _entities_filed(tmp_path, text, "Install")


def test_a_sentence_adverb_is_not_part_of_the_name_after_it(tmp_path: Path) -> None:
    # Sixteenth pass: "Therefore Argument Clinic …" filed an entity "Therefore Argument Clinic".
    text = """## Clinic

Therefore Harbor Gateway forwards the bytes unchanged. However Harbor Gateway logs them.
We asked Harbor Gateway to keep them too.
"""
    names = _entities_filed(tmp_path, text, "Clinic")
    assert "Harbor Gateway" in names and not any(n.startswith(("Therefore", "However")) for n in names), names


def test_an_asciidoc_anchor_and_cross_reference_are_no_names(tmp_path: Path) -> None:
    # Sixteenth pass, on git's own manual (AsciiDoc as text): "[[FILES]]" above a section is an anchor, not a
    # wikilink, and "see <<FILES>>" points at that section; "MUST NOT" is a standard's keyword. A wikilink on a
    # line of its own that is not an anchor still links.
    assert source_links("[[FILES]]\nFILES\n-----\nThe files.") == []
    assert source_links("[[CRTB]]\nCONFIGURED REMOTE-TRACKING BRANCHES\n---") == []
    assert source_links("[[Acme Corp]]\nWe met them.") == [Link("Acme Corp", None)]
    text = """## Config

The values are read from the FILES below (see <&lt;FILES>>). For more, see <&lt;FILES>> above.
Clients MUST NOT require state. Servers MUST NOT keep it either.
We host the code with GitHub today. The issues are tracked at GitHub too. A mirror from GitHub runs nightly.
"""
    names = _entities_filed(tmp_path, text, "git-config")
    assert "GitHub" in names and not {"FILES", "MUST NOT", "MUST"} & names, names


def test_a_spelled_out_acronym_is_a_concept_not_an_entity_too(tmp_path: Path) -> None:
    # pip's user research wrote "Attention Deficit Hyperactivity Disorder (ADHD)" three times: the planner filed an
    # entity page "Attention Deficit Hyperactivity Disorder" (type other) and a concept page "… (ADHD)" beside it.
    # A spelled-out acronym is a term; an organisation spelled out the same way is still an identity.
    text = """## About our users

Most participants had no disability; of those that did, many named Attention Deficit Hyperactivity Disorder (ADHD).
Nine participants named Attention Deficit Hyperactivity Disorder (ADHD) or dyslexia as what they live with.
Both reports were shared with the World Health Organization (WHO), and the World Health Organization replied.
The module implements a Stringprep Profile for Internationalized Domain Names (IDN). Internationalized Domain Names
stay ASCII on the wire.
"""
    root = make_repo(tmp_path)
    file_and_commit(root, write_source(root, 1, text, title="About our users"), 1)
    assert not {"Attention Deficit Hyperactivity Disorder", "Internationalized Domain Names"} & set(_titles(root, "entities"))
    assert "Attention Deficit Hyperactivity Disorder (ADHD)" in _titles(root, "concepts")
    assert "World Health Organization" in _titles(root, "entities")
    assert "World Health Organization (WHO)" not in _titles(root, "concepts")


def test_a_label_defined_in_lower_case_gathers_only_its_marked_mentions(tmp_path: Path) -> None:
    # pip's issue-triage page defines its labels as a definition list ("**type** : the role or flavor of an issue").
    # The concept page "type" then took every later line with "type" or "types" in it, from 10 documents ("users fall
    # into 3 main user types", "font size and type"). A label written in lower case is an ordinary word in prose:
    # its page takes the lines that write it as the label (bold, code, a link), not the word.
    root = make_repo(tmp_path)
    labels = """## Labels

**type**
: the role or flavor of an issue

**triage**
: default label given to issues when they are created
"""
    file_and_commit(root, write_source(root, 1, labels, title="Issue Triage"), 1)
    later = """## Who uses the tool

Our users fall into three main user types, and each type asks for different help.
New issues get the `triage` label from a bot within a minute of being opened.
"""
    file_and_commit(root, write_source(root, 2, later, title="About our users"), 2)
    concepts = {p.stem: p.read_text(encoding="utf-8") for p in (root / "wiki/concepts").glob("*.md")}
    assert {"type", "triage"} <= set(concepts), sorted(concepts)
    assert "user types" not in concepts["type"]
    assert "the `triage` label from a bot" in concepts["triage"]


def test_a_title_clash_reads_no_source_outside_the_repository(tmp_path: Path) -> None:
    # Telling two notes apart reads the first source the older note cites. A person's edit can point that link
    # anywhere: a link that climbs out of the repository is no source, and nothing outside it is read.
    import subprocess

    root = make_repo(tmp_path)
    outside = tmp_path / "sources/2026/12/cap_01JQ0000000000000000EVIL01.md"
    outside.parent.mkdir(parents=True)
    outside.write_text("---\nlocator: elsewhere/secret/x.md\noccurred_at: '2026-12-05'\n---\nsecret\n", encoding="utf-8")
    note = root / "wiki/notes/Release checklist.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("---\ntype: note\ntitle: Release checklist\nlayer: public\n---\n# Release checklist\n\n"
                    "- A line ([source](../../../sources/2026/12/cap_01JQ0000000000000000EVIL01.md#L1))\n",
                    encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "a person's note"], cwd=root, check=True)
    rel = write_source(root, 1, "Harbor Gateway 2.4 ships on 12 January 2027, after the changelog names all 38 merged changes.\n",
                       title="Release checklist", occurred_at="2026-12-05", locator="docs/process/release.md")
    result = file_and_commit(root, rel, 1)
    assert "Release checklist (2026-12-05)" in _titles(root, "notes"), result
    # Nor through a link that stays inside but names a symbolic link pointing out of the repository.
    inside = root / "sources/2026/12/cap_01JQ0000000000000000EVIL02.md"
    inside.parent.mkdir(parents=True, exist_ok=True)
    inside.symlink_to(outside)
    note2 = root / "wiki/notes/Deploy checklist.md"
    note2.write_text("---\ntype: note\ntitle: Deploy checklist\nlayer: public\n---\n# Deploy checklist\n\n"
                     "- A line ([source](../../sources/2026/12/cap_01JQ0000000000000000EVIL02.md#L1))\n", encoding="utf-8")
    rel = write_source(root, 2, "Harbor Gateway 2.5 deploys on 19 January 2027, once all 41 smoke tests pass.\n",
                       title="Deploy checklist", occurred_at="2026-12-05", locator="docs/process/deploy.md")
    result = file_and_commit(root, rel, 2)
    assert "Deploy checklist (2026-12-05)" in _titles(root, "notes"), result


def test_a_page_that_has_moved_files_nothing(tmp_path: Path) -> None:
    # pip's docs keep 17 stubs where pages were ("This page has moved … You should be redirected automatically in 3
    # seconds"); each became a note "Pip install (2026-12-05)" whose one key point was the redirect. A stub says where
    # the page went, not anything durable: its source page keeps it, the wiki files nothing.
    root = make_repo(tmp_path)
    stub = """## This page has moved

You should be redirected automatically in 3 seconds. If that didn't work, here's a link: :doc:`../cli/pip_install`
"""
    result = file_and_commit(root, write_source(root, 1, stub, title="Pip install"), 1)
    assert result.plan.is_empty and "has moved" in result.plan.summary, result.plan.summary
    assert _titles(root, "notes") == {}
    web = """Redirecting to the new documentation site. If you are not redirected within 5 seconds, follow this link.
"""
    assert file_and_commit(root, write_source(root, 2, web, title="Old docs"), 2).plan.is_empty
    # A short document about something else that moved, or a redirect the reader meets, still files.
    site = """The site has moved to Building 4 on 3 March 2026; badges from Building 2 keep working until April.
"""
    assert not file_and_commit(root, write_source(root, 4, site, title="Facilities update"), 4).plan.is_empty
    pay = """After paying, you will be redirected to the confirmation page, where Harbor Checkout shows the 14-day refund
window and the order number that Ines Carvalho's team asks for in every ticket.
"""
    assert not file_and_commit(root, write_source(root, 5, pay, title="Checkout flow"), 5).plan.is_empty
    chat = """[09:12] Grace Nakamura: The page has moved to Notion, ask Ines Carvalho for access before Friday 14 March.
"""
    assert not file_and_commit(root, write_source(root, 6, chat, title="Ops chat"), 6).plan.is_empty
    # A document that says, among much else, that a page moved still files.
    long = """## Release 4.2

The Harbor API reference page has moved to the developer portal on 3 March 2026.
Harbor API 4.2 raises the default rate limit to 900 requests per minute for every carrier key.
Failed webhook deliveries are now retried for up to 48 hours, up from 24 hours.
Ines Carvalho leads the migration of the remaining 14 carriers before the end of April.
The old sandbox hosts stop answering on 30 June 2026.
"""
    file_and_commit(root, write_source(root, 7, long, title="Harbor API 4.2 release notes"), 7)
    assert "Harbor API 4.2 release notes" in _titles(root, "notes")


def test_an_author_is_a_person_not_an_organisation() -> None:
    # The Python how-to pages typed their authors organisations, by the "by" before them: "Processing Text Files in
    # Python 3, by Nick Coghlan.", "written by Collin Winter", "Marc-André Lemburg gave a presentation", "Guido van
    # Rossum recommends …". Who writes, presents or recommends is a person; a firm "acquired by" stays a firm.
    from stigmergy.plan.deterministic.names import guess_entity_type

    def kind(name: str, *contexts: str) -> str:
        return guess_entity_type(name, contexts, set())

    assert kind("Nick Coghlan", "Processing Text Files in Python 3, by Nick Coghlan.") == "person"
    assert kind("Collin Winter", "Adds a section on the functional module written by Collin Winter.") == "person"
    assert kind("Marc-André Lemburg", "Marc-André Lemburg gave a presentation at EuroPython 2002.") == "person"
    assert kind("Marc-André Lemburg", "The slides for Marc-André Lemburg’s presentation discuss encodings.") == "person"
    assert kind("Guido van Rossum", "Guido van Rossum recommends avoiding all uses of from module import *.") == "person"
    assert kind("Norrland Fresh", "Norrland Fresh was acquired by Orbis Freight in May.") == "other"
    assert kind("Orbis Freight", "Norrland Fresh was acquired by Orbis Freight in May.") == "organisation"


def test_a_language_written_in_is_a_product_not_a_place() -> None:
    # The Python how-to pages typed "Python", "Smalltalk" and "Modula-3" places, by the "in" before them ("in Python").
    # A thing programs are written in, or whose code, programs or interpreter a page speaks of, is software.
    from stigmergy.plan.deterministic.names import guess_entity_type

    def kind(name: str, *contexts: str) -> str:
        return guess_entity_type(name, contexts, set())

    assert kind("Python", "Sorting is easy in Python.", "Most Python programs use the standard library.") == "product"
    assert kind("Smalltalk", "The class syntax was borrowed from a system written in Smalltalk.") == "product"
    assert kind("Modula-3", "Exceptions work as in Modula-3.", "Modula-3 code raises them the same way.") == "product"
    # A place stays one.
    assert kind("Leeds", "We opened an office in Leeds.", "The team in Leeds grew to 12 people.") == "place"
