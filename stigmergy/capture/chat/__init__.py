"""Chat exports: a Slack export zip (and a Discord channel export) expands into one self-contained chat
page per channel and day (`page.py`), each captured on its own. The page's bytes are its evidence, so
a later export that repeats an unchanged day dedupes to the same capture and erasing one day erases its
bytes (a whole export zip also holds every private channel and direct message of the workspace, which
must never be reachable from a public page's evidence)."""
