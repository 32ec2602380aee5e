"""`bench/four_sets.py --oracle`: R@1 / R@5 if the best ordering were chosen per question after seeing the
answer (docs/index.md, issue 20, thirteenth look), counted from each question's fused rank and arm ranks."""

from __future__ import annotations

from conftest import load_bench


def test_oracle_takes_each_questions_best_ordering() -> None:
    rows = [
        {"rank": 1, "answer_arms": {"lexical": 2, "vector": 3, "literal": None}},  # fusion alone puts it first
        {"rank": 3, "answer_arms": {"lexical": 1, "vector": 9}},  # the lexical arm had it first
        {"rank": 7, "answer_arms": {"lexical": 12, "vector": 8, "entity": 1}},  # only the entity arm had it first
        {"rank": None, "answer_arms": None},  # nowhere in the first 50
    ]
    o = load_bench("four_sets").oracle(rows)
    assert (o["fused_r1"], o["fused_r5"]) == (0.25, 0.5)
    assert (o["text_r1"], o["text_r5"]) == (0.5, 0.5)
    assert (o["any_r1"], o["any_r5"]) == (0.75, 0.75)
    assert o["fused_first_no_arm_first"] == 1
