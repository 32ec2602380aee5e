"""The small words a question is parsed by: its question words, the auxiliaries that open a yes-or-no question, the
words that may be its verb, and the prepositions and determiners that end a noun (question.py, head_noun.py and
asked_post.py read the same lists)."""

from __future__ import annotations

WH = ("who", "whom", "whose", "what", "when", "where", "which", "why", "how")
AUX = ("is", "are", "was", "were", "does", "do", "did", "can", "could", "will", "would", "should", "has", "have",
       "had", "must", "may", "might", "shall")
VERBISH = frozenset(AUX) | frozenset(
    "did does do has have had will would can could should shall may might must am 's got gets get goes went "
    "came comes made makes took takes led leads ran runs gives gave lets allows enables provides handles".split())
PREPOSITIONS = frozenset("of in for to on at from with by that who which about into over under than as before after "
                         "during without within between".split())
DETERMINERS = frozenset("the a an our my your their his her its this that these those".split())
# Words that open a frame, not a topic, before a colon or a dash ("on a linux box: …", "when hacking on pip - …")
FRAME_OPENERS = ("on", "in", "at", "for", "with", "from", "under", "during", "inside", "within", "using", "via", "by",
                 "when", "if", "after", "before", "while", "once")

# The verbs that pass a question on ("pharma prospect asking: …", "customer wants to know whether …"): who asks is no
# part of what is asked (question.py reads the question after them, terms.py weighs their words half).
ASKING_VERBS = ("asking", "asked", "asks", "wants to know", "want to know", "wanted to know", "wondering", "wonders",
                "wondered", "checking")
# How fast something goes, asked after "how" ("how quick does the shipment list load", "how snappy is it"): a time
# answers (wh_slots.how_slot), and the word is the slot, not a word the line must say (terms.HOW_WORDS)
SPEED_WORDS = frozenset("late early soon quick quickly snappy speedy zippy slow laggy sluggish responsive".split())
