"""The slot a question asks an answer to fill: its kind, the X of "which X", the unit of a figure, the subject of
"what is X" (question.py reads a question into its parts and slots)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    kind: str  # person | org | place | project | product | thing | date | quantity | reason | definition |
    #            alias (another name of `subject`) | role (the post `subject` holds) | procedure | yesno | value |
    #            secret (a password's own value: capture keeps secrets out, so no line holds one)
    head: str = ""  # "which X" / "what X": X
    unit: str = ""  # quantity: time | money | percent | count | "" (any figure); date: day | clock | ""
    subject: str = ""  # definition: the X of "what is X"; a version: the product it is of ("the oldest Python")

    @property
    def named(self) -> bool:
        """The slot wants a name (of a person, organisation, place, project, product or thing)."""
        return self.kind in ("person", "org", "place", "project", "product", "thing")
