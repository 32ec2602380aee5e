"""Issue #19, forty-seventh session (the twenty-sixth blind pair's misses, read once its figure was on record). Question
forms: a capital letter after a first name is the surname's initial and a pronoun is whom the asker means, neither a
word a line must say; "X's QD, what's her name" asks who holds the post; "quick q", "sorry" and "in plain terms" ask
nothing; "Lanternfish-wide" names Lanternfish; a term typed before a dash, a colon (or, a literal, a comma) and then
"what is it" asks its definition; "X vs Y" asks X's; "how snappy" asks a time; "??" ends a question as "?" does.
Lines: "using X to include …" says what X is for; asked where to put a thing, the line that says what it is set
against; asked for "the renewal date", a day beats a month; the biggest is the largest (no index for most; sentences
written for these tests)."""

from __future__ import annotations

import json

from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.question import parts
from stigmergy.answer.terms import question_terms
from tests.test_answer_forty_fourth_pass import _fills, _slot


def _stems(question: str) -> dict[str, bool]:
    return {t.stem: t.constraint for t in question_terms(question)}


def test_an_initial_after_a_first_name_and_a_pronoun_are_no_words_to_find() -> None:
    got = _stems("Hannah L — which city does she work out of?")
    assert "l" not in got and "she" not in got and "hannah" in got
    assert _stems("what is plan B")["b"]  # a label after a plain word is still one a line must say
    assert "her" not in _stems("priya - remind me what her job is?")


def test_a_post_then_whats_her_name_asks_who_holds_it() -> None:
    from stigmergy.answer.names import Names
    from stigmergy.answer.pronouns import resolved

    got = resolved(parts("Pellucid's QD, what's her name")[0], Names())
    assert got.slot.kind == "person"
    # a person named keeps asking for their other name
    got = resolved(parts("sending an invite to tomek, what's his full name?")[0], Names())
    assert got.slot.kind == "alias"


def test_fillers_that_open_or_excuse_a_question_ask_nothing() -> None:
    assert set(_stems("sorry, who is 'Tomek' on slack? never met him")) == {"tomek", "slack"}
    assert "quick" not in _stems("quick q: why did polling slow down in april?")
    assert "quick" in _stems("how quick is the quick start")  # not an opener
    assert "plain" not in _stems("MKT — what is it actually measuring, in plain terms?")


def test_a_word_and_how_far_it_reaches_is_the_word() -> None:
    got = _stems("is the audit trail signed with one Lanternfish-wide key?")
    assert "lanternfish" in got and not any(s.startswith("lanternfish-") for s in got)
    assert "compani" in _stems("a company-wide key for every pip.ini")


def test_a_term_before_a_dash_then_what_is_it_asks_its_definition() -> None:
    for q, subject in (("MKT — what is it actually measuring, in plain terms?", "MKT"),
                       ("pip.conf: what is it for", "pip.conf"),
                       ("--ignore-installed, what does it actually do", "--ignore-installed"),
                       ("PIP_USER_AGENT_USER_DATA env var - what does setting it actually do?",
                        "PIP_USER_AGENT_USER_DATA")):
        assert (_slot(q).kind, _slot(q).subject) == ("definition", subject), q
    # before a comma only a literal is a term: the rest is a case
    assert _slot("after an install, what does it do").subject != "after an install"
    assert _slot("norrland renewal — what is it worth").kind == "quantity"


def test_x_versus_y_asks_for_xs_definition() -> None:
    for q in ("whats a 'telemetry gap' vs an excursion", "what is a telemetry gap compared to an excursion"):
        assert (_slot(q).kind, _slot(q).subject.strip("'")) == ("definition", "telemetry gap"), q
    line = "**Telemetry gap** — a period with no readings from a shipment's sensors."
    assert _fills("whats a 'telemetry gap' vs an excursion", line) == 1


def test_how_snappy_asks_a_time() -> None:
    q = "how snappy is the shipment list in 4.0 for big accounts?"
    assert (_slot(q).kind, _slot(q).unit) == ("quantity", "time")
    assert "snappi" not in _stems(q)
    assert _fills(q, "Faster dashboards: the shipment list loads in under a second for customers with 10,000 active "
                     "shipments.") == 1


