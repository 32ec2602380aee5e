"""Issue #19, twenty-second pass: a figure the asker brings to be checked ("lodestar went out on the 15th of sept,
right?") or as an example ("a pin like ~=3.1.2") is no constraint on the line that answers; a day typed as an
ordinal and a month typed short say what a date line writes (no index; sentences written for these tests)."""

from __future__ import annotations

from stigmergy.answer.asides import claimed
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import parts, slot
from stigmergy.answer.select import alternatives, topical, word_score
from stigmergy.answer.terms import Term, question_terms, stems


def _line(text: str, title: str = "Notes") -> Line:
    return Line("sources/2026/01/x.md", title, "source", "public", 5, text, text, (), (), 1, "")


def _terms(question: str) -> list[Term]:
    return claimed(question_terms(question), question, slot(question).kind)


def _words(question: str, text: str) -> tuple[float, bool]:
    """(the words score, whether every constraint of the question holds on the line)."""
    terms = _terms(question)
    [part] = parts(question)
    got = word_score(_line(text), terms, alternatives((_line(text),), part, terms, Names()))
    return got[0], got[2]


def test_an_ordinal_day_is_the_number_a_date_line_writes() -> None:
    [day] = [t for t in question_terms("did the depot open on the 15th?") if t.figure]
    assert day.stem == "15"
    assert "15" in stems("The depot opened on the 15th.")
    # 1st, 2nd, 3rd, 22nd alike; a word that only ends like one ("north") is no figure.
    assert {t.stem for t in question_terms("on the 1st of may, the 2nd of june, or by the 3rd or 22nd of july?")
            if t.figure} == {"1", "2", "3", "22"}
    assert not any(t.figure for t in question_terms("is the north depot open?"))
    # An ordinal that names a kind of thing is no day: "2nd gen" and "3rd party" are said in other words.
    assert not any(t.figure for t in question_terms("how long can the 2nd gen gateway run on battery?"))
    assert not any(t.figure for t in question_terms("what 3rd party lib is the solver built on?"))


def test_a_month_typed_short_is_said_by_its_name() -> None:
    q = "when in sept did the depot open?"
    assert _words(q, "The depot opened on 15 September.")[0] > _words(q, "The depot opened in spring.")[0]
    # "may" and "mar" are as often other words: not read as months.
    assert "may" not in {t.stem for t in question_terms("may I visit the depot?")}


def test_a_figure_put_to_the_wiki_for_a_yes_or_no_is_no_constraint() -> None:
    # The line that says the figure changed answers the question, though it never says the asker's figure.
    for q, line in (("lodestar went out on the 15th of sept, right?", "Lodestar shipped on 22 September."),
                    ("norrland still on 412 gateways?", "Norrland Fresh now runs 455 gateways."),
                    ("did the depot open on 3 June?", "The depot opened on 9 June.")):
        assert _words(q, line)[1], q
    # A question that asks for a value keeps its figures as constraints: "how many gateways did Norrland run in
    # Q2" is not answered by a line about another quarter, nor "what shipped on 15 September" by 22 September.
    assert not _words("what shipped on the 15th of sept?", "Lodestar shipped on 22 September.")[1]
    assert not _words("were there 412 gateways in Q2 2026?", "Norrland runs 455 gateways in Q3 2026.")[1]


def test_a_name_with_a_digit_stays_what_a_yes_or_no_is_about() -> None:
    q = "can i use md5 digests for the hash lines?"
    assert not _words(q, "Hash digests are checked with sha256.")[1]
    assert _words(q, "md5 digests are refused for hash lines.")[1]
    [g2] = [t for t in _terms("is the G2 waterproof?") if t.word == "G2"]
    assert not g2.claim


def test_an_example_version_is_credited_where_said_and_required_of_none() -> None:
    q = "what does a pin like ~=3.1.2 expand to?"
    [v] = [t for t in _terms(q) if t.figure]
    assert v.claim == "example" and v.stem in topical(_terms(q))
    said = _words(q, "~=3.1.2 is equivalent to >=3.1.2, ==3.1.*.")
    other = _words(q, "Versions are compared segment by segment.")
    assert said[1] and other[1] and said[0] > other[0]
    # A pin's version in a question about why it never installs: the docs explain constraints with their own.
    assert _words("i put requests==2.31 in a file i pass with -c. why is it not installed?",
                  "Including a package in a constraints file does not trigger installation.")[1]


