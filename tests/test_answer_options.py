"""Issue #19, eighteenth pass: an option the question describes in words is how a thing is done ("in zsh":
`--zsh`), while an option the question spells is no answer to it (no index)."""

from __future__ import annotations

from stigmergy.answer.names import Names, load
from stigmergy.answer.question import parts
from stigmergy.answer.slots import fill
from stigmergy.answer.values import asked


class _NoNames:
    def name_rows(self, layers: tuple[str, ...]) -> list:  # type: ignore[type-arg]
        return []


def _fills(question: str, line: str) -> float:
    names: Names = load(_NoNames(), ("public",))
    [part] = parts(question)
    assert part.slot.kind == "procedure", part.slot
    return fill(part.slot, line, "", names, asked(part.text, names))[0]


def test_an_option_the_question_names_in_words_fills_how_to() -> None:
    assert _fills("how do i turn on tab completion for pip in zsh", "python -m pip completion --zsh >> ~/.zprofile") == 1.0
    assert _fills("how do I install a package for my user only?", "pip install --user SomePackage") == 1.0


def test_an_option_the_question_spells_does_not() -> None:
    # The line repeats what was asked and adds no way of doing it: only weakly a procedure, as before.
    assert _fills("how do I use --zsh with pip completion?", "pip completion --zsh prints a script") < 1.0
    # A line that names no option nor command stays as weak as it was.
    assert _fills("how do i turn on tab completion for pip in zsh", "Pip comes with support for completion in zsh.") < 1.0
