"""What a question asks for, and whether a line fills it: parts, slots, names and aliases (no index)."""

from __future__ import annotations

from stigmergy.answer.names import Entity, Names
from stigmergy.answer.question import parts, slot
from stigmergy.answer.slots import fill
from stigmergy.answer.values import asked
from stigmergy.index.store import NameRow


class _Rows:
    def __init__(self, rows: list[NameRow]) -> None:
        self.rows = rows

    def name_rows(self, layers: tuple[str, ...]) -> list[NameRow]:
        return self.rows


def _names() -> Names:
    from stigmergy.answer.names import load

    return load(_Rows([
        NameRow("tomasz wieczorek", 1, "Tomasz Wieczorek", "person"), NameRow("tomek", 1, "Tomasz Wieczorek", "person"),
        NameRow("ines carvalho", 2, "Ines Carvalho", "person"), NameRow("inês carvalho", 2, "Ines Carvalho", "person"),
        NameRow("ines", 2, "Ines Carvalho", "person"), NameRow("daniel ferreira", 3, "Daniel Ferreira", "person"),
        NameRow("lodestar", 4, "Project Lodestar", "project"), NameRow("project lodestar", 4, "Project Lodestar", "project"),
        NameRow("lisbon", 5, "Lisbon", "place"), NameRow("greywater ventures", 6, "Greywater Ventures", "organisation"),
        NameRow("harbor api", 7, "Harbor API", "product"),
        # A first name two people share names neither of them.
        NameRow("sam", 8, "Sam One", "person"), NameRow("sam", 9, "Sam Two", "person"),
    ]), ("public",))


def _fills(question: str, line: str, context: str = "", names: Names | None = None) -> float:
    names = names or _names()
    [part] = parts(question)
    return fill(part.slot, line, context, names, asked(part.text, names))[0]


def test_slots_of_questions_people_ask() -> None:
    kinds = {q: slot(q).kind for q in (
        "Who took over as Harbor API lead after Ines moved?", "when is the next board meeting?",
        "During the April backlog, how late did readings arrive at worst?", "Where is the offsite?",
        "Why was ColdTrace renamed?", "Which project was Tomek the sponsor of?", "What is an excursion budget?",
        "what does Lodestar do?", "How do I install from a local directory?", "Does pip cache wheels?",
        "What is the default rate limit per key?", "What was our headcount at the end of June?",
        "Which Beacon G2 component has the 16-week lead time?")}
    assert list(kinds.values()) == ["person", "date", "quantity", "place", "reason", "project", "definition",
                                    "definition", "procedure", "yesno", "quantity", "quantity", "thing"]
    assert slot("how late did readings arrive").unit == "time"
    assert slot("How much is the Enterprise contract worth per year?").unit == "money"


def test_two_part_questions_split_and_carry_their_subject() -> None:
    got = parts("How large was the Series A and who led it?")
    assert [(p.text, p.slot.kind) for p in got] == [("How large was the Series A", "quantity"),
                                                     ("who led the Series A", "person")]
    assert [p.slot.kind for p in parts("When and where is the leadership offsite?")] == ["date", "place"]
    assert len(parts("Who is the sponsor of Driftwood and Lodestar?")) == 1  # "and" inside one question


def test_topic_is_not_an_answer() -> None:
    # Each line is about the question and holds no value of the asked kind.
    assert _fills("Which Beacon G2 component has the 16-week lead time?",
                  "Beacon G2 supply: one component has a 16-week lead time.") == 0
    assert _fills("Who took over as Harbor API lead after Ines moved?", "Inês moved to Lodestar in July.") == 0
    assert _fills("Which project was Tomek the sponsor of?", "Tomasz Wieczorek is the sponsor.") == 0
    assert _fills("When was the offsite planned?", "The offsite was planned by Daniel Ferreira.") == 0
    assert _fills("How many customers were affected?", "Customers were affected in Q2 2026.") == 0


def test_a_line_fills_the_slot_with_a_new_value() -> None:
    assert _fills("Who took over as Harbor API lead after Ines moved?",
                  "Daniel Ferreira took over as Harbor API lead.") == 1.0
    assert _fills("Which component has the 16-week lead time?", "The LTE modem component has a 16-week lead time.") == 1.0
    assert _fills("how late did readings arrive at worst?", "Readings were delayed by up to 3 hours 12 minutes.") == 1.0
    assert _fills("when is the next board meeting?", "The next meeting is on 10 December.") == 1.0
    assert _fills("Where is the Lisbon office moving to?", "The office moves to Rua do Alecrim 12 in May.") == 1.0
    assert _fills("Why was ColdTrace renamed?", "It was renamed because the name collided with a trademark.") == 1.0
    # The value may sit in the line's context (the page title): filled, a little less surely.
    assert 0 < _fills("Which project was Tomek the sponsor of?", "Tomasz Wieczorek is the sponsor.",
                      "Project Lodestar kickoff") < 1.0


