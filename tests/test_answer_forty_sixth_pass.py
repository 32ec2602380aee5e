"""Issue #19, forty-sixth session (the twenty-fifth blind pair's misses, read once its figure was on record). Question
forms: a later part asking for "the X" alone asks for the first part's thing's X; "X's role exactly" and "remind me
what her job is" ask for a post, and a first name typed before where someone works is whose; a delay or a latency is
a time; "which one wins" asks which setting holds; "officially" is a filler. Lines: a label of some of a term's words
defines it when the rest stands in its heading or lead-in, and so does the first line under a heading that is the
option; "as X requires", "this gives a …" and "doing so would …" give reasons; a shop is retail, what is kept is
retained, and a typing slip of a word the line says is that word; a legacy thing a dated past event happened to is
not the old one. Answers: asked how, an item of a list of ways is said with its lead-in and every way, only from what
the reader may read (no index for most; sentences written for these tests)."""

from __future__ import annotations

import json

from stigmergy.answer.question import parts
from tests.test_answer_forty_fourth_pass import _fills, _slot


def test_a_later_part_asking_for_the_x_alone_asks_for_the_first_parts_things() -> None:
    got = parts("where's the leadership offsite this year and whats the budget")
    assert got[1].text == "what is the budget of the leadership offsite this year"
    assert got[1].carried == "the leadership offsite this year"
    # a first part that is a clause of its own ("we sign with norrland") carries nothing
    assert parts("when did we sign with norrland and what is the value")[1].carried == ""
    # nor does a later part that says more than "the X"
    assert parts("where is the lisbon office and what is the monthly rent")[1].carried == ""


def test_a_post_asked_with_a_hedge_or_in_a_clauses_own_order() -> None:
    assert (_slot("what's tomek's role exactly?").kind, _slot("what's tomek's role exactly?").subject) == ("role", "tomek")
    assert _slot("priya - remind me what her job is?").kind == "role"
    assert _slot("what her job was like at the old firm").kind != "role"  # not a post


def test_a_first_name_typed_before_where_someone_works_is_whose_post() -> None:
    from stigmergy.answer.names import Names
    from stigmergy.answer.pronouns import resolved

    got = resolved(parts("erik at norrland, what's his title?")[0], Names())
    assert (got.slot.kind, got.slot.subject) == ("role", "erik")
    assert resolved(parts("what's his title?")[0], Names()).slot.subject == ""  # no one named: any post may answer


def test_a_delay_or_a_latency_is_a_time() -> None:
    for q in ("april 22 poller incident - what was the worst delay on readings?", "what was the p99 latency"):
        assert (_slot(q).kind, _slot(q).unit) == ("quantity", "time"), q
    q = "april 22 poller incident - what was the worst delay on readings?"
    assert _fills(q, "41 customers were affected, including Norrland") == 0  # a count is no delay
    line = ("From 07:41 to 10:53 UTC on 22 April, readings from Beacon gateways served by the legacy poller reached "
            "Tidemark late, by up to 3 hours 12 minutes.")
    assert _fills(q, line) == 1  # the legacy poller is what it was that day
    assert _fills("how big is the poller backlog now", "The legacy poller backlog is 12 minutes.") < 1


def test_which_one_wins_asks_which_setting_holds() -> None:
    q = "same key in the global and the user config, which value sticks"
    assert (_slot(q).kind, _slot(q).head) == ("thing", "one")
    assert _fills(q, "If the timeout is set in both files then the latter value will be used.") == 1
    assert _fills(q, "The global configuration file is /etc/pip.conf.") == 0
    assert _slot("which value is the default timeout").head != "one"


def test_officially_and_i_think_are_fillers() -> None:
    from stigmergy.answer.terms import question_terms

    assert "offici" not in {t.stem for t in question_terms("when did coldtrace officially become tidemark?")}
    got = {t.stem for t in question_terms("think i found a security bug in tidemark, how do i report it?")}
    assert "think" not in got and "report" in got


