"""Issue #19, forty-third session (the twenty-second blind pair's misses, read once its figure was on record): "X or
not?" asks yes or no; "by how much" and "how much did X jump" ask for a change, a share as often as a sum; "where did
we actually land" asks for the figure; a "when" with its own subject and verb opens a case, and "when do i need to"
asks in which case; "default value of --opt" asks for the setting's value, word or figure; a question word alone
after "and" asks its question of the same subject; an option or a name given "like" an example is not what a yes-or-no
question is about; "SEV-2" says the asker's "sev2"; "q4 '25" is Q4 2025; "total events" counts events, and a volume
is any figure; "what kicked off X" asks its cause; "in the first place", "actually" and "vs" ask nothing; a
placeholder "X" names nothing; "share of users who …" asks a share; "which wins" asks which of the named; a negated
auxiliary ends the noun of "which X"; "what's X's role there" asks X's post; "how quick" asks how long, and "under
a second" is a time; "when ppl say 'lane' … what do they mean" asks what the word means; "- was it tomek?" is a
guess; "what now" asks what to do (no index; sentences written for these tests)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from stigmergy.answer import files
from stigmergy.answer.asides import claimed, motive
from stigmergy.answer.names import Names
from stigmergy.answer.question import Slot, parts
from stigmergy.answer.terms import question_terms, stems, tokens
from tests.test_answer_slots import _fills as _slot_fills


def _line_of(text: str) -> object:
    """A line as `select._of_asked_kind` reads it: its text."""
    return SimpleNamespace(text=text)


def _slot(question: str) -> Slot:
    return parts(question)[0].slot


def _fills(question: str, text: str, context: str = "") -> float:
    return _slot_fills(question, text, context, Names())


def _terms(question: str) -> dict[str, object]:
    part = parts(question)[0]
    return {t.stem: t for t in claimed(question_terms(part.text), part.text, part.slot.kind)}


def test_x_or_not_asks_yes_or_no() -> None:
    assert _slot("quote version specifiers inside requirements.txt or not?").kind == "yesno"
    assert _slot("quote version specifiers inside requirements.txt?").kind != "yesno"


def test_by_how_much_after_a_topic_asks_for_a_change() -> None:
    q = "norrland renewal: by how much does their ARR go up"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "")
    assert _fills(q, "Their ARR grows by 9% on renewal.") == 1
    q = "q4 '25 - how much did beacon component costs jump?"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "")
    assert _fills(q, "Gateway component costs rose 11% in the quarter.") == 1
    # a sum asked without a change keeps its unit
    assert _slot("how much did the beacon components cost").unit == "money"


def test_where_did_we_actually_land_asks_for_the_figure() -> None:
    got = _slot("q3 ARR: outlook in july said ~9.2m, where did we actually land")
    assert got.kind == "quantity" and got.unit == "money"


@pytest.mark.parametrize(("question", "kind"), [
    ("skip the svn tests when i don't have subversion installed", "procedure"),
    ("fallback build requires when project has no pyproject.toml", "value"),
    ("editable install: when do i need to reinstall after changes", "value"),
    ("the offsite starts when exactly?", "date"),
    ("when is the offsite", "date"),
    ("by when is the req/ directory supposed to be refactored?", "date"),
])
def test_a_when_with_its_own_subject_opens_a_case(question: str, kind: str) -> None:
    assert _slot(question).kind == kind


def test_the_default_value_of_an_option_is_a_word_or_a_figure() -> None:
    for q in ("default value of --upgrade-strategy", "what's the default value of global.timeout"):
        assert _slot(q).kind == "value", q
    assert _slot("what's the value of the pellucid deal").kind == "quantity"


def test_a_question_word_alone_after_and_asks_of_the_same_subject() -> None:
    got = parts("what is build isolation and why")
    assert [p.slot.kind for p in got] == ["definition", "reason"]
    assert got[0].slot.subject == "build isolation"
    assert "isolation" in got[1].text


def test_an_option_or_a_name_given_like_an_example_is_no_constraint_of_a_yes_or_no_question() -> None:
    terms = _terms("can i put pip options like --index-url inside a dependency group list")
    assert terms["index-url"].claim == "example" and not terms["index-url"].constraint
    terms = _terms("does pip talk to git through a library like pygit2 or through a subprocess")
    assert terms["pygit2"].claim == "example" and not terms["pygit2"].constraint
    # outside the remark, the option is what is asked about
    assert _terms("can i put --index-url inside a dependency group list")["index-url"].constraint


def test_a_dashed_level_says_the_askers_level_typed_without_the_dash() -> None:
    assert "sev2" in stems("Customers affected by a SEV-1 or SEV-2 incident hear from us within one hour.")
    assert "sev3" not in stems("Customers affected by a SEV-1 or SEV-2 incident hear from us within one hour.")


def test_a_year_typed_short_is_the_whole_year() -> None:
    assert "q4 2025" in parts("q4 '25 - how much did component costs jump?")[0].text
    assert "2025" in parts("what did we ship in '25")[0].text
    assert "'anything except 3.1'" in parts("version operator for 'anything except 3.1'")[0].text  # a quote stays


def test_total_counts_what_it_names_and_a_volume_is_any_figure() -> None:
    q = "total events served on harbor launch day by close?"
    assert (_slot(q).head, _slot(q).unit) == ("events", "count")
    assert _fills(q, "end of day: every beta customer migrated, 2 carriers live, 3.1M events.") == 1
    q = "orbis volume through harbor per week roughly?"
    assert _fills(q, "Orbis sends about 1.2 million shipment events a week through it.") == 1


def test_what_kicked_off_asks_the_cause_and_fillers_ask_nothing() -> None:
    q = "what kicked off the april 22 backlog in the first place"
    assert _slot(q).kind == "reason"
    assert not {"first", "place"} & set(_terms(q))
    assert not {"realli", "v"} & set(_terms("who really led driftwood vs harbor"))


def test_a_placeholder_names_nothing() -> None:
    assert "x" not in _terms("`pip install X` with no --upgrade, which upgrade strategy is that effectively")
    assert "b" in _terms("what's plan B for the launch")  # a label is still one


def test_a_share_of_people_who_do_something_is_a_share() -> None:
    got = _slot("share of pip users in the survey who speak a non-english first language")
    assert (got.kind, got.unit) == ("quantity", "percent")
    assert _slot("number of customers who churned in q3").unit == "count"
    assert _slot("who is hannah's counterpart").kind == "person"


def test_which_wins_asks_which_of_the_named_and_a_negation_ends_the_noun() -> None:
    assert _slot("flag vs env var vs pip.conf - which wins?").head == ""
    assert _slot("which hash algos won't pip accept in hash-checking mode").head == "algos"


def test_a_post_asked_there_is_a_post() -> None:
    got = _slot("prepping for the pellucid call - what's aoife's role there?")
    assert (got.kind, got.subject) == ("role", "aoife")


def test_how_quick_asks_how_long_and_under_a_second_is_a_time() -> None:
    q = "in tidemark 4.0 how quick does the shipment list load for huge accounts"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "time")
    assert _fills(q, "Faster lists: the shipment list loads in under a second for large customers.") == 1
    assert _fills(q, "Faster lists: the shipment list is paged for large customers.") == 0


def test_what_people_mean_by_a_word_asks_its_meaning() -> None:
    assert _slot("when ppl say 'lane' in standup what do they mean").kind == "definition"
    assert _slot("when people say 'telemetry gap' is that the same as an excursion").kind == "yesno"


def test_a_guess_after_the_question_is_no_constraint() -> None:
    q = "who actually led driftwood - was it tomek?"
    part = parts(q)[0]
    terms = [t if t.stem != "tomek" else type(t)(**{**t.__dict__, "proper": True}) for t in question_terms(part.text)]
    tomek = next(t for t in motive(terms, part.text) if t.stem == "tomek")
    assert tomek.claim == "aside" and not tomek.constraint
    plain = next(t for t in motive(terms, "who led driftwood with tomek") if t.stem == "tomek")
    assert plain.constraint


def test_what_now_asks_what_to_do() -> None:
    assert _slot("pip search stopped working against pypi - what now").kind == "procedure"
    assert _slot("what's new in 4.0").kind != "procedure"


def test_cash_burned_is_money() -> None:
    q = "heads up before the board pack goes out: how much cash did we burn in Q3 exactly?"
    assert _slot(q).unit == "money"
    assert _fills(q, "Cash runway at current burn is about 26 months.") == 0
    assert _fills(q, "We burned £1.5M of cash in the quarter.") == 1


def test_a_count_said_only_vaguely_is_not_given() -> None:
    q = "how many people unsubscribed from the research panel"
    assert _fills(q, "In total 472 people signed up to the panel, although some unsubscribed during the study.") == 0
    assert _fills("how many people signed up to the research panel",
                  "In total 472 people signed up to the panel, although some unsubscribed during the study.") == 1
    assert _fills("how many customers churned", "Several customers churned in the quarter, 12 in total.") > 0


@pytest.mark.parametrize("question", ["completely empty pip's cache", "split a long line in requirements.txt",
                                      "rerun CI on my PR without code changes"])
def test_a_request_that_opens_with_a_verb_asks_how(question: str) -> None:
    assert _slot(question).kind == "procedure"


def test_a_plain_text_file_is_named_by_its_kind_in_words() -> None:
    pages = [{"path": "a.md", "title": "Requirements", "content": "Do not use quotes in requirement files."},
             {"path": "b.md", "title": "Caching", "content": "the wheel cache"}]
    assert files.pages_naming(frozenset({"requirements.txt"}), pages) == {"a.md"}
    # a file named otherwise is still named by its name only
    assert files.pages_naming(frozenset({"pyproject.toml"}), pages) == frozenset()


def test_a_yes_or_no_question_after_a_case_and_a_comma() -> None:
    assert _slot("py3.9 box behind a TLS-intercepting proxy, will pip use the system certs?").kind == "yesno"
    # asked of the figure said before it, the question still asks for the figure
    assert _slot("q2 revenue - i saw 2.41m somewhere, is that the final number?").kind != "yesno"


def test_a_release_of_any_minor_is_the_major_release() -> None:
    assert "pip 23 " in parts("on pip 23.x how do i opt into system certs")[0].text


def test_a_collection_size_is_a_count_and_a_version_operator_an_operator() -> None:
    assert _slot("issue backlog size mentioned in the prioritization research").unit == "count"
    assert _slot("what's the max cache size").unit != "count"
    assert (_slot("version operator for 'anything except 3.1'").kind,
            _slot("version operator for 'anything except 3.1'").head) == ("thing", "operator")


def test_a_word_a_page_stresses_with_underscores_is_the_word() -> None:
    assert {"isol", "environ"} <= stems("For building packages, pip uses an _isolated environment_.")
    assert "__init__.py" in tokens("edit __init__.py")


def test_december_of_a_year_is_said_by_the_years_end() -> None:
    from stigmergy.answer.terms import period_forms

    assert "end of 2026" in period_forms("december 2026")
    assert "end of 2026" not in period_forms("november 2026")


@pytest.mark.model
def test_a_name_of_the_asked_kind_by_meaning(tmp_path_factory: pytest.TempPathFactory) -> None:
    from test_index_support import shared_embedder

    from stigmergy.answer.kind_meaning import of_kind

    embedder = shared_embedder(tmp_path_factory.getbasetemp())
    vectors = SimpleNamespace(vectors=embedder.embed)
    assert of_kind("timezone", ["UTC", "Lisbon"], vectors) == {"UTC"}
    assert of_kind("encoding", ["UTF-8", "PEP 263"], vectors) == {"UTF-8"}
    assert of_kind("cipher", ["AWS KMS"], vectors) == frozenset()
    assert of_kind("timezone", [], vectors) == frozenset()


def test_a_sentence_opened_by_as_and_a_clause_gives_a_reason() -> None:
    from stigmergy.answer.cues import CAUSE_RE

    assert CAUSE_RE.search("As downloading projects is a costly operation, pip cannot work out the whole tree first.")
    assert not CAUSE_RE.search("As of version 20.3, pip uses the new resolver.")
    assert not CAUSE_RE.search("As an example, if you want a shorter timeout, set it per command.")


def test_a_weakly_named_thing_of_the_asked_kind_fills_the_slot() -> None:
    import numpy as np

    from stigmergy.answer.select import _of_asked_kind
    from stigmergy.answer.values import asked
    from stigmergy.answer.which import WEAK

    near = {"timezone": [1.0, 0.0], "UTC": [0.9, 0.1], "Lisbon": [0.1, 0.9]}
    vectors = SimpleNamespace(vectors=lambda texts: np.array([near[t] for t in texts], dtype=np.float32))
    q = asked("harbor timestamps - what timezone", Names())
    pre = [(_line_of("Timestamps are always UTC with a trailing Z."), 0.8, True, WEAK, False, ()),
           (_line_of("Our office moved to Lisbon last year."), 0.2, False, WEAK, False, ())]
    got = _of_asked_kind(pre, "timezone", Names(), q, vectors)
    assert [item[3] for item in got] == [1.0, WEAK]


def test_a_windows_path_in_code_with_escaped_backslashes_is_a_place() -> None:
    q = "where's the system-wide pip.ini on windows 10"
    assert _fills(q, "Global : * On Windows 7 and later: {file}`C:\\\\ProgramData\\\\pip\\\\pip.ini` (hidden)") == 1
    assert _fills("windows user-level pip config file location", "User : {file}`%APPDATA%\\\\pip\\\\pip.ini`") == 1


def test_which_address_to_send_something_to_is_an_email_address() -> None:
    q = "think i found a vuln in the app — which address do i send it to?"
    assert _fills(q, "Security questions: security@example.com.") == 1
    assert _fills(q, "Security questions go to the platform team.") < 1


def test_a_stated_preference_says_the_best_way() -> None:
    q = "whats the best way to ask the SRE lead a question, DM?"
    assert _fills(q, "She prefers a written question in #sre to a direct message, so the answer helps others.") == 1
    assert _fills("how do i ask the SRE lead a question",
                  "She prefers a written question in #sre to a direct message, so the answer helps others.") < 1


def test_a_named_method_says_how_to_check() -> None:
    q = "how do I check a webhook payload really came from us"
    assert _fills(q, "Each delivery is signed (HMAC-SHA256) with your endpoint secret.") == 1
    assert _fills(q, "Each delivery is retried for up to a day.") < 1


def test_where_a_slip_came_from_is_its_cause() -> None:
    from stigmergy.answer.cues import CAUSE_RE

    assert CAUSE_RE.search("The four-day slip came from the firmware rollout, paused after reboot loops.")
    assert not CAUSE_RE.search("The readings came from the gateways in the test rack.")


def test_shops_are_stores() -> None:
    q = "the distributor delivers to about how many stores"
    assert _fills(q, "The distributor delivers groceries to about 1,100 shops from 9 depots.") == 1


def test_the_first_release_with_a_feature_is_the_one_that_added_it() -> None:
    q = "first pip release that understood constraints files?"
    assert _fills(q, "Constraints file support was added in pip 7.1.") == 1
    # "since" says a release from which something holds, not the first that shipped the asked thing
    from stigmergy.answer.slots import _said_as

    assert _said_as("first", stems("support was added in pip 7.1"))
    assert not _said_as("first", stems("It is generated by pip since version 20.2."))


@pytest.mark.parametrize("question", [
    "pip versions look like 24.2 - what does the 2 part mean?",
    "in a version number like 24.2, what does the number after the dot stand for?",
    "version numbers look like 24.2 or 25.1 — what do the two parts stand for?",
])
def test_a_piece_of_the_askers_example_is_defined_with_the_kind_of_the_example(question: str) -> None:
    assert _slot(question) == Slot("definition", subject=_slot(question).subject)
    assert "number" in _slot(question).subject
    assert _fills(question, "The version number of the tool is ``YY.N``, where ``YY`` is the year and ``N`` the quarter.") == 1
    assert _fills(question, "Releases are cut every three months from main.") < 1


def test_every_example_the_asker_lists_is_an_example() -> None:
    terms = _terms("version numbers look like 24.2 or 25.1 — what do the two parts stand for?")
    assert terms["24.2"].claim == terms["25.1"].claim == "example"


def test_a_variable_of_the_askers_own_is_an_example() -> None:
    q = "in requirements.txt can i write $MY_TOKEN or %MY_TOKEN% and have pip expand it"
    [part] = parts(q)  # one thing asked, to have it done, after a frame too
    assert part.slot.kind == "yesno"
    assert _terms(q)["my_token"].claim == "example"
    assert _terms("what does $PIP_INDEX_URL set")["pip_index_url"].claim != "example"


def test_a_command_the_asker_wishes_existed_names_no_page() -> None:
    assert files.named("is there a pip subcommand to build an sdist, like a `pip sdist`?") == frozenset()
    assert files.named("what does `pip wheel` build") == {"pip wheel"}


def test_an_sdist_is_a_source_distribution() -> None:
    from stigmergy.answer.shorthand import whole_words

    part = parts("is there a subcommand to build an sdist")[0]
    alts = whole_words(question_terms(part.text))
    assert frozenset({"sourc", "distribut"}) in alts["sdist"] and frozenset({"command"}) in alts["subcommand"]


@pytest.mark.parametrize("question", ["--exists-action b -> what does b do", "--exists-action b, what does the b choice do"])
def test_a_prompts_choice_asked_by_its_letter_is_defined_where_its_label_stands(question: str) -> None:
    line = "*(w)ipe* Delete the file before trying again. *(b)ackup* Rename the file to ``{name}.bak``."
    assert _fills(question, line) == 1
    assert _fills(question, "*(a)bort* Abort and return a non-zero exit status.") == 0


def test_a_name_judged_by_meaning_comes_only_from_lines_the_reader_may_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: a "which X" answer may now be filled by a name the model places near X. The board minutes name the
    # bidder; a public reader's answer says nothing of it, the board reader's is read from them.
    from test_answer_support import CANARY, said_by_reader

    said, board = said_by_reader(tmp_path / "w", "which company offered to acquire aurora, and for how much?")
    assert CANARY not in said and "72M" not in said and "Orbis" not in said
    assert "Orbis" in board  # the test can fail
