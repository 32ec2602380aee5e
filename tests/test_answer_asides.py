"""Issue #19, twenty-fourth pass: what the asker says around the question ("eating like 3gb", "by 3 aug", "during
the 22 apr mess", "people keep saying reefer in standup, what is it?") read as the asker means it, and lines that
only look like answers (a roster for "what", a command for "yes or no", flags spoken of for "which flag", another
level's rule for "sev-3") kept from answering (no index; sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace

from stigmergy.answer import files
from stigmergy.answer.asides import claimed
from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Entity, Names, roster
from stigmergy.answer.question import Slot, parts, slot
from stigmergy.answer.select import score_part, word_score
from stigmergy.answer.slots import WEAK, fill, kind_fill
from stigmergy.answer.terms import question_terms
from stigmergy.answer.values import asked, dates_in, day_months, question_days
from stigmergy.answer.which import thing_fill


def _line(text: str, *, title: str = "Notes", before: str = "", n: int = 5, date: str = "",
          page: str = "sources/2026/01/x.md") -> Line:
    return Line(page, title, "source", "public", n, text, text, (), (), 1, before, date=date)


def _claims(q: str, kind: str, absent: bool = True) -> dict[str, str]:
    terms = [replace(t, absent=absent and t.figure) for t in question_terms(q)]
    return {t.word: t.claim for t in claimed(terms, q, kind) if t.figure}


def test_a_figure_the_asker_makes_up_is_an_example_not_a_constraint() -> None:
    # a measure typed with its unit, a number after "issue" or "PR", a value after "like": the asker's own, which no
    # page says, so no line is required to say it
    assert _claims("theres an http folder eating like 3gb, do current pip versions still use it", "value")["3gb"] == "example"
    assert _claims("why is a full 40-char commit sha better than a short one", "reason")["40-char"] == "example"
    assert _claims("made a PR fixing a bug for issue 4521, what do i name the news fragment", "value")["4521"] == "example"
    assert _claims("in a version number like 24.3, what does the bit after the dot mean", "definition",
                   absent=False)["24.3"] == "example"
    # what the question is about stays a constraint: a period, a year, a name with a digit, a count a page says
    assert _claims("what was revenue in Q4 2027", "quantity")["Q4 2027"] == ""
    assert _claims("how many G2 units were in the order of 500", "quantity") == {"G2": "", "500": ""}
    assert _claims("how big is the 3gb cache limit", "quantity", absent=False)["3gb"] == ""  # a page says it
    assert _claims("what happens on the 22nd of april", "value")["22nd"] == ""  # a day is no measure


def test_the_date_that_was_expected_is_the_one_the_answer_may_correct() -> None:
    q = "sam was expecting the G2 stock in leeds by 3 aug - when did it actually turn up?"
    got = _claims(q, "date", absent=False)
    assert got == {"G2": "", "3": "check"}
    assert _claims("when did the stock arrive after 3 aug", "date", absent=False)["3"] == ""  # no expectation
    # the question's date, however its month is typed, is no new date
    a = asked(q, Names())
    assert dates_in("Samuel expects G2 stock in Leeds by 3 August.", a) == []
    assert dates_in("Beacon G2 units arrived in Leeds on 5 August, two days late.", a) == ["5 August"]
    assert day_months("by aug 3rd, or the 15th of sept. or 2026-05-01") == {(3, 7), (15, 8)}
    assert day_months("5 days in may 2026") == set()


def test_a_day_the_question_names_is_held_by_the_page_that_opens_with_it() -> None:
    q = "during the 22 apr mess how often were customers getting status updates from hannah"
    [part] = parts(q)
    terms = question_terms(q)
    assert question_days(q, terms) == {"22": (22, 3)}
    page = "wiki/notes/Postmortem.md"
    opening = _line("From 07:41 to 10:53 UTC on 22 April, readings reached Tidemark late.", page=page, n=24)
    updates = _line("Hannah's customer updates every 30 minutes were praised by Norrland Fresh.", page=page, n=29)
    other = _line("Hannah's customer updates every hour were praised in the March outage.", page="wiki/notes/March.md")
    got = [s.line.line for s in score_part((opening, updates, other), part, terms, Names(), asked(q, Names()), None, None)]
    assert 29 in got and 5 not in got  # the March page never names the day
    # a line said on that day holds it too; one said on another day does not
    assert word_score(_line("Updates went out every 30 minutes.", date="2026-04-22"), terms, {},
                      days={"22": (22, 3)})[2]
    assert not word_score(_line("Updates went out every 30 minutes.", date="2026-04-24"), terms, {},
                          days={"22": (22, 3)})[2]


def test_another_numbered_level_in_a_line_is_not_the_one_asked() -> None:
    q = "how fast do we have to notify customers about a sev-3?"
    terms = question_terms(q)
    before = "Incidents are classified SEV-1 to SEV-3."
    others = _line("Customers affected by a SEV-1 or SEV-2 incident are informed within one hour.", before=before)
    assert not word_score(others, terms, {})[2]
    assert word_score(_line("A SEV-3 incident is reported in the weekly digest.", before=before), terms, {})[2]
    assert word_score(_line("Customers are informed within a day.", before=before), terms, {})[2]  # no other level


def test_a_pronoun_asked_to_be_defined_is_a_word_said_before_the_question() -> None:
    q = "people keep saying reefer in standup, what is it?"
    [part] = parts(q)
    # the term heard is what the pronoun asks about (the thirty-ninth session reads it as the subject)
    assert part.slot == Slot("definition", subject="reefer") and part.text == "what is reefer"
    defined = _line("Reefer — a refrigerated truck, trailer or container.", n=22)
    chatter = _line("New joiners keep asking what we mean by the words people use in standups.", n=26)
    got = score_part((chatter, defined), part, question_terms(q), Names(), asked(q, Names()), None, None)
    assert [s.line.line for s in got if s.eligible][0] == 22 and got[0].words == 1.0
    # a named subject is defined by its own words, as before
    [named] = parts("what is a reefer?")
    scored = score_part((chatter, defined), named, question_terms("what is a reefer?"), Names(),
                        asked("what is a reefer?", Names()), None, None)
    assert [s.line.line for s in scored if s.eligible] == [22]


def test_the_question_is_what_follows_a_clause_of_circumstance() -> None:
    assert slot("pip list grows an extra column when i have editable installs, what's that column called").kind == "thing"
    assert slot("when the poller went down, who was on call?").kind == "person"
    assert slot("when did the poller go down?").kind == "date"
    assert slot("getting permission denied when i run pip freeze, what can i try").kind == "procedure"
    assert slot("what should we do about the backlog").kind == "procedure"
    assert slot("what can i say").kind == "value"
    assert slot("by how much does their ARR grow").kind == "quantity" and slot("by how much does it grow").unit == ""


def test_a_second_part_by_how_much_is_split_and_a_topic_before_a_colon_is_its_subject() -> None:
    got = parts("norrland after the Q3 review: how many gateways are they running now and by how much does their ARR "
                "grow with the renewal?")
    assert [p.slot.kind for p in got] == ["quantity", "quantity"]
    assert got[1].text.startswith("by how much does norrland after the Q3 review ARR grow")
    # a bare second part asks about the first part's predicate, the topic left out
    bare = parts("norrland after the Q3 review: who ran the retro, and in which office?")
    assert bare[1].text == "in which office ran the retro"


def test_the_number_asked_for_is_any_figure_about_what_the_question_names() -> None:
    q = "q2 revenue - the first version of the report had a higher figure, what's the number that stood after the close?"
    [part] = parts(q)
    assert part.slot.head == "number"
    assert fill(part.slot, "| Revenue | £2.36M | £1.88M |", "", Names(), asked(q, Names()))[0] == 1.0
    phone = "what's the phone number of the leeds office"
    assert fill(slot(phone), "Leeds has room for 40 people.", "", Names(), asked(phone, Names()))[0] == 0.0


def test_a_file_named_anywhere_on_a_page_read_in_pieces() -> None:
    pages = [{"path": "configuration.md", "title": "Configuration", "content": "Files are named pip.conf on Unix."},
             {"path": "configuration.md", "title": "Configuration", "content": "To set a timeout when running the "
              "pip freeze command only, give it its own section."},
             {"path": "freeze.md", "title": "pip freeze", "content": "Output installed packages."}]
    asked_files = files.named("can i give `pip freeze` a shorter timeout than every other command in pip.conf?")
    assert asked_files == {"pip freeze", "pip.conf"}
    assert files.pages_naming(asked_files, pages) == {"configuration.md"}


def test_lines_that_only_look_like_answers_fill_nothing() -> None:
    q = asked("what did olly get landed with after the lodestar retro", Names())
    assert roster("Priya Raghunathan, Inês Carvalho, Daniel Ferreira, Oliver Brandt, Grace Nakamura.")
    assert roster("People: Aoife Brennan, Daniel Ferreira, Grace Nakamura")
    assert not roster("Three names reached the council: Tidemark, Meridian and Keel.")
    assert kind_fill(Slot("value"), "Priya Raghunathan, Daniel Ferreira, Oliver Brandt.", Names(), q) == 0.0
    assert kind_fill(Slot("value"), "Oliver Brandt: newsletter process change, by 14 October.", Names(), q) == 1.0
    # a command to type says neither yes nor no
    yes = asked("is the standalone pip.pyz zipapp ok to use on prod servers?", Names())
    assert kind_fill(Slot("yesno"), "$ python pip.pyz --help", Names(), yes) == 0.0
    assert kind_fill(Slot("yesno"), "The zip application should not be used in production.", Names(), yes) == 1.0
    # which flag: a line that spells one, not one that speaks of flags
    flag = asked("debian says externally-managed-environment, which pip flag overrides that", Names())
    assert thing_fill("flag", "Allowing the user to override the default behaviour (using flags)", Names(), flag) == 0.0
    assert thing_fill("flag", "Pass --break-system-packages to override it.", Names(), flag) == 1.0
    # "German-language" is the question's "german" again, no name of a customer
    org = asked("which danish customer did sales promise a german report to?", Names())
    assert kind_fill(Slot("org", head="customer"), "Sales promised the Danish customer a German-language report.",
                     Names(), org) == 0.0
    assert kind_fill(Slot("org", head="customer"), "Sales promised Jutland Cold a German-language report.",
                     Names(), org) == WEAK


def test_who_is_a_person_typed_in_lower_case_asks_who_they_are() -> None:
    tomek = Entity(7, "Tomasz Wieczorek", "person", frozenset({"tomasz wieczorek", "tomek"}))
    names = Names({"tomasz wieczorek": tomek, "tomek": tomek})
    for q in ("who is tomek?", "who is tomek exactly - full name"):
        [part] = parts(q)
        got = asked(q, names)
        assert fill(part.slot, "Tomasz Wieczorek, CTO and co-founder, also known as Tomek.", "", names, got)[0] == 1.0
        assert fill(part.slot, "Tomek joined the call late.", "", names, got)[0] == 0.0  # says who, not who he is
    # a post asked about is still a post
    post = "who is the head of marketing"
    assert slot(post).subject == "head of marketing"


def test_contractions_typed_without_their_apostrophe_and_the_hedge_like_are_no_terms() -> None:
    got = {t.word for t in question_terms("how do i get into the lisbon office if im there late, like after 8pm")}
    assert "im" not in got and "like" not in got and {"lisbon", "office", "late", "8pm"} <= got
    assert "theres" not in {t.word for t in question_terms("theres an old http folder, does pip still use it")}


def test_a_recommendation_says_what_is_proposed_not_what_is() -> None:
    q = "what library is the dependency resolver built on"
    [part] = parts(q)

    def eligible(text: str, heading: str, question: str = q) -> bool:
        line = Line("sources/2026/01/ux.md", "UX research", "source", "public", 7, text, text, (heading,), (), 1)
        [p] = parts(question)
        return any(s.eligible for s in score_part((line,), p, question_terms(question), Names(),
                                                  asked(question, Names()), None, None))

    proposal = "Create a dependency resolver library called `solvelib` so the resolver is built on it."
    assert not eligible(proposal, "Recommendations")
    assert eligible(proposal, "Results")  # the same words outside a proposals section
    assert eligible("The resolver is built on a library called `resolvelib`.", "Recommendations")  # a fact there
    assert eligible(proposal, "Recommendations", "what library did the researchers recommend for the resolver")
    assert part.slot.head == "library"


def test_a_release_number_is_no_name_of_a_thing() -> None:
    q = asked("what library is pip's new dependency resolver actually built on", Names())
    assert thing_fill("library", "Pip 20.3 has a new dependency resolver.", Names(), q) == 0.0
    assert thing_fill("library", "The resolver itself is based on a separate package, `resolvelib`.", Names(), q) == 1.0


def test_a_sentence_whose_subject_is_this_leans_on_the_one_before() -> None:
    from stigmergy.answer.compose import leans_back

    assert leans_back("This implements an abstract backtracking resolution algorithm, independent of Python packages.")
    assert leans_back("That uses the wheel cache.")
    assert not leans_back("This section describes the resolver in detail for contributors who work on it.")


def test_a_prompts_choice_picked_by_its_letter_is_said_by_its_label() -> None:
    from stigmergy.answer.select import word_score

    def labels(q: str) -> list[str]:
        return [t.word for t in question_terms(q) if t.word.startswith("(")]

    assert labels("pip asks about a path that already exists - what happens if i pick (b)?") == ["(b)"]
    assert labels("what does picking b actually do") == ["(b)"]
    assert labels("what happens if i answer w when pip asks") == ["(w)"]
    assert labels("what if i type a name") == [] and labels("which letter do i pick") == []
    q = "what happens if i answer b when pip asks what to do about a path that already exists"
    terms = question_terms(q)
    backup = _line("*(b)ackup* Rename the file or checkout to {name}{'.bak' * n}.")
    assert word_score(backup, terms, {})[2]
    assert not word_score(_line("This option specifies default behavior when path already exists."), terms, {})[2]


def test_an_env_var_asked_for_is_a_variables_name() -> None:
    for q in ("what env var sets --find-links", "whats the env var name for pointing pip at my own config file",
              "which environment variable sets the cache dir"):
        assert slot(q) == Slot("thing", head="variable"), q
    assert slot("what does the environment look like").kind == "value"
    q = asked("what env var points pip at a config file", Names())
    assert thing_fill("variable", "The environment variable PIP_CONFIG_FILE names a file loaded last.", Names(), q) == 1.0
    assert thing_fill("variable", "User : ~/.config/pip/pip.conf, which respects the environment.", Names(), q) == 0.0
    assert thing_fill("variable", "User : $HOME/.config/pip/pip.conf.", Names(), q) == 1.0
    assert thing_fill("variable", "On Windows the file is in %APPDATA%.", Names(), q) == 1.0


def test_a_year_the_question_names_is_held_by_the_report_that_opens_with_it() -> None:
    q = "how many pip users did the ux researchers actually interview back in 2020"
    [part] = parts(q)
    page = "sources/2026/12/ux.md"

    def at(text: str, n: int, heads: tuple[str, ...] = ()) -> Line:
        return Line(page, "UX Research Results", "source", "public", n, text, text, heads, (), 1)

    opening = at("Over the course of 2020, the pip team worked on improving pip's user experience.", 22)
    interviewed = at("In total, we interviewed 48 pip users, recruited from the user panel.", 50, ("User Interviews",))
    got = [s.line.line for s in score_part((opening, interviewed), part, question_terms(q), Names(), asked(q, Names()),
                                           None, None) if s.eligible]
    assert got == [50]
    # a year said only in a later section is no opening: that section's lines hold it, the rest of the page does not
    later = at("The 2020 survey ran for six weeks.", 40, ("Surveys",))
    scored = score_part((later, interviewed), part, question_terms(q), Names(), asked(q, Names()), None, None)
    assert 50 not in [s.line.line for s in scored]


def test_a_file_is_named_anywhere_on_the_page_file_not_only_in_the_pieces_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "install.md").write_text("# pip install\n\nInstalls in topological order.\n\n"
                                                 "Use -r requirements.txt to install from a file.\n")
    pages = [{"path": "cli/install.md", "title": "pip install", "content": "Installs in topological order."},
             {"path": "cli/other.md", "title": "Other", "content": "Nothing here."}]
    asked_files = files.named("does pip install in the order of my requirements.txt?")
    assert files.pages_naming(asked_files, pages) == frozenset()  # the piece read does not say it
    assert files.pages_naming(asked_files, pages, tmp_path) == {"cli/install.md"}
    # a path outside the tree, or through a link, is not read
    (tmp_path / "link.md").symlink_to(tmp_path / "cli" / "install.md")
    assert files.pages_naming(asked_files, [{"path": "link.md", "title": "", "content": ""},
                                            {"path": "../install.md", "title": "", "content": ""}], tmp_path) == frozenset()


def test_what_the_question_rules_out_does_not_answer() -> None:
    q = "on linux where's my per user pip.conf supposed to live (the new location, not the legacy ~/.pip one)"
    [part] = parts(q)
    legacy = _line("The legacy per-user configuration file is also loaded, if it exists: $HOME/.pip/pip.conf.", n=72)
    user = _line("User: $HOME/.config/pip/pip.conf, which respects the XDG_CONFIG_HOME environment variable.", n=70)
    got = [s.line.line for s in score_part((legacy, user), part, question_terms(q), Names(), asked(q, Names()), None, None)]
    assert got == [70]
    # without the clause, both may answer; "not the default" rules nothing out
    plain = "on linux where's my per user pip.conf supposed to live"
    assert sorted(s.line.line for s in score_part((legacy, user), parts(plain)[0], question_terms(plain), Names(),
                                                  asked(plain, Names()), None, None)) == [70, 72]
    from stigmergy.answer.select import _ruled_out
    assert _ruled_out("why is it not the default") == frozenset()


def test_a_word_made_with_a_prefix_is_said_by_its_head() -> None:
    from stigmergy.answer.saying import prefixed

    q = "linux box - where am i supposed to put my per-user pip config file?"
    terms = question_terms(q)
    assert "am" not in {t.word for t in terms} and "supposed" not in {t.word for t in terms}
    user = _line("User : $HOME/.config/pip/pip.conf, which respects the XDG_CONFIG_HOME environment variable.")
    got = word_score(user, terms, {})
    assert "per-user" in got[3]
    assert prefixed("per-user") == "user" and prefixed("non-root") == "root"
    assert prefixed("eu-west") == "" and prefixed("re-do") == ""  # no prefix, or too short a head


def test_an_old_name_beside_a_figure_does_not_make_the_figure_old() -> None:
    q = asked("roughly how many distributors were on coldtrace when it got its new name?", Names())
    [part] = parts("roughly how many distributors were on coldtrace when it got its new name?")
    named = "The product, formerly known as ColdTrace, is used by about 90 distributors in the UK and Ireland."
    assert fill(part.slot, named, "", Names(), q)[0] == 1.0
    assert fill(part.slot, "Previously 40 distributors used it.", "", Names(), q)[0] == WEAK  # an old figure


def test_the_old_one_is_said_with_the_sentences_that_name_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer.compose import leans_back, sentence
    from stigmergy.answer.evidence import Cite, said_before

    page = "sources/2026/12/caching.md"

    def at(n: int, text: str, before: str = "") -> Line:
        return Line(page, "Caching", "source", "public", n, text, text, ("HTTP caching",),
                    (Cite(page, n, n, text),), 1, before, Cite(page, n - 1, n - 1, before) if before else None)

    new = at(50, "A new cache format is now used, stored in a directory called http-v2.")
    previously = at(51, "Previously this cache was stored in a directory called http.", new.text)
    delete = at(52, "If you have completely switched to newer versions, you may wish to delete the old directory.",
                previously.text)
    lines = (new, previously, delete)
    assert leans_back(delete.text) and not leans_back("Upgrade from the old version first.")
    assert said_before(delete, lines) is previously and said_before(new, lines) is None
    q = asked("is pip still using the http folder in my cache?", Names())
    made = sentence(delete, Slot("yesno"), False, Names(), q, tmp_path, ("public",), False, None,
                    said_before(delete, lines))
    assert made["text"].startswith("A new cache format is now used, stored in a directory called http-v2.")
    assert made["text"].endswith("delete the old directory.")
    assert [c["lines"] for c in made["citations"]] == [[52, 52], [51, 51], [50, 50]]
    # without the sentence before it as a line, only one step back
    one = sentence(delete, Slot("yesno"), False, Names(), q, tmp_path, ("public",), False)
    assert one["text"].startswith("Previously this cache")


def test_plain_english_for_hit_orange_and_quicker() -> None:
    from stigmergy.answer.otherwise import plainly

    q = "how many customers were hit by the big ingestion backlog in april?"
    got = plainly(question_terms(q), q)
    assert any("affect" in form for form in got.get("hit", ()))
    orange = "new beacon is flashing orange, what's wrong with it?"
    assert any("amber" in form for form in plainly(question_terms(orange), orange).get("orang", ()))
    terms = question_terms(q)
    line = _line("41 customers were affected, including Norrland Fresh.")
    from stigmergy.answer.select import alternatives
    [part] = parts(q)
    assert "hit" in word_score(line, terms, alternatives((line,), part, terms, Names()))[3]
