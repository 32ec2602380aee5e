"""Answers from the wiki, never beyond it: `ask(...)` in `service` is the one entry point.

retrieve (the hybrid search) -> evidence (the hit fragments' lines and what they cite) -> a deterministic
answerer (select and order cited lines) or an LLM answerer (prose) -> the verifier (every figure, date and
name of a sentence must be in the lines it cites) -> a cited answer, or an honest refusal.
"""