def test_two_question_marks_end_a_question_before_a_remark() -> None:
    got = parts("pip cache folder on windows 11?? need to exclude it from our backup agent")
    assert len(got) == 1 and got[0].slot.kind == "place"


def test_what_a_variable_is_set_to_do_defines_it() -> None:
    q = "PIP_USER_AGENT_USER_DATA env var - what does setting it actually do?"
    line = ("using the environment variable ``PIP_USER_AGENT_USER_DATA`` to include a JSON-encoded string in the "
            "user-agent variable used in pip's requests.")
    assert _fills(q, line) == 1
    assert _fills(q, "Support for ``PIP_USER_AGENT_USER_DATA`` was added in 22.1.") < 1


def test_where_to_put_a_thing_is_said_by_what_it_is_set_against() -> None:
    q = "installing a G2 in a reefer - where should i put it"
    assert _fills(q, "Mount the gateway at least 1.5 m above the floor, away from the evaporator fan of a reefer.") == 1
    assert _fills(q, "Written by Samuel Achterberg, Hardware Lead, Leeds.") < 1
    # where a thing is, not where to put it: a town still answers
    assert _fills("where is the hardware lab", "The hardware lab is at 12 Wharf Street, Leeds.") == 1


def test_a_date_named_by_its_event_is_a_day_more_than_a_month() -> None:
    q = "renewal date for norrland?"
    assert _fills(q, "Norrland Fresh signed a two-year renewal on 19 September.") == 1
    assert 0 < _fills(q, "Renewal is due in September.") < 1
    assert _fills("when is the norrland renewal", "Renewal is due in September.") == 1  # "when" asks either


def test_an_examples_command_is_said_with_its_caption_only_to_whom_may_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Hostile: the board's example command (with its secret) is never said to a public reader, asked in the
    # caption's words; the board reader hears the caption and the command below it.
    from test_answer_support import BOARD, CANARY, PUBLIC, answers_by_reader
    from test_index_support import RepoBuilder

    b = RepoBuilder(tmp_path / "w", layers={"board": [BOARD]})
    # a section long enough that the examples are a fragment of their own, under their heading
    intro = "".join(f"The vault tool keeps sealed records of kind {i} for the finance team.\n\n" for i in range(40))
    b.source("Vault tool", "## Description\n\n" + intro + "## Examples\n\n1. List the vaults that nobody else "
             f"depends on.\n\n   ```shell\n   $ vault list --orphans --sealed-with {CANARY}\n   ```\n\n"
             "2. Show every vault.\n\n   ```shell\n   $ vault list\n   ```\n",
             layer="board", occurred_at="2026-09-17", key="vault")
    b.source("Office notes", "The office door opens with your badge.\n", occurred_at="2026-09-01", key="office")
    b.commit()
    got = answers_by_reader(b, "only show the vaults that nothing else depends on")
    public, board = json.dumps(got[PUBLIC][0]), json.dumps(got[BOARD][0])
    assert CANARY not in public and "vault list" not in public and "nobody else" not in public
    assert "nobody else depends on" in board and f"--sealed-with {CANARY}" in board


def test_an_email_asked_is_an_address_to_write_to() -> None:
    for q in ("email for Ines? need to cc her on a Pellucid thing", "grace's email address", "whats the security email"):
        assert (_slot(q).kind, _slot(q).head) == ("place", "address"), q
    assert _slot("when did ines email pellucid").kind == "date"  # emailing is what happened
    q = "email for Ines?"
    assert _fills(q, "Cc: Ines Carvalho <ines@lanternfishlabs.com>") == 1
    assert _fills(q, "Inês Carvalho works from the Lisbon office on Rua do Alecrim.") < 1


def test_a_sample_of_output_tells_no_how() -> None:
    q = "get pip list output as json so my script can parse it"
    assert _fills(q, '{ "version": "1", "pip_version": "22.2.dev0", "installed": [ { "metadata": {} } ] }') == 0
    assert _fills(q, "$ python -m pip list --format=json [{'name': 'colorama', 'version': '0.3.7'}]") == 1


