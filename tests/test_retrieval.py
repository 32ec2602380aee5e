"""Retrieval fixes of issue 14: fragments sized in the model's word pieces, heading trails for Markdown
and plain-text conventions, page-level fusion, the most specific page first, the entity arm and
`--entity` reaching sources, and the int8 model export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_index_support import HashEmbedder, RepoBuilder, cite

from stigmergy.errors import ConfigError
from stigmergy.index.build import build_index
from stigmergy.index.embedder import fingerprint, fragment_tokens, quantize_mode, resolve_model
from stigmergy.index.fragments import split_page
from stigmergy.index.search import Filters, Searcher
from stigmergy.settings import EmbedderSettings, IndexSettings

READER = "someone@example.com"


def _tokens():  # type: ignore[no-untyped-def]
    tokens, window = fragment_tokens(EmbedderSettings())
    assert tokens is not None and window == 256
    return tokens


def _page(body: str, title: str = "Manual") -> tuple[str, int]:
    text = f"---\ntitle: {title}\n---\n# {title}\n\n{body}"
    return text, text.index("# ")


# ------------------------------------------------------------------ fragment length in word pieces


def test_fragments_fit_the_model_window_in_word_pieces_with_overlap() -> None:
    tokens = _tokens()
    # Dense text: numbers and rare words make several word pieces each, so 1,200 characters overflow.
    para = " ".join(f"Zyx{i}qv {i * 7919} reconfiguration" for i in range(600))
    text, start = _page(f"## Install\n\n{para}\n")
    frags = split_page(text, start, "Manual", IndexSettings(), tokens=tokens, window=256)
    assert len(frags) > 5
    sizes = [len(tokens.offsets(f.embed_text("Manual"))) + 2 for f in frags]
    assert max(sizes) <= 256, sizes
    assert min(sizes[:-1]) > 128  # windows are filled, not slivers
    for a, b in zip(frags, frags[1:], strict=False):
        assert b.start_char < a.end_char  # consecutive windows overlap
        assert text[b.start_char - 1].isspace()  # and start at a word
    # together they cover the whole section
    covered = set()
    for f in frags:
        covered.update(range(f.start_char, f.end_char))
    assert all(i in covered for i in range(text.index(para), text.index(para) + len(para)) if not text[i].isspace())


def test_fragment_tokens_setting_caps_below_the_window() -> None:
    tokens = _tokens()
    text, start = _page(" ".join(f"word{i}" for i in range(2000)) + "\n")
    frags = split_page(text, start, "Manual", IndexSettings(fragment_tokens=100, overlap_tokens=10),
                       tokens=tokens, window=256)
    assert max(len(tokens.offsets(f.embed_text("Manual"))) + 2 for f in frags) <= 100


def test_a_read_of_a_shorter_fragment_shows_about_the_model_window_around_it() -> None:
    tokens = _tokens()
    para = " ".join(f"Zyx{i}qv {i * 7919} reconfiguration" for i in range(600))
    text, start = _page(f"## Install\n\n{para}\n")
    frags = split_page(text, start, "Manual", IndexSettings(fragment_tokens=96), tokens=tokens, window=256)
    sizes = [len(tokens.offsets(f.embed_text("Manual"))) + 2 for f in frags]
    assert max(sizes) <= 96 and min(sizes[:-1]) > 48
    # 0 is the model's window, which also caps a larger setting; a read spans ~256 word pieces each side.
    assert IndexSettings().fragment_limit(256) == 256 and IndexSettings(fragment_tokens=999).fragment_limit(256) == 256
    assert IndexSettings(fragment_tokens=96).fragment_limit(64) == 64
    assert IndexSettings().read_neighbours(256) == 1
    assert IndexSettings(fragment_tokens=96).read_neighbours(256) == 3
    assert IndexSettings(fragment_tokens=1).read_neighbours(256) == 8  # bounded


def test_hostile_overlap_and_size_settings_stay_linear() -> None:
    tokens = _tokens()
    text, start = _page(" ".join(f"word{i}" for i in range(3000)) + "\n")
    for params in (IndexSettings(overlap_tokens=10_000), IndexSettings(fragment_tokens=1, overlap_tokens=-3)):
        frags = split_page(text, start, "Manual", params, tokens=tokens, window=256)
        assert len(frags) < 200
    frags = split_page(text, start, "Manual", IndexSettings(fragment_chars=1, overlap_chars=10_000))
    assert len(frags) < 400


def test_short_page_stays_whole_in_tokens() -> None:
    text, start = _page("Short body.\n")
    assert len(split_page(text, start, "Manual", IndexSettings(), tokens=_tokens())) == 1


# ------------------------------------------------------------------ heading trails


def _trails(body: str, syntax: str) -> dict[str, tuple[str, ...]]:
    text, start = _page(body)
    frags = split_page(text, start, "Manual", IndexSettings(fragment_chars=120, min_fragment_chars=10), syntax=syntax)
    return {f.text.split("\n")[-1]: f.trail for f in frags}


FILLER = "Some words to make the section long enough to stand as one fragment on its own here."


def test_markdown_setext_headings_and_no_headings_in_code() -> None:
    body = (f"Setext top\n==========\n\n{FILLER}\nalpha end\n\nSub part\n--------\n\n{FILLER}\nbeta end\n\n"
            f"```\n# not a heading\n```\n\n{FILLER}\ngamma end\n")
    trails = _trails(body, "markdown")
    assert trails["alpha end"] == ("Setext top",)
    assert trails["beta end"] == ("Setext top", "Sub part")
    assert trails["gamma end"] == ("Setext top", "Sub part")  # the fenced `#` line is code


def test_restructuredtext_titles_levels_by_first_appearance() -> None:
    body = (f"=========\nThe guide\n=========\n\n{FILLER}\nalpha end\n\nInstalling\n----------\n\n{FILLER}\nbeta end\n\n"
            f"On Linux\n~~~~~~~~\n\n{FILLER}\ngamma end\n\nUsing it\n--------\n\n{FILLER}\ndelta end\n\n"
            f"A literal block::\n\n    # shell comment\n    ====\n\n{FILLER}\nepsilon end\n")
    trails = _trails(body, "text")
    assert trails["alpha end"] == ("The guide",)
    assert trails["beta end"] == ("The guide", "Installing")
    assert trails["gamma end"] == ("The guide", "Installing", "On Linux")
    assert trails["delta end"] == ("The guide", "Using it")
    assert trails["epsilon end"] == ("The guide", "Using it")


def test_asciidoc_titles_in_text() -> None:
    body = f"= Book\n\n{FILLER}\nalpha end\n\n== Chapter\n\n{FILLER}\nbeta end\n\n=== Part\n\n{FILLER}\ngamma end\n"
    trails = _trails(body, "text")
    assert trails["beta end"] == ("Book", "Chapter")
    assert trails["gamma end"] == ("Book", "Chapter", "Part")


def test_a_text_capture_gets_text_conventions(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    rel = b.source("Guide", f"Usage\n=====\n\n{FILLER * 20}\n\nOptions\n=======\n\n{FILLER * 20}\n")
    path = b.root / rel
    path.write_text(path.read_text().replace("media_type: text/markdown", "media_type: text/plain"))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        trails = {r[0] for r in s.store.conn.execute("SELECT trail FROM fragments")}
    finally:
        s.close()
    assert '["Usage"]' in trails and '["Options"]' in trails


# ------------------------------------------------------------------ fusion and hits


def test_page_level_fusion_credits_both_arms_on_different_fragments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long page whose words match in one section and whose meaning matches in another gets both arms'
    credit (fragment-level fusion gave it one)."""
    from stigmergy.index import search as search_mod

    class Directed(HashEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            out = super().embed(texts)
            for i, t in enumerate(texts):
                if "harbour" in t.lower() or t == "QUERY-VEC":
                    out[i] = 0.0
                    out[i, 5] = 1.0
            return out

    b = RepoBuilder(tmp_path / "w")
    long = "\n\n".join(f"## Part {i}\n\n" + " ".join(f"filler{i}x{j}" for j in range(150)) for i in range(6))
    b.wiki("note", "Long manual", f"## Words\n\nzebra quokka mentioned here.\n\n{long}\n\n## Meaning\n\nharbour\n")
    b.wiki("note", "Lexical only", "zebra quokka and nothing else.\n")
    b.wiki("note", "Vector only", "harbour harbour.\n")
    b.commit()
    emb = Directed()
    build_index(b.root, b.settings, embedder=emb)
    s = Searcher(b.root, b.settings, emb)
    try:
        s.embedder.embed = lambda texts: Directed.embed(emb, ["QUERY-VEC" for _ in texts])  # type: ignore[method-assign]
        hits = s.search("zebra quokka", READER, k=5, check_freshness=False).hits  # the score blend
        monkeypatch.setattr(search_mod, "FUSION", "rrf")
        ranks = s.search("zebra quokka", READER, k=5, check_freshness=False).hits
        monkeypatch.setattr(search_mod, "PAGE_LEVEL_FUSION", 0)  # a page's best fragment only (the old rule)
        old = s.search("zebra quokka", READER, k=5, check_freshness=False).hits
    finally:
        s.close()
    long_hit = next(h for h in hits if h.title == "Long manual")
    assert long_hit.arms["lexical"] is not None and long_hit.arms["vector"] is not None
    # Each arm's best fragment of the page counts: it leads both pages that only one arm found.
    assert hits[0].title == "Long manual"
    assert next(h for h in ranks if h.title == "Long manual").rrf > next(h for h in old if h.title == "Long manual").rrf


def test_a_hub_quoting_a_source_puts_the_source_right_above_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stigmergy.index import search as search_mod

    # Without the focus factor the hub's short quoting fragment outranks the long source in both arms;
    # the rule under test alone must put the source first.
    monkeypatch.setattr(search_mod, "FOCUS_FLOOR", 1.0)
    b = RepoBuilder(tmp_path / "w")
    memo = b.source("Pricing memo", "Widget list price rises to 45 euros in May.\n" + "Other things. " * 200)
    others = [b.source(f"Memo {i}", f"Topic {i} update number {i}.\n") for i in range(5)]
    hub = "wiki/entities/Acme Corp.md"
    body = f"- Widget list price rises to 45 euros in May. {cite(hub, memo, 22)}\n" + "".join(
        f"- Topic {i} update. {cite(hub, src, 22)}\n" for i, src in enumerate(others))
    b.wiki("entity", "Acme Corp", body, aliases=("Acme",))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        hits = s.search("widget list price May", READER, k=5, check_freshness=False).hits
        named = s.search("Acme", READER, k=3, check_freshness=False).hits
        asked = [h.path for h in s.search("Acme widget list price", READER, k=5, check_freshness=False).hits]
    finally:
        s.close()
    paths = [h.path for h in hits]
    assert hits[paths.index(hub)].arms["lexical"] == 1  # the arms did prefer the hub
    assert paths.index(memo) + 1 == paths.index(hub), paths
    assert hits[paths.index(memo)].lines[0] <= 22  # the source's snippet is the quoted passage
    # An entity page the query names keeps its place, whether the name is the whole query or a part of it
    # (measured: lifting the quoted source over a partly named page cost lenient R@1 on bench/questions.json).
    assert named[0].path == hub
    assert asked.index(hub) < asked.index(memo)


def test_entity_filter_and_arm_reach_sources_that_name_the_entity(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w", layers={"secret": ["boss@example.com"]})
    src = b.source("Call notes", "We spoke with Acme about the renewal and the widget order.\n")
    hidden = b.source("Board memo", "Acme is to be acquired.\n", layer="secret")
    b.source("Unrelated", "The weather was fine and the renewal of nothing happened.\n")
    b.wiki("entity", "Acme Corp", "Acme buys widgets from us.\n", aliases=("Acme",))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        filtered = [h.path for h in s.search("renewal", READER, k=10, filters=Filters(entity="Acme Corp"),
                                             check_freshness=False).hits]
        arm = [h.path for h in s.search("Acme", READER, k=10, arms=("entity",), check_freshness=False).hits]
    finally:
        s.close()
    assert src in filtered and all("Unrelated" not in p for p in filtered)
    assert src in arm and hidden not in arm and hidden not in filtered


def test_entity_filter_with_quotes_in_the_name_is_no_fts_syntax_error(tmp_path: Path) -> None:
    b = RepoBuilder(tmp_path / "w")
    b.source("Notes", 'He said "O\'Brien & Co" (OBC) AND NOT NEAR/2 things.\n')
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    s = Searcher(b.root, b.settings, HashEmbedder())
    try:
        for name in ['"O\'Brien & Co"', "NEAR/2", "AND", '"', "*", "^x"]:
            s.search("things", READER, k=5, filters=Filters(entity=name), check_freshness=False)
    finally:
        s.close()


# ------------------------------------------------------------------ int8 quantisation


def test_quantize_setting_is_checked_and_in_the_fingerprint() -> None:
    assert quantize_mode(EmbedderSettings()) == "int8"
    assert quantize_mode(EmbedderSettings(backend="sentence-transformers")) == "none"
    with pytest.raises(ConfigError, match="quantize"):
        quantize_mode(EmbedderSettings(quantize="int4"))
    info = resolve_model(EmbedderSettings())
    assert fingerprint(info, "k", IndexSettings(), "int8") != fingerprint(info, "k", IndexSettings(), "none")


@pytest.mark.model
def test_int8_export_is_smaller_and_close_to_fp32(tmp_path_factory: pytest.TempPathFactory) -> None:
    from test_index_support import shared_onnx_cache

    from stigmergy.index.embedder import OnnxEmbedder, export_onnx

    cache = shared_onnx_cache(tmp_path_factory.getbasetemp())
    info = resolve_model(EmbedderSettings())
    fp32_path = export_onnx(info, cache)
    int8_path = export_onnx(info, cache, "int8")
    assert int8_path != fp32_path and int8_path.stat().st_size * 3 < fp32_path.stat().st_size
    texts = ["How do I rotate the signing keys?", "Widget list price rises to 45 euros in May.",
             "The quarterly report shows churn falling to 2%. " * 40]
    a = OnnxEmbedder(info, cache).embed(texts)
    q = OnnxEmbedder(info, cache, quantize="int8").embed(texts)
    cos = (a * q).sum(axis=1)
    assert np.all(cos > 0.95), cos
    assert not np.allclose(a, q)  # it really is the other model
