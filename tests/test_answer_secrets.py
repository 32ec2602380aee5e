"""Issue #19: a question that asks for a secret's value ("what's the wi-fi password") is refused, with the lines
that say where the secret is kept listed as the nearest: capture refuses a page that holds a secret, so no line
can hold the value asked for (sentences written for these tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.answer.question import slot
from stigmergy.answer.service import ask
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher
from tests.test_answer_slots import _fills


def test_a_secrets_value_is_its_own_slot() -> None:
    for q in ("what's the wi-fi password in the lisbon office?", "whats the wifi password at the lisbon office",
              "what is the admin password for the router", "what is the API key for staging"):
        assert slot(q).kind == "secret", q
    # What is said about a secret is no secret: where it is kept, its policy, its length.
    assert slot("where is the wifi password kept?").kind == "place"
    assert slot("what is the password policy?").kind != "secret"
    assert slot("what is the pin code length?").kind == "quantity"
    assert _fills("what's the wi-fi password?", "Wi-Fi: LanternfishStaff (password in 1Password).") == 0.0


def test_ask_refuses_a_secret_and_lists_where_it_is_kept(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    b.source("Lisbon office", "# Lisbon office\n\nWi-Fi: network LanternfishStaff, password in 1Password.\n",
             occurred_at="2026-05-01", key="office")
    for i, text in enumerate(("The Leeds office opened in March.", "Payroll runs on the last working day.")):
        b.source(f"Note {i}", text + "\n", occurred_at="2026-05-01", key=f"n{i}")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        settings = replace(b.settings, answer=replace(b.settings.answer, threshold=0.0))  # any line would do
        out = ask(b.root, settings, "someone@example.com", "what's the wi-fi password in the lisbon office?",
                  searcher=s, evidence=True)
    finally:
        s.close()
    assert not out["answered"]
    assert out["parts"][0]["asks"] == "secret"
    assert any("1Password" in n["text"] for n in out["nearest_lines"])