def test_a_later_part_that_names_nothing_asks_about_what_the_wiki_does_not_know() -> None:
    from stigmergy.answer.service import first_constraints

    first = question_terms("we going for a series B?")
    later = question_terms("when do talks start?")
    talks = (_line("Sales is talking about a 15 September date."),)
    # Nothing in the evidence says "B": the later part inherits it, and the line about talks no longer answers it.
    got = first_constraints(later, first, talks)
    assert "b" in {t.stem for t in got}
    assert not word_score(talks[0], got, {})[2]
    # Where the evidence does say the first part's name, the later part keeps its own words ("do beta keys need
    # rotating" is answered by a line about the keys that does not repeat "v0").
    keys = (_line("The v0 endpoints will be removed on 1 December."), _line("Beta keys keep working."))
    assert first_constraints(question_terms("do beta keys need rotating?"),
                             question_terms("when do the harbor v0 endpoints get switched off?"), keys) == \
        question_terms("do beta keys need rotating?")
    # A part with a constraint of its own keeps it alone.
    own = question_terms("when did Lodestar ship?")
    assert first_constraints(own, first, talks) == own


def test_a_month_and_its_year_are_one_period_the_line_must_say() -> None:
    q = "how much cash did we have in the bank at the end of june 2025?"
    assert "june 2025" in {t.stem for t in question_terms(q)}
    assert "september 2026" in {t.stem for t in question_terms("revenue in sept 2026?")}
    # Another quarter's cash beside the same year is not the asked month's.
    assert not _words(q, "Cash at quarter end — Q1 2026: £14.3M; Q4 2025: £15.8M.")[1]
    for said in ("Cash at 30 June 2025 was £9.1M.", "Cash at the end of Q2 2025: £9.1M.", "Cash (2025-06-30): £9.1M.",
                 "Cash in Jun 2025 was £9.1M."):
        assert _words(q, said)[1], said


def test_a_term_of_art_the_wiki_never_names_is_a_constraint_an_english_word_is_not() -> None:
    from dataclasses import replace

    from stigmergy.answer.terms import jargon

    known = frozenset("verify signatures mess tar ball switch over the".split())
    terms = [replace(t, absent=True) if t.word in ("gpg", "signatures", "tarball", "switchover") else t
             for t in question_terms("does pip verify gpg signatures in a tarball after the switchover?")]
    got = {t.word: t.proper for t in jargon(terms, known)}
    # "gpg" is no English word: a line that never names it cannot say whether pip checks it.
    assert got["gpg"] and not got["signatures"]
    # Two English words run together are the asker's English ("tarball": an archive), not a term of art.
    assert not got["tarball"] and not got["switchover"]
    # Without a vocabulary (a model folder without one) nothing changes.
    assert jargon(terms, frozenset()) == terms
    assert not word_score(_line("Verify downloaded packages against hashes."), jargon(terms, known), {})[2]