def test_a_percentile_asked_is_a_figure_not_a_term() -> None:
    assert (_slot("whats p99 latency now").kind, _slot("whats p99 latency now").unit) == ("quantity", "time")
    assert _slot("what was p95 after the fix").kind == "quantity"
    assert _slot("what is a p-value").kind == "definition"  # no percentile


def test_a_thing_named_in_quotes_then_its_kind_asks_its_definition() -> None:
    q = "what is the 'to-satisfy-only' upgrade strategy"
    assert (_slot(q).kind, _slot(q).subject) == ("definition", "to-satisfy-only")
    assert _fills(q, "``to-satisfy-only`` (**undocumented, please avoid**) - packages are not upgraded (not even "
                     "direct requirements) unless the currently installed version fails to satisfy a requirement.") == 1
    assert _fills(q, 'This is actually the "default" upgrade strategy when ``--upgrade`` is *not set*, i.e. '
                     "``pip install --upgrade --upgrade-strategy=to-satisfy-only``.") < 1


def test_a_pen_test_and_a_vuln_are_typed_short() -> None:
    from stigmergy.answer.shorthand import whole_words

    got = whole_words(question_terms("how often do we get pen tested"))
    assert any("penetr" in form for forms in got.values() for form in forms)
    got = whole_words(question_terms("someone reports a vuln to us"))
    assert any("vulner" in form for forms in got.values() for form in forms)


def _source_line(text: str, at: int, headings: tuple[str, ...] = ("pip list", "Examples"), title: str = "pip list"
                 ) -> Line:
    """A line of a source page at line `at`, citing itself, under `headings`."""
    return Line("sources/2026/01/x.md", title, "source", "public", at, text, text, headings,
                (Cite("sources/2026/01/x.md", at, at, text),), 1)


def test_an_examples_caption_is_said_with_the_command_below_it() -> None:
    from stigmergy.answer.lead_in import example_after

    line = _source_line
    caption = line("List packages that are not dependencies of other packages.", 40)
    command = line("$ python -m pip list --outdated --not-required", 46)
    far = line("$ python -m pip list --outdated --not-required", 60)
    assert example_after(caption, (caption, command)) == command
    assert example_after(caption, (caption, far)) is None  # too far below to be its example
    between = line("The output lists each package once.", 43)
    assert example_after(caption, (caption, between, command)) is None  # another sentence comes first
    plain = line("List packages that are not dependencies of other packages.", 40, ("pip list", "Options"))
    assert example_after(plain, (plain, command)) is None  # no examples heading: no caption
    # two different lines that start at the same line below (a statement and a longer one read from the same place):
    # the first of them is taken, without ordering the lines themselves, which have no order
    again = line("$ python -m pip list --not-required", 46)
    assert example_after(caption, (caption, command, again)) == command


def test_right_now_says_when_not_what_is_counted() -> None:
    q = "ux research says pip has how many verbosity levels right now (they want to cut it to 3)"
    assert (_slot(q).head, _slot(q).unit) == ("levels", "count")
    assert _fills(q, "Right now there are seven levels of verbosity, which is overwhelming and in no way useful.") == 1


def test_a_clause_that_says_which_thing_asks_nothing_done_to_it() -> None:
    q = "standing in the repo root, how do i install groupA that's declared in ./project/subproject/pyproject.toml"
    assert _fills(q, "python -m pip install --group './project/subproject/pyproject.toml:groupA'") == 1
    # asked how a thing gets done to, a line that does not say it is done says nothing of how
    assert _fills("how do webhook payloads get signed", "Webhook payloads are retried five times.") == 0