def test_a_value_the_question_already_holds_fills_nothing() -> None:
    assert _fills("What happened on 22 April?", "On 22 April the poller fell behind.") == 1.0  # a value: words
    assert _fills("When did the poller fall behind on 22 April?", "On 22 April the poller fell behind.") == 0
    assert _fills("How many gateways in Q2 2026?", "Gateways — Q2 2026") == 0
    assert _fills("Who ran the retro with Tomek?", "Tomasz Wieczorek ran it.") == 0  # the same person, by another name
    # "who is X" asks who X is: X's other name and post answer it (twenty-fourth pass, tests/test_answer_asides.py)
    assert _fills("Who is Tomek?", "Tomasz Wieczorek is the CTO.") == 1.0


def test_aliases_and_accents_name_the_same_entity() -> None:
    names = _names()
    assert names.entity("Tomek") == names.entity("Tomasz Wieczorek")
    assert names.entity("Inês") == names.entity("Ines")
    assert names.entity("Sam") is None  # shared by two people: says neither
    assert [e.title for e in names.entities("Inês and Tomek met in Lisbon")] == ["Ines Carvalho", "Tomasz Wieczorek",
                                                                                 "Lisbon"]
    assert isinstance(names.by_name["tomek"], Entity)


def test_a_plan_answers_a_question_about_what_happened_only_weakly() -> None:
    actual = _fills("What was revenue in Q2 2026?", "Revenue — Q2 2026: £2.36M")
    planned = _fills("What was revenue in Q2 2026?", "Expect revenue of about £2.3M at the end of Q2 2026.")
    assert actual == 1.0 and 0 < planned < actual
    assert _fills("What revenue did the plan expect for Q2 2026?", "Expect revenue of about £2.3M in Q2 2026.") == 1.0


def test_a_role_asked_for_must_be_the_role_the_line_gives() -> None:
    # "Who is the head of marketing": a line naming the CEO names someone, not the head of marketing.
    assert slot("Who is the head of marketing at Lanternfish Labs?").subject == "head of marketing"
    assert slot("who was the leeds backup for on-call on launch day?").subject == "leeds backup"
    assert slot("Who led the Series A?").subject == "" and slot("Who is Tomek?").subject == ""
    assert _fills("Who is the head of marketing at Lanternfish Labs?", "Daniel Ferreira, CEO, Lanternfish Labs.") == 0
    assert _fills("Who is the head of marketing?", "Daniel Ferreira runs marketing from Leeds.") == 1.0
    assert _fills("who is the quality director at Pellucid?", "Ines Carvalho, Quality Director at Pellucid.") == 1.0
    # The role's words may sit in the line's context (a heading "Quality director").
    names = _names()
    [part] = parts("who is the quality director?")
    assert fill(part.slot, "Ines Carvalho.", "Quality director", names, asked(part.text, names))[0] > 0


def test_how_many_x_counts_x() -> None:
    assert slot("how many SMS alerts were held up?").head == "alerts"
    assert slot("how many people on the team need to agree?").head == "people"
    assert slot("How many months of runway do we have?").unit == "time"
    # A duration counts no alerts; a count of something else counts only weakly.
    assert _fills("how many SMS alerts were held up in August?", "Alerts were delayed by up to 47 minutes.") == 0
    assert _fills("How many employees does Orbis Freight have?",
                  "31 customers use the beta, including Orbis Freight.") < 1.0
    assert _fills("How many staff did we have at the end of Q2?", "Headcount was 56 at the end of Q2.") == 1.0
    assert _fills("how many verbosity levels does pip have?", "pip has seven verbosity levels.") == 1.0


def test_what_is_the_day_asks_for_a_date() -> None:
    assert slot("what's the first working day at the new lisbon address?").kind == "date"
    assert slot("What is the deadline for the certificate?").kind == "date"
    assert slot("What is the monthly rent?").kind == "quantity"
    assert _fills("what's the first working day at the new address?", "From Monday 19 October we work from Rua do "
                  "Alecrim 38.") == 1.0


def test_a_partner_is_a_person_named_before_the_role() -> None:
    assert slot("which Greywater partner sits on our board?").kind == "person"
    assert _fills("which Greywater partner sits on our board?",
                  "Marcus Hale — partner at Greywater Ventures, board member.") == 1.0


def test_how_did_a_thing_behave_is_not_a_procedure() -> None:
    assert slot("how did the new streaming path cope with the april burst?").kind == "value"
    assert slot("How do I install from a local directory?").kind == "procedure"
    assert slot("how does one pin a version?").kind == "procedure"