def test_the_vocabulary_is_the_packaged_models_and_bounded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer import vocabulary
    from stigmergy.settings import Settings

    words = vocabulary.known_words(Settings())
    assert {"mess", "signature", "weather"} <= words and "gpg" not in words and not any("#" in w for w in words)
    huge = tmp_path / "vocab.txt"
    huge.write_bytes(b"word\n" * (vocabulary.MAX_VOCAB_BYTES // 5 + 1))
    assert vocabulary._read(huge) == frozenset()  # a file that size is no WordPiece vocabulary: read as none


def test_a_default_asked_is_not_answered_by_an_example_setting() -> None:
    from stigmergy.answer.slots import WEAK
    from tests.test_answer_slots import _fills

    q = "what's the default network timeout pip waits before giving up on a slow index?"
    plain = "what timeout does the example config set?"
    example = "As an example, set the HTTP timeout (--timeout) to 60 seconds in the config file."
    # "As an example" opens an illustration, as "for example" does; "default" is a word of the question a line
    # that gives a setting does not say (the qualifier rule), so neither fills the default in full.
    assert _fills(q, example) == WEAK * _fills(q, "Set the HTTP timeout (--timeout) to 60 seconds in the config file.")
    # ... and, since the thirty-ninth session, a line that says nothing of a default (nor of what holds when nothing
    # is set) fills a default asked weakly again: it gives a setting, which no reader takes for the default
    assert _fills(q, "Set the network timeout to 60 seconds in the config file.") == WEAK * WEAK
    assert _fills(q, "The network timeout defaults to 15 seconds.") == 1.0
    assert _fills(plain, "Set the network timeout to 60 seconds.") == 1.0


def test_a_later_part_that_names_only_the_unit_is_the_first_parts() -> None:
    got = parts("whats the default network timeout pip waits before giving up on a slow index? how many seconds")
    assert [p.slot.kind for p in got] == ["quantity"]
    # Another figure asked after it is a part of its own.
    assert len(parts("how big is the team? how many engineers?")) == 2
    assert len(parts("what was revenue in Q2 and how many customers churned?")) == 2


def _names(*entities: tuple[str, str, tuple[str, ...]]) -> Names:
    from stigmergy.answer.names import Entity, words

    out = Names()
    for i, (title, kind, aliases) in enumerate(entities):
        keys = frozenset(" ".join(words(n)) for n in (title, *aliases))
        for key in keys:
            out.by_name[key] = Entity(i, title, kind, keys)
    return out


def test_a_page_about_another_place_does_not_answer_for_the_asked_one() -> None:
    from stigmergy.answer.select import _ONE_OF_KIND, another_of_kind

    names = _names(("Leeds", "place", ()), ("Lisbon", "place", ()), ("Orbis Freight", "organisation", ("Orbis",)),
                   ("Rory MacAllister", "person", ("Rory",)))
    q = "what are the meeting rooms in the leeds office called?"
    named = [e for e in names.entities(q) if e.kind in _ONE_OF_KIND]
    lisbon = Line("sources/x.md", "Lisbon office", "source", "public", 5, "Meeting rooms: Tejo, Douro.",
                  "Meeting rooms: Tejo, Douro.", ("Getting around",), (), 1)
    leeds = Line("sources/y.md", "Leeds office", "source", "public", 5, "Meeting rooms: Aire, Calder.",
                 "Meeting rooms: Aire, Calder.", (), (), 1)
    both = Line("sources/z.md", "Offices", "source", "public", 5, "Leeds rooms are Aire and Calder; Lisbon has Tejo.",
                "Leeds rooms are Aire and Calder; Lisbon has Tejo.", ("Lisbon",), (), 1)
    assert another_of_kind(named, lisbon, names)
    assert not another_of_kind(named, leeds, names) and not another_of_kind(named, both, names)
    # Another kind in the heading (a person) says nothing of which place; a page under no name is about any.
    heron = Line("sources/b.md", "Board minutes", "source", "public", 5, 'Project codename: "Heron".',
                 'Project codename: "Heron".', ("Approach from Orbis Freight",), (), 1, before="Rory is told.")
    orbis = [e for e in names.entities("what's the codename for the orbis talks") if e.kind in _ONE_OF_KIND]
    assert not another_of_kind(orbis, heron, names)
    plain = Line("sources/c.md", "Notes", "source", "public", 5, "Meeting rooms: Tejo.", "Meeting rooms: Tejo.", (), (), 1)
    assert not another_of_kind(named, plain, names)


def _shown(raw: str, text: str | None = None) -> str:
    from stigmergy.answer.compose import readable

    return readable(Line("sources/x.md", "Notes", "source", "public", 5, raw, raw if text is None else text, (), (), 1))


def test_a_code_span_is_shown_as_written_and_emphasis_as_its_words() -> None:
    assert _shown("The `setuptools.build_meta:__legacy__` build backend will be used.") == \
        "The setuptools.build_meta:__legacy__ build backend will be used."
    assert _shown("**Total** users: __164__") == "Total users: 164."
    assert _shown("set my__var__name to ``--no-deps``") == "Set my__var__name to --no-deps."


def test_a_link_shown_by_a_nickname_says_whom_it_names() -> None:
    raw = "- [[Oliver Brandt|Olly]] — Head of Sales, Leeds."
    assert _shown(raw, "Olly — Head of Sales, Leeds.") == "Olly (Oliver Brandt) — Head of Sales, Leeds."
    # A label that is part of the page's name, or a link shown by its own name, needs no gloss.
    assert _shown("Led [[Project Driftwood|Driftwood]].", "Led Driftwood.") == "Led Driftwood."
    assert _shown("Ask [[Grace Nakamura]].", "Ask Grace Nakamura.") == "Ask Grace Nakamura."


def test_a_folder_is_a_directory_and_printing_is_showing() -> None:
    q = "is there a command that prints which cache folder pip uses?"
    assert _words(q, "pip cache dir shows the cache directory pip uses.")[0] > \
        _words(q, "pip cache purge clears the cache pip uses.")[0]


def test_a_time_of_day_is_said_on_the_24_hour_clock_too() -> None:
    q = "which door do i use after 8pm?"
    for said in ("After 20:00 the side door is the only entrance.", "After 20.00 use the side door.",
                 "After 8 pm use the side door."):
        assert _words(q, said)[1], said
    assert not _words(q, "After 18:00 use the side door.")[1]
    assert _words("is the desk open at 9:30am?", "The desk opens at 09:30.")[1]


def test_exactly_is_how_sure_the_asker_wants_to_be_not_a_word_the_line_says() -> None:
    assert "exact" not in {t.stem for t in question_terms("what does olly do here exactly")}


def test_a_post_typed_as_an_acronym_is_a_role_a_line_may_spell_out() -> None:
    from stigmergy.answer.question import role
    from stigmergy.answer.roles import says_role

    assert role("who is the new nordic CSM starting in november?") == "nordic CSM"
    assert role("who's the second nordic CSM joining in november?") == "second nordic CSM"
    # A name is still no role, and a post whose own word ends in -ing keeps it.
    assert role("who is Tomek?") == "" and role("who is the head of marketing?") == "head of marketing"
    assert says_role("nordic CSM", "Sara Lind joins as our Nordic customer success manager.")
    assert not says_role("nordic CSM", "Sara Lind joins as our Nordic account executive.")


def test_a_command_typed_with_its_subcommand_is_said_whole() -> None:
    from dataclasses import replace

    from stigmergy.answer.service import commands

    q = "if i run pip cache remove numpy, does that also clear the http responses?"
    terms = [replace(t, everywhere=t.word == "pip") for t in question_terms(q)]
    remove = _line("pip cache remove setuptools removes its wheels; HTTP cache files are not removed.")
    purge = _line("pip cache purge will clear all files from pip's wheel and HTTP caches.")
    [cmd] = commands(q, terms, (remove, purge))
    assert cmd.stem == "pip cache remove"
    assert word_score(remove, [*terms, cmd], {})[2] and not word_score(purge, [*terms, cmd], {})[2]
    # A phrase no line writes is no command ("pip really should"), and without the wiki's subject word there is none.
    assert commands("does pip really should clear it?", terms, (remove, purge)) == []
    assert commands(q, question_terms(q), (remove, purge)) == []


def test_a_why_goes_on_to_the_next_reason() -> None:
    from stigmergy.answer.evidence import Cite, follow_on

    first = Cite("sources/r.md", 20, 22, "…")
    reason = Line("sources/r.md", "Rename", "source", "public", 20, "Prospects took ColdTrace for a data logger.",
                  "Prospects took ColdTrace for a data logger.", (), (first,), 1)
    also = Line("sources/r.md", "Rename", "source", "public", 22,
                "The trademark search in February also found a conflict in the EU class.",
                "The trademark search in February also found a conflict in the EU class.", (),
                (Cite("sources/r.md", 22, 23, "…"),), 1, before=reason.text, before_cite=first)
    lines = (reason, also)
    assert follow_on(reason, lines, reason=True) is also
    # Only for a why: another question takes the sentence after only when it refers back ("It is not on …").
    assert follow_on(reason, lines) is None