def test_a_pasted_message_is_what_was_seen_not_what_is_asked() -> None:
    q = ("pip prints 'INFO: pip is looking at multiple versions of this package to determine which version is "
         "compatible' - what's going on")
    assert _slot(q).unit != "version"  # "which version" is the message's, not the asker's
    assert _fills(q, "INFO: pip is looking at multiple versions of this package to determine which version is "
                     "compatible with other requirements.") == 0  # the message again
    assert _fills(q, "These multiple `Downloading cup-{version}` lines show that pip is backtracking choices it is "
                     "making during dependency resolution.") == 1
    assert _slot("what does 'ERROR: Could not find a version that satisfies the requirement' mean").kind == "value"


def test_what_x_gives_or_lets_is_asked_of_x() -> None:
    assert _slot("what 3rd party package gives pip the ability to use the OS certificate store").head == "package"
    assert _slot("what library lets pip use the system store").head == "library"


def test_the_thing_that_does_it_says_the_doing() -> None:
    from stigmergy.answer.otherwise import agents

    got = agents(question_terms("why did one customer's reconnect slow down polling for everybody"))
    assert got["poll"] == (frozenset({"poller"}),)
    assert agents(question_terms("what does the poller do"))["poller"] == (frozenset({"poll"}),)
    assert "norrland" not in agents(question_terms("when did Norrland renew"))  # a name is itself


def test_what_came_before_an_event_is_not_the_event() -> None:
    q = "what did grace nakamura do before she joined"
    assert _fills(q, "Grace spent six years running infrastructure for a payments company in Porto.") == 1
    assert _fills(q, "Please welcome Grace Nakamura, who joined us last week as SRE lead.") < 1
    assert _fills("what did grace do when she joined", "Grace joined us last week as SRE lead.") == 1


def test_a_caption_that_names_a_file_is_still_a_caption() -> None:
    from stigmergy.answer.lead_in import example_after

    def line(text: str, at: int) -> Line:
        return _source_line(text, at, ("Examples",), "pip lock")

    command = line("python -m pip lock -e .", 44)
    assert example_after(line("Emit a ``pylock.toml`` for the the project in the current directory", 38),
                         (command,)) == command
    assert example_after(line("Run ``pip lock -e .`` in the project directory", 38), (command,)) is None


def test_what_a_thing_is_held_for_is_why_it_waits() -> None:
    q = "how come the harbor blog post came out a couple weeks after launch"
    line = ("[08:45] Priya Raghunathan: release notes are up. blog post is with marketing, they want to hold it for a "
            "couple of weeks and bundle it with the Orbis case study.")
    assert _fills(q, line) == 1
    assert _fills(q, "[08:45] Priya Raghunathan: release notes are up. blog post is with marketing.") < 1


def test_a_links_reference_definition_states_nothing() -> None:
    from stigmergy.answer.units import statement

    assert not statement("[pypa/get-pip]: https://github.com/pypa/get-pip")
    assert statement("Download the script, from <https://bootstrap.pypa.io/get-pip.py>.")


def test_a_script_is_named_by_the_word_typed_for_it() -> None:
    from tests.test_answer_claims import _words

    got, _ = _words("where do i download get-pip from", "Download the script, from <https://bootstrap.pypa.io/get-pip.py>.")
    assert got == 1.0
    got, _ = _words("where do i download get-pip from", "Download the installer from the releases page.")
    assert got < 1.0


def test_a_sample_of_a_report_answers_only_a_question_about_the_report() -> None:
    line = '"metadata_version": "2.1", "name": "pip", "version": "22.2.dev0", "summary": "The PyPA recommended tool"'
    assert _fills("do I need the actual git program installed to pip install git+https urls", line) == 0
    assert _fills("which fields does the pip inspect json report have", line) > 0


def test_machine_wide_is_what_a_configuration_calls_global() -> None:
    assert "global" in _stems("machine-wide pip.ini on a windows server box - which folder does it go in")


def test_a_pasted_message_is_four_words_in_closed_quotes() -> None:
    from stigmergy.answer.what_forms import pasted

    got = pasted("pip prints 'INFO: pip is looking at multiple versions' - what's going on")
    assert got is not None and got.group(1) == "INFO: pip is looking at multiple versions"
    assert pasted("what does 'dwell time' mean") is None  # a term, not a message
    assert pasted("'" + "word " * 190) is None  # never closed: no message (and read in one scan)
