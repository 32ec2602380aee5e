"""What the model reads of a wiki page does not depend on the capture ids its citations and markers carry (issue
20, sixth pass): two captures of the same material, whose ids are random, are cut into the same fragments and
embed the same text; the text shown and searched keeps the real ids."""

from __future__ import annotations

import base64

from stigmergy.index.embedder import fragment_tokens
from stigmergy.index.fragments import split_page
from stigmergy.settings import EmbedderSettings, IndexSettings

# Two ids as random as ULIDs are: the model's tokenizer splits them into different numbers of word pieces.
IDS = ("01M8XAQK3298EQK7TKCHM1CVZK", "01M8XB48B88GNHFSTSX7QKH4D5")


def _page(cap: str, con: str) -> tuple[str, int]:
    lines = [f"- Shipment {i} left the depot on time and arrived within its range. "
             f"([source](../../sources/2026/12/cap_{cap}.md#L{i}-L{i + 1}))" for i in range(1, 60)]
    data = base64.b64encode(f'{{"id":"con_{con}","source":"cap_{cap}"}}'.encode()).decode()
    body = ("# Lane\n\n" + "\n".join(lines[:30])
            + f"\n\n<!-- stigmergy:contradiction con_{con} -->\nThe sources disagree on the count.\n"
            f"<!-- stigmergy:data {data} -->\n<!-- /stigmergy:contradiction -->\n\n## Later\n\n"
            + "\n".join(lines[30:]) + "\n")
    text = f"---\ntitle: Lane\n---\n{body}"
    return text, text.index("# Lane")


def test_two_captures_of_the_same_page_fragment_and_embed_alike() -> None:
    tokens, window = fragment_tokens(EmbedderSettings())
    assert tokens is not None
    assert len(tokens.offsets(IDS[0])) != len(tokens.offsets(IDS[1]))  # so they would move the windows
    cut = []
    for cap, con in (IDS, IDS[::-1]):
        text, start = _page(cap, con)
        frags = split_page(text, start, "Lane", IndexSettings(), tokens=tokens, window=window)
        cut.append(frags)
        assert len(frags) > 2  # the page is cut into windows, where the ids' word pieces would count
        assert any(f"cap_{cap}" in f.text for f in frags)  # the shown text keeps the links
    a, b = cut
    assert [(f.start_line, f.end_line) for f in a] == [(f.start_line, f.end_line) for f in b]
    assert [f.embed_text("Lane") for f in a] == [f.embed_text("Lane") for f in b]