def test_a_which_x_line_that_speaks_of_x_without_naming_it_takes_no_name_from_its_title() -> None:
    names = _names()
    [part] = parts("which SMS provider went down on 19 August?")
    q = asked(part.text, names)
    # The title names an organisation; the line speaks of "our fallback provider" and names none.
    assert fill(part.slot, "Our fallback provider had been disabled since the rename.", "Greywater Ventures letter",
                names, q)[0] == 0
    # An acronym before the noun says what kind of provider, not which one.
    [part] = parts("which network provider caused the april outage?")
    assert fill(part.slot, "The SMS provider confirms a regional outage.", "", names, asked(part.text, names))[0] < 1.0


class _SameVectors:
    """Every line as close in meaning to the question as can be: only the words decide."""

    def vectors(self, texts: list[str]):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.ones((len(texts), 4), dtype=np.float32)


def test_a_figure_is_on_topic_by_the_questions_words_not_by_meaning_alone() -> None:
    import numpy as np

    from stigmergy.answer.evidence import Cite, Line
    from stigmergy.answer.select import score_part
    from stigmergy.answer.terms import question_terms

    def line(text: str, n: int) -> Line:
        return Line("sources/g2.md", "Beacon G2 installation guide", "source", "public", n, text, text, (),
                    (Cite("sources/g2.md", n, n, text),), 1)

    names = _names()
    [part] = parts("how much does a Beacon G2 weigh?")
    terms = question_terms(part.text)
    got = score_part((line("Version 1.0, 20 May 2026.", 3), line("The Beacon G2 weighs 1.2 kg.", 5)), part, terms,
                     names, asked(part.text, names), _SameVectors(), np.ones(4, dtype=np.float32))
    eligible = {s.line.text: s.eligible for s in got}
    assert eligible == {"Version 1.0, 20 May 2026.": False, "The Beacon G2 weighs 1.2 kg.": True}
    # So is the statement a yes or no rests on.
    [part] = parts("does the Beacon G2 keep running on battery?")
    got = score_part((line("Version 1.0, 20 May 2026.", 3), line("It keeps running on battery for 72 hours.", 5)),
                     part, question_terms(part.text), names, asked(part.text, names), _SameVectors(),
                     np.ones(4, dtype=np.float32))
    assert {s.line.text: s.eligible for s in got} == {"Version 1.0, 20 May 2026.": False,
                                                      "It keeps running on battery for 72 hours.": True}
    # A question that is not about a figure stays on topic by meaning.
    [part] = parts("what does the installation guide cover?")
    got = score_part((line("Mounting, wiring and first start.", 3),), part, question_terms(part.text), names,
                     asked(part.text, names), _SameVectors(), np.ones(4, dtype=np.float32))
    assert got[0].on_topic


def test_a_section_title_the_answer_leans_on_is_cited(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stigmergy.answer.compose import _source_head

    rel = "sources/2026/12/cap_01M8TP0R8T0WQQG5ANS9P0HVJD.md"
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text("---\nid: x\n---\n# User guide\n\nChanges in 20.3 (2020)\n======================\n\n"
                                "The legacy resolver will be removed.\n")
    got = _source_head(tmp_path, ("public",), rel, "", "Changes in 20.3 (2020)", 9)
    assert [(c.start, c.text) for c in got] == [(6, "Changes in 20.3 (2020)"), (4, "# User guide")]
    # A heading below the line, or one the page does not have, is not cited.
    assert [c.start for c in _source_head(tmp_path, ("public",), rel, "", "Changes in 20.3 (2020)", 5)] == [4]
    assert [c.start for c in _source_head(tmp_path, ("public",), rel, "", "Nowhere", 9)] == [4]


class _CountingVectors(_SameVectors):
    def __init__(self) -> None:
        self.asked: list[str] = []

    def vectors(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.asked.extend(texts)
        return super().vectors(texts)


def test_only_lines_that_fill_the_slot_are_embedded() -> None:
    import numpy as np

    from stigmergy.answer.evidence import Cite, Line
    from stigmergy.answer.select import score_part
    from stigmergy.answer.terms import question_terms

    def line(text: str, n: int) -> Line:
        return Line("sources/b.md", "Board", "source", "public", n, text, text, (), (Cite("sources/b.md", n, n, text),), 1)

    names = _names()
    [part] = parts("when is the next board meeting?")
    seen = _CountingVectors()
    got = score_part((line("The board meets on 10 December.", 3), line("The board asked for options.", 5)), part,
                     question_terms(part.text), names, asked(part.text, names), seen, np.ones(4, dtype=np.float32))
    assert [t.split(": ", 1)[1] for t in seen.asked] == ["The board meets on 10 December."]
    assert [s.line.text for s in got if s.eligible] == ["The board meets on 10 December."]