def test_a_label_defines_a_term_whose_other_words_are_in_its_heading() -> None:
    from stigmergy.answer.defining import defined_in_context

    ctx = "User guide User Guide Recursive Upgrade There are 2 upgrade strategies supported:"
    line = "``eager``: upgrades all dependencies regardless of whether they still satisfy the new parent requirements"
    assert defined_in_context("eager upgrade strategy", line, ctx)
    assert _fills("eager upgrade strategy meaning", line, ctx) == 1
    assert not defined_in_context("eager upgrade strategy", line, "User guide Installing packages")
    assert not defined_in_context("lazy upgrade strategy", line, ctx)  # the label is another term


def test_the_first_line_under_an_options_heading_defines_it() -> None:
    from stigmergy.answer.defining import defined_in_context

    ctx = "Release process Feature Flags ``--use-deprecated``"
    assert _fills("what is --use-deprecated for", "Use for features that will be deprecated.", ctx) == 1
    # a line with a sentence before it, under the heading, is not the first
    assert not defined_in_context("--use-deprecated", "Once removed, users see an error.", f"{ctx} Use for features.")


def test_what_a_need_rules_out_and_what_a_thing_gives_are_reasons() -> None:
    from stigmergy.answer.cues import CAUSE_RE, as_need

    assert as_need("only certifi is used to verify HTTPS connections as `truststore` requires Python 3.10")
    assert CAUSE_RE.search("(as noted above, doing so would be prohibitively costly)")
    assert CAUSE_RE.search("This gives users a predictable pattern for when releases are going to happen.")
    assert not as_need("Keep it as long as pip does not need it.")
    assert not as_need("Use the same format as pip requires for requirement files.")  # a likeness
    assert _fills("why are system certs not used on python 3.9",
                  "On Python 3.9 or earlier, only certifi is used as `truststore` requires Python 3.10 or higher.") == 1


def test_shops_are_retail_kept_is_retained_and_a_slip_is_the_word() -> None:
    line = "Norrland Fresh distributes chilled and frozen groceries to about 1,100 shops in Sweden and Norway."
    assert _fills("norrland fresh supplies roughly how many retail stores?", line) == 1
    assert _fills("backup retention period for tidmark?", "Backups are encrypted and kept for 35 days.",
                  "Tidemark Security Overview") == 1
    assert _fills("backup retention period for tidmark?", "Logs are encrypted and kept for 35 days.",
                  "Harbor Security Overview") < 1  # neither backups nor Tidemark


def test_an_item_of_a_list_of_ways_is_said_with_every_way_only_to_whom_may_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: the board's list of ways to open the vault is never said to a public reader; the board reader hears
    # every way, with the lead-in that says they are alternatives.
    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader
    from test_index_support import RepoBuilder

    b = RepoBuilder(tmp_path / "w", layers={"board": [BOARD]})
    b.source("Vault notes", "The vault can be opened in various ways:\n\n"
             f"- open the vault with the master key {CANARY}\n- open the vault with the sealed recovery phrase\n"
             "- ask the security desk to open the vault\n",
             layer="board", occurred_at="2026-09-17", key="vault")
    b.source("Office notes", "The office door can be opened in two ways:\n\n- using your badge\n"
             "- using the front desk intercom\n", occurred_at="2026-09-01", key="office")
    b.commit()
    got = answers_by_reader(b, "how do i open the vault with the master key?")
    public, board = json.dumps(got[PUBLIC][0]), json.dumps(got[BOARD][0])
    assert CANARY not in public and "recovery phrase" not in public and "security desk" not in public
    # the board reader asked about the key hears the other two ways too (the test can fail)
    assert CANARY in board and "recovery phrase" in board and "security desk" in board and "various ways" in board


def test_a_later_parts_it_after_who_and_its_verb_is_the_object() -> None:
    got = parts("who wrote the april ingestion postmortem, and what sev was it?")
    assert got[1].carried == "the april ingestion postmortem"
    assert parts("who leads driftwood and when did it start")[1].carried == "driftwood"


def test_a_grade_is_said_by_its_kind_and_number() -> None:
    q = "what sev was the april ingestion postmortem"
    assert _fills(q, "08:40 Grace Nakamura declares SEV-2; Hannah starts customer updates.") == 1
    assert _fills("what sev-2 runbook applies", "Follow the SEV-2 runbook.") < 1  # the asker's own grade


