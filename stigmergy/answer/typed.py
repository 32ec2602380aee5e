"""A question as the asker typed it, in the words the rules read: the apostrophes and contractions
("whats", "where's"), chat shorthand ("ppl"), a prompt's bracketed letters ("(b)ackup") and the words that open a
question without asking anything ("so, quick one: …"). question.py reads every question through `clean`."""

from __future__ import annotations

import re

from stigmergy.answer.shorthand import TIME_SHORT, WRITTEN_OUT

# Words that open a question without changing what it asks ("So, …", "Quick one: …", "Do you know when …").
_LEAD_RE = re.compile(
    r"^\s*(?:(?:so|ok|okay|hey|hi|quick question|quick one|question|please|and|but|also|remind me|tell me|"
    r"can you tell me|could you tell me|do you know|does anyone know|i want to know|i'd like to know|"
    r"i wonder|any idea|anyone know|just checking)\b[\s,:;-]*)+", re.I)
_WHATS_MEAN_RE = re.compile(r"\b(what)(?:'s|s| is) ((?!(?:the|a|an) mean\b)(?:[\w'-]+ ){0,3}?[\w'-]+) mean\s*(?=[?.,!]|$)", re.I)
_CONTRACTION_RE = re.compile(r"\b(what|who|where|when|how|which|why|that|it)'s\b|\b(what|where|who)s\b", re.I)
# "why'd we drop it", "how'd they fix it": a question word and "did" (not "would": "what'd you suggest" is rarer)
_DID_RE = re.compile(r"\b(why|how|where|when|who|what)'d\b", re.I)
# Shorthand typed in chat ("how many ppl will fit"): the word every line writes in full (the table is
# shorthand.py's, beside the short forms it credits where a line writes the whole word).
_SHORTHAND_RE = re.compile(r"(?<![\w/-])(" + "|".join(map(re.escape, WRITTEN_OUT)) + r")(?![\w/-])", re.I)
# "(i)gnore, (w)ipe, (b)ackup": a prompt's choices, typed with the letter to press in brackets.
_CHOICE_WORD_RE = re.compile(r"\(([a-z])\)([a-z]{2,})", re.I)


# "q4 '25", "sept '26", "since '24": a year typed with its century cut ("2025"), after a period or a word of time.
_SHORT_YEAR_RE = re.compile(r"(?<![\w'])((?:q[1-4]|h[12]|fy|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|"
                            r"oct\w*|nov\w*|dec\w*|in|since|from|of|until|till|end|early|mid|late)\s*)'(\d\d)(?![\w'.])", re.I)
_ANY_MINOR_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\.[x*](?![\w.])", re.I)
_ONE_ON_ONE_RE = re.compile(r"(?<![\w:.])1(?::|-on-| on )1(?![\w:.])", re.I)
# "the 2yr renewal", "a 3mo pilot", "24hrs": a figure typed glued to its unit's short form, which a line writes apart
# and often in words ("a two-year renewal")
_GLUED_UNIT_RE = re.compile(r"(?<![\w.])(\d{1,3})(" + "|".join(sorted(TIME_SHORT, key=len, reverse=True)) + r")(?![\w'])",
                            re.I)
# "net revenue retention full year 2025, what was it": the figure asked after its topic, past tense (no definition is
# asked in the past: "gdp, what is it?" asks what GDP means)
_TOPIC_FIRST_RE = re.compile(r"^(?!(?:what|who|when|where|which|why|how)\b)([^,?]{3,80}?)\s*(?:,|\s[-—–])\s*what (was|were) "
                             r"(?:it|they|that)\s*\??$", re.I)
_PERCENT_WORD_RE = re.compile(r"(?:(?<=\s)|^)%(?=\s)")
_HOWTO_RE = re.compile(r"\b(how)to\b", re.I)
# "if i dont ask for anything special", "it doesnt say": a negation typed without its apostrophe ("won't" is left
# alone: "wont" is a word of its own)
_NEGATION_TYPED_RE = re.compile(r"\b(do|does|did|is|was|are|were|has|have|had|ca|could|should|would)nt\b", re.I)


def clean(question: str) -> str:
    """The question in the words the rules read: one space between words, contractions spelled out."""
    q = " ".join(question.replace("’", "'").split())
    q = _SHORTHAND_RE.sub(lambda m: WRITTEN_OUT[m.group(1).lower()], q)
    q = _CHOICE_WORD_RE.sub(r"\1\2", q)
    q = _PERCENT_WORD_RE.sub("percent", q)  # "what % of the company": a share asked, the sign typed for the word
    q = _GLUED_UNIT_RE.sub(r"\1 \2", q)
    q = _TOPIC_FIRST_RE.sub(r"what \2 \1", q)
    q = _ANY_MINOR_RE.sub(r"\1", q)  # "on pip 23.x": any release of pip 23
    q = _SHORT_YEAR_RE.sub(lambda m: f"{m.group(1)}{'19' if int(m.group(2)) > 69 else '20'}{m.group(2)}", q)
    q = _ONE_ON_ONE_RE.sub("one-on-one", q)  # "how many folks got interviewed 1:1": a kind of interview, no figure
    # "what's that mean", "whats the O mean": the asker's "what does X mean", not "what is X" with a stray verb
    q = _WHATS_MEAN_RE.sub(lambda m: f"{m.group(1)} does {m.group(2)} mean", q)
    # "where's pip's cache" -> "where is pip's cache"; "whats", typed without its apostrophe, too
    q = _CONTRACTION_RE.sub(lambda m: f"{m.group(1) or m.group(2)} is", q)
    q = _DID_RE.sub(lambda m: f"{m.group(1)} did", q)  # "why'd we drop the name": why did we
    q = _NEGATION_TYPED_RE.sub(lambda m: f"{m.group(1)}n't", q)
    q = _HOWTO_RE.sub(lambda m: f"{m.group(1)} to", q)  # "howto keep a token out of requirements.txt": how to
    return _LEAD_RE.sub("", q).strip() or q
