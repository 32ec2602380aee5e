"""Issue #19, twenty-third pass: the asker's shorthand ("devs", "prod", "what's that mean", "2nd gen", "the total
money") read as the asker means it, and a line written for another operating system kept from answering for the asked
one (no index; sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace

from stigmergy.answer import platforms
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts, slot
from stigmergy.answer.select import score_part
from stigmergy.answer.terms import jargon, question_terms
from stigmergy.answer.values import asked


def _line(text: str, before: str = "", n: int = 5) -> Line:
    return Line("sources/2026/01/x.md", "Configuration", "source", "public", n, text, text, ("Location",), (), 1, before)


def test_a_lower_case_acronym_no_line_names_is_jargon_the_askers_shorthand_is_not() -> None:
    known = frozenset("dev customer data verify signatures".split())
    q = "can devs browse customer data in prod, and does pip verify gpg signatures?"
    terms = [replace(t, absent=True) if t.word in ("devs", "browse", "prod", "gpg") else t for t in question_terms(q)]
    got = {t.word: t.proper for t in jargon(terms, known)}
    assert got["gpg"]  # typed without a vowel, in no line and no vocabulary: a term of art the wiki never names
    assert not got["devs"]  # the asker's short forms and plain words, which the model's vocabulary may lack
    assert not got["prod"]
    assert not got["browse"]
    assert not got["customer"] and not got["data"]  # words the wiki says are never terms of art


def test_whats_that_mean_asks_what_it_means() -> None:
    [part] = parts("g2 gateway light is flashing amber, what's that mean?")
    assert part.text.endswith("what does that mean") and part.slot.kind == "definition"
    # "the mean" is a figure asked for, not a meaning
    assert slot("whats the mean temperature in june").kind == "quantity"
    assert parts("what's the mean?")[0].text == "what is the mean"


def test_money_asked_by_that_word_is_any_sum() -> None:
    # No line says "money": the sum set aside is a budget, a cost or a price, said with its currency.
    assert slot("whats the total money set aside for the offsite in nov") == Slot("quantity", unit="money")
    assert slot("what money did we set aside for the offsite") == Slot("quantity", unit="money")
    assert slot("what's the total budget for the offsite").head == "budget"


def test_an_ordinal_that_names_a_kind_is_a_word() -> None:
    got = {t.word: t.figure for t in question_terms("does the 2nd gen gateway ship on the 3rd of june?")}
    assert not got["2nd"] and got["3rd"]


def test_a_line_for_another_operating_system_does_not_answer() -> None:
    assert platforms.named("linux: where's my per-user pip.conf") == {"unix"}
    assert platforms.named("default pip cache folder on macos?") == {"macos"}
    assert platforms.named("where is the cache") == frozenset()
    # A span of time and a network address are no systems; a document writes the systems capitalised.
    assert platforms.named("are the maintenance windows on sunday, and what is the gateway's MAC address") == frozenset()
    assert platforms.named("on windows where is pip.ini") == {"windows"}
    mac, unix = _line("Global : /Library/Application Support/pip/pip.conf.", "MacOS", 81), \
        _line("User : $HOME/.config/pip/pip.conf, which respects XDG_CONFIG_HOME.", "Unix", 70)
    assert platforms.for_another(frozenset({"unix"}), mac.text, mac.before)
    assert not platforms.for_another(frozenset({"unix"}), unix.text, unix.before)
    assert not platforms.for_another(frozenset({"macos"}), unix.text, unix.before)  # a Mac is a Unix
    assert not platforms.for_another(frozenset(), mac.text, mac.before)  # no system asked: every line may answer
    q = "linux: where is my per-user pip.conf"
    [part] = parts(q)
    got = [s.line.line for s in score_part((mac, unix), part, question_terms(q), Names(), asked(q, Names()), None, None)]
    assert got == [70]
    # A later part asks about the system the whole question names.
    got = [s.line.line for s in score_part((mac, unix), parts("where is the global pip.conf")[0],
                                           question_terms("where is the global pip.conf"), Names(),
                                           asked("where is the global pip.conf", Names()), None, None,
                                           frozenset({"unix"}))]
    assert got == [70]


def test_a_file_the_question_names_is_named_on_the_page_that_answers() -> None:
    from stigmergy.answer import files

    assert files.named("is there a max line length for lines in requirements.txt") == {"requirements.txt"}
    assert files.named("what goes in ~/.pypirc, and does pip read setup.cfg?") == {".pypirc", "setup.cfg"}
    # What the asker quotes as code is named too; a command by its first two words, the rest being their arguments.
    assert files.named("which release first shipped the `pip lock` command") == {"pip lock"}
    assert files.named("`pip search requests` just throws an error now") == {"pip search"}
    # a version, a domain, an abbreviation: no file
    assert files.named("is pypi.org down since 1.2.3, e.g. for me?") == frozenset()
    pages = [{"path": "conventions.md", "title": "Conventions", "content": "Limit all lines to 72 characters."},
             {"path": "reqs.md", "title": "Requirements File Format",
              "content": "Files that use this format are often called requirements.txt files."}]
    assert files.pages_naming(files.named("max line length in requirements.txt?"), pages) == {"reqs.md"}


def test_a_day_a_source_names_by_its_own_date_is_said_with_that_date() -> None:
    from stigmergy.answer.compose import _dated

    said = "The v0 beta endpoints are deprecated from today and will be removed on 1 December 2026."
    assert _dated(said, "2026-06-02") == ("The v0 beta endpoints are deprecated from today (2 June 2026) and will be "
                                          "removed on 1 December 2026.")
    assert "Tonight (1 June 2026)" in _dated("Tonight the gateway goes quiet.", "2026-06-01")
    # "tomorrow" would be a day no cited line says: left as written
    assert _dated("closing the launch channel tomorrow", "2026-06-02") == "closing the launch channel tomorrow"
    assert _dated(said, "") == said and _dated(said, "not a date") == said  # no date known: said as written
    assert _dated("Today's menu.", "2026-06-02") == "Today's menu."  # a possessive is left as written


def test_a_step_told_to_the_reader_fills_a_how_to() -> None:
    from stigmergy.answer.slots import WEAK, kind_fill

    q = "need to change the temp limits on a shipment with a signed excursion report, how do i do it"
    got = asked(q, Names())
    step = "Thresholds can no longer be edited on a shipment that has a signed excursion report; create an amendment instead."
    assert kind_fill(Slot("procedure"), step, Names(), got) == 1.0
    assert kind_fill(Slot("procedure"), "To pair a gateway, scan its QR code and you need to choose the site.",
                     Names(), got) == 1.0
    # A fact about the thing, a question back, and a possession are no steps: weakly filled.
    assert kind_fill(Slot("procedure"), "Thresholds are set per shipment by the quality team.", Names(), got) == WEAK
    assert kind_fill(Slot("procedure"), "If you have workarounds for the shipment, does the report let you remove them?",
                     Names(), got) == WEAK


def test_a_clause_that_goes_on_with_so_gives_the_reason_before_it() -> None:
    from stigmergy.answer.slots import WEAK, kind_fill

    got = asked("why did 50k of pellucid's money get counted in Q3 and not Q2", Names())
    line = ("The milestone was met on 24 June, but the invoice terms make the payment recognisable only on acceptance "
            "of the validation pack, so £50k moves to Q3.")
    assert kind_fill(Slot("reason"), line, Names(), got) == 1.0
    assert kind_fill(Slot("reason"), "The pack was late; hence the payment moved to Q3.", Names(), got) == 1.0
    # "so" that is no connective ("so far", "not so"): no reason given
    assert kind_fill(Slot("reason"), "So far £50k of the Pellucid payment has moved to Q3 this year.", Names(), got) == WEAK


def test_which_months_is_answered_by_months_not_by_a_release() -> None:
    from stigmergy.answer.slots import kind_fill

    q = "which months of the year do new pip versions normally ship"
    assert slot(q).head == "month"
    got = asked(q, Names())
    assert kind_fill(slot(q), "Our release months are January, April, July, October.", Names(), got) == 1.0
    assert kind_fill(slot(q), "Pip 20.1: an alpha version of the new resolver was available.", Names(), got) == 0.0
    assert kind_fill(slot(q), "The pilot started on 4 March 2026.", Names(), got) == 1.0


def test_a_short_frame_before_the_auxiliary_still_asks_yes_or_no_and_its_version_says_which_case() -> None:
    from stigmergy.answer.asides import claimed

    q = "on python 3.9 will pip pick up my corp ca cert from the os cert store?"
    assert slot(q).kind == "yesno"  # "on python 3.9, will pip …" without its comma
    assert slot("in which version did pip drop py2").kind == "quantity"  # a question word in the frame: no frame
    [version] = [t for t in claimed(question_terms(q), q, "yesno") if t.figure]
    assert version.word == "3.9" and not version.claim  # the case asked about, a constraint
    # A value put to the wiki is still a claim a line may contradict.
    [count] = [t for t in claimed(question_terms("norrland still on 412 gateways?"), "norrland still on 412 gateways?",
                                  "yesno") if t.figure]
    assert count.claim == "check"


def test_a_sentence_about_this_is_said_with_the_one_before_it() -> None:
    from stigmergy.answer.compose import leans_back

    assert leans_back("This was changed in pip 10.0 due to the breaking nature of eager when upgrading dependencies.")
    assert leans_back("That means the reading was shown late by more than two minutes on the dashboard.")
    # "This guide …" names its own subject; a long sentence with a pronoun inside stands alone.
    assert not leans_back("This guide is for customer site staff and field engineers installing the gateways.")
    assert not leans_back("The gateway buffers readings and uploads them when it reconnects to the network later.")


def test_a_short_form_is_said_by_the_whole_word() -> None:
    from stigmergy.answer.select import alternatives, word_score
    from stigmergy.answer.shorthand import whole_words

    q = "will pip pick up my corp ca cert from the os cert store?"
    terms = question_terms(q)
    assert whole_words(terms) == {"cert": (frozenset({"certif"}),)}  # "certificate", "certificates": one stem
    [part] = parts(q)
    whole = _line("The system certificate store is used to verify HTTPS connections.")
    other = _line("The system store is used to verify HTTPS connections.")
    alts = alternatives((whole, other), part, terms, Names())
    assert word_score(whole, terms, alts)[0] > word_score(other, terms, alts)[0]
    # A name is never read as a short form ("Temp" the agency); "mins" is minutes.
    assert whole_words(question_terms("what does Temp do in 2 mins")) == {"min": (frozenset({"minut"}),)}


def test_a_hyphenated_word_says_the_askers_word_written_whole() -> None:
    from stigmergy.answer.terms import stems

    assert {"wifi", "wi-fi"} <= stems("Wi-Fi — Where: LanternfishStaff")
    assert "email" in stems("Send an e-mail to the on-call lead.")
    assert "eu2" not in stems("eu-2 region")  # a name with a digit is not run together


def test_an_aside_after_the_question_asks_nothing_unless_it_gives_a_date_or_a_figure() -> None:
    assert [(p.text, p.slot.kind) for p in parts("what's MKT? pharma folks keep saying it")] == [("what is MKT",
                                                                                                 "definition")]
    # An aside with a date or a figure says which claim the answer corrects: kept.
    [part] = parts("when did driftwood finally cut over? wasn't it supposed to be end of may")
    assert "may" in part.text
    # A second question after the "?" is a part of its own, as before.
    assert len(parts("how large was the series a? who led it?")) == 2