def test_a_team_owns_what_who_owns_asks() -> None:
    line = 'The comparison dashboard, renamed "ingest health", now owned by the platform team.'
    assert _fills("who owns the 'ingest health' dashboard now", line) == 1
    assert _fills("who renamed the 'ingest health' dashboard", line) < 1  # a team named, not who renamed it


def test_a_threshold_is_said_by_its_bound() -> None:
    q = "after the april backlog, what poller lag threshold did grace set the new alert at?"
    assert _fills(q, "Grace Nakamura: alert on poller lag over 2 minutes, by 24 April.") == 1
    assert _fills(q, "Grace Nakamura: poller lag reached 2 minutes on 24 April.") < 1


def test_what_does_x_do_exactly_asks_what_x_does() -> None:
    assert (_slot("what does --ignore-installed do exactly").kind, _slot(
        "what does --ignore-installed do exactly").subject) == ("definition", "--ignore-installed")
    line = "Act as if the currently installed version isn't there - so don't care about ``--upgrade``."
    assert _fills("what does --ignore-installed do exactly", line, "Upgrade options ``--ignore-installed``") == 1


def test_a_thing_that_does_the_same_as_another_is_defined_by_it() -> None:
    line = ("``pip download`` does the same resolution and downloading as ``pip install``, but instead of installing "
            "the dependencies, it collects the downloaded distributions into the directory provided.")
    assert _fills("what does pip download do compared to install", line) == 1
    assert _fills("what does pip download do", "``pip download`` does not install anything by itself") < 1


def test_a_line_that_asks_first_answers_no_yes_or_no_question() -> None:
    q = "is a telemetry gap the same as an excursion?"
    line = ("How do we show a telemetry gap inside an excursion: as unknown, or as out of range? Pellucid's quality team "
            "wants unknown.")
    assert _fills(q, line) < 1
    assert _fills(q, "A telemetry gap is not an excursion: we do not know the temperature.") == 1


def test_an_env_var_named_first_asks_for_a_variable() -> None:
    assert (_slot("env var that moves where --user installs go").kind,
            _slot("env var that moves where --user installs go").head) == ("thing", "variable")
    assert _slot("where do --user installs go").kind == "place"


def test_ground_is_floor() -> None:
    q = "how high off the ground does a g2 need to be mounted?"
    from stigmergy.answer.counts import SAME_AS

    assert "floor" in SAME_AS["ground"].split() and "ground" in SAME_AS["floor"].split()
    assert _fills(q, "Mount the gateway at least 1.5 m above the floor, away from the evaporator fan.") == 1


def test_what_held_something_up_asks_why() -> None:
    for q in ("saw driftwood m2 landed on the 14th not the 10th - what held it up?", "what's holding up the release",
              "what delayed the m2 milestone"):
        assert _slot(q).kind == "reason", q
    assert _slot("what was delayed").kind != "reason"  # what, not why


def test_a_choice_asked_by_its_word_or_quoted_letter_is_defined_where_its_label_stands() -> None:
    line = "*(b)ackup* Rename the file or checkout to {name}{'.bak' * n}, where n is some number."
    for q in ("pip asked me (s)witch/(i)gnore/(w)ipe/(b)ackup/(a)bort — what does backup do exactly?",
              "--exists-action b : what does 'b' do exactly"):
        assert _fills(q, line) == 1, q
    assert _fills("exists-action (i)gnore meaning?", "*(i)gnore* Abort current operation.") == 1
    assert _fills("what does backup do exactly", "Keep a backup of the file before you edit it.") < 1


def test_how_short_asks_for_a_span() -> None:
    got = _slot("if a deprecation gets fast tracked how short can the period be")
    assert (got.kind, got.unit) == ("quantity", "extent")
    assert _fills("how short can the deprecation period be", "Certain changes have a deprecation period of 3 months.") == 1


def test_a_measure_after_a_topics_dash_is_asked() -> None:
    got = _slot("upgrade conflict survey (tea/coffee/water) - total responses?")
    assert (got.kind, got.unit) == ("quantity", "count")
    assert _slot("offline box: install everything from a folder of wheels").kind == "procedure"  # a thing to do
