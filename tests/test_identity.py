"""`stigmergy merge A INTO B` and `stigmergy rename PAGE TITLE`: every line moves, links follow, the gates check."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import git, run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st

from stigmergy.garden.identity import plan_merge
from stigmergy.gates.engine import judge
from stigmergy.pages.wiki import parse_wiki_page
from stigmergy.settings import load_settings
from tests.test_garden_sweep import _block
from tests.test_gates_support import TS, cited, commit, make_page, make_source

A = "wiki/entities/Olly Brandt.md"
B = "wiki/entities/Oliver Brandt.md"
NOTE = "wiki/notes/Renewal call.md"


@pytest.fixture
def repo(wiki: Path) -> Path:
    s1 = make_source(wiki, 1, ["Olly Brandt will send the renewal proposal by 15 June.", "Olly closed 3 deals in May."])
    s2 = make_source(wiki, 2, ["Oliver Brandt joined sales in 2024.", "Oliver closed 4 deals in May."])
    make_page(wiki, "entity", "Olly Brandt", [
        "## 2026-05-07",
        "",
        f"- Olly Brandt will send the renewal proposal by 15 June. {cited(A, s1, 0)}",
        "",
        _block(A, [s1, s2], ["Olly closed 3 deals in May.", "Oliver closed 4 deals in May."]),
    ])
    make_page(wiki, "entity", "Oliver Brandt", [
        "## 2024-01-10",
        "",
        f"- Oliver Brandt joined sales in 2024. {cited(B, s2, 0)}",
        "",
        "## 2026-06-01",
        "",
        f"- Oliver closed 4 deals in May. {cited(B, s2, 1)}",
    ])
    make_page(wiki, "note", "Renewal call", [f"- [[Olly Brandt]] will send the renewal proposal by 15 June. {cited(NOTE, s1, 0)}"],
              entities=("Olly Brandt",))
    commit(wiki, ["sources", "wiki"])
    return wiki


def test_merge_moves_every_line_and_block_records_the_alias_and_relinks(repo: Path):
    head = git(repo, "rev-parse", "HEAD")
    code, out, err = run_cli(["merge", "Olly Brandt", "INTO", "Oliver Brandt", "--dry-run"], cwd=repo)
    assert code == 0, out + err
    assert git(repo, "rev-parse", "HEAD") == head
    code, out, err = run_cli(["--json", "merge", "Olly Brandt", "INTO", "Oliver Brandt"], cwd=repo)
    assert code == 0, out + err
    assert json.loads(out)["status"] == "committed"
    assert not (repo / A).exists()
    merged = parse_wiki_page((repo / B).read_text(encoding="utf-8"), B)
    old_a = git(repo, "show", f"HEAD~1:{A}")
    for line in old_a.split("\n"):
        if "([source](" in line or line.startswith(("<!--", ">")):
            assert line in merged.body  # no cited line or block line lost
    body = merged.body
    assert body.index("## 2024-01-10") < body.index("## 2026-05-07") < body.index("## 2026-06-01")  # date order
    assert "Olly Brandt" in merged.aliases
    note = parse_wiki_page((repo / NOTE).read_text(encoding="utf-8"), NOTE)
    assert "[[Oliver Brandt|Olly Brandt]] will send" in note.body and note.entities == ("Oliver Brandt",)
    assert "Stigmergy-Kind: merge" in git(repo, "log", "-1", "--format=%B")
    code, out, _ = run_cli(["--json", "lint"], cwd=repo)
    assert not [f for f in json.loads(out)["findings"] if f["rule"] not in ("orphan",)], out


def test_the_gates_refuse_a_merge_that_loses_a_line(repo: Path):
    settings = load_settings(repo, env={})
    proposal = plan_merge(repo, settings, "Olly Brandt", "Oliver Brandt", reader="t@example.com", op_id="op_x", timestamp=TS)
    assert judge(proposal.changes, repo, settings, proposal.op).ok
    changes = dict(proposal.changes)
    changes[B] = changes[B].replace("will send the renewal proposal", "sends the proposal")
    verdict = judge(changes, repo, settings, proposal.op)
    assert "cited-line-lost" in {v.rule for v in verdict.violations}
    # Without the declared move, deleting the page is refused outright.
    verdict = judge(proposal.changes, repo, settings, replace(proposal.op, moves=()))
    assert not verdict.ok


def test_rename_keeps_the_id_moves_the_path_and_relinks(repo: Path):
    old = parse_wiki_page((repo / A).read_text(encoding="utf-8"), A)
    code, out, err = run_cli(["--json", "rename", A, "Olly B."], cwd=repo)
    assert code == 0, out + err
    new_rel = "wiki/entities/Olly B.md"
    page = parse_wiki_page((repo / new_rel).read_text(encoding="utf-8"), new_rel)
    assert page.id == old.id and page.title == "Olly B." and "Olly Brandt" in page.aliases
    assert page.body.split("\n", 1)[1] == old.body.split("\n", 1)[1]
    assert "[[Olly B.|Olly Brandt]]" in (repo / NOTE).read_text(encoding="utf-8")
    assert "Stigmergy-Kind: rename" in git(repo, "log", "-1", "--format=%B")


@pytest.mark.parametrize(
    "args",
    [
        ["merge", "Olly Brandt", "Oliver Brandt"],
        ["merge", "Olly Brandt", "INTO", "Olly Brandt"],
        ["merge", "Olly Brandt", "INTO", "Renewal call"],
        ["merge", "Nobody", "INTO", "Oliver Brandt"],
        ["rename", "Olly Brandt", "Oliver Brandt"],
        ["rename", "Olly Brandt", "   "],
    ],
)
def test_bad_merges_and_renames_change_nothing(repo: Path, args: list[str]):
    head = git(repo, "rev-parse", "HEAD")
    code, out, err = run_cli(args, cwd=repo)
    assert code in (1, 2), (code, out, err)
    assert err.startswith("error: ")
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "status", "--porcelain") == ""


def test_merge_refuses_across_layers(repo: Path):
    with (repo / "stigmergy.toml").open("a") as fh:
        fh.write('\n[layers.board]\nreaders = ["*"]\n')
    s3 = make_source(repo, 3, ["Oliver B. sits on the board."], layer="board")
    rel = "layers/board/wiki/entities/Oliver B.md"
    make_page(repo, "entity", "Oliver B.", [f"- Oliver B. sits on the board. {cited(rel, s3, 0)}"], layer="board")
    commit(repo, ["stigmergy.toml", "layers"])
    code, out, err = run_cli(["merge", rel, "INTO", B], cwd=repo)
    assert code == 2 and "different layers" in err


_STEMS = ["Aurora", "Aurora Systems", "Beta", "Beta 2"]
_PIECES = ["[[Aurora]]", "[[aurora|the firm]]", "[[Aurora#History]]", "[[ Aurora ]]", "[[Aurora Systems]]",
           "[[Aurora Systems|Aurora]]", "[[Beta]]", "[[Beta 2]]", "[[Old Name]]", "Aurora", " ", "\n", "- ", "`x`"]


def _relink_whole_body(snap, old: str, new_target: str, body: str, layer: str) -> str:
    """What `_relink_text` did before it went line by line: one substitution over the whole body."""
    import re

    from stigmergy.pages.wikilinks import WIKILINK_RE

    def sub(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        if old not in snap.resolver.resolve(target, from_layer=layer):
            return m.group(0)
        shown = m.group(3) if m.group(3) else target
        heading = f"#{m.group(2)}" if m.group(2) is not None else ""
        return f"[[{new_target}{heading}|{shown}]]"

    return WIKILINK_RE.sub(sub, body)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from(_STEMS))
def test_relinking_line_by_line_rewrites_what_the_whole_body_substitution_did(pieces: list[str], old_stem: str):
    # Only lines holding a target that names the old page are substituted: a link to a page whose name
    # merely contains the old one ([[Aurora Systems]] for Aurora), an alias, or plain text on the same
    # line must come out exactly as the one substitution over the body left them.
    from stigmergy.garden.identity import _relink_text
    from stigmergy.garden.snapshot import Snapshot
    from stigmergy.settings import Settings

    texts = {f"wiki/entities/{s}.md": f"---\ntitle: {s}\naliases:\n- Old Name\n---\n# {s}\n" if s == "Beta 2"
             else f"---\ntitle: {s}\naliases: []\n---\n# {s}\n" for s in _STEMS}
    snap = Snapshot(Path("/nonexistent"), Settings(), texts)
    old = f"wiki/entities/{old_stem}.md"
    body = "# Page\n" + "".join(pieces) + "\n"
    assert _relink_text(snap, old, "New Title", body, "public") == _relink_whole_body(snap, old, "New Title", body, "public")


_CITE_A = " ([source](../../sources/2026/01/cap_01JD8Z3Q5N4W2X7Y9A0B1C2D3E.md#L3))"
_CITE_B = " ([source](../../sources/2026/01/cap_01JD8Z3Q5N4W2X7Y9A0B1C2D3F.md#L4-L5))"
_LINE_PIECES = ["[[Old]]", "[[Old|the old one]]", "[[old#Part]]", "[[Other]]", "text", " ", "- ", "> ", "    ", "```",
                "~~~", "`", "<div>", "<a href=", "<!--", "-->", ">", "[x]: /u", "]:", "\"", "(", ")", "[source](",
                "<pre>", "</pre>"]


@settings(max_examples=600, deadline=None)
# Each of these cites otherwise once its link is re-pointed (what _cites_the_same must refuse): a one-line
# HTML block whose unquoted attribute gains a space, so the fence after it is code; a fence whose info
# string gains a backtick; an HTML comment ended early; a link definition's title ended early.
@example([(["<a href=", "[[Old]]", ">"], ""), (["```"], ""), (["text"], _CITE_A), (["```"], "")], "New Title")
@example([(["```", "[[Old|the old one]]"], ""), (["text"], _CITE_A), (["```"], "")], "A`b")
@example([(["<!--"], ""), (["[[Old]]"], ""), (["    ", "text"], _CITE_A)], "A-->b")
@example([([], ""), (["[x]: /u", " ", '"'], ""), (["[[Old]]", '"'], ""), (["    ", "text"], _CITE_A)], 'A"b')
@given(st.lists(st.tuples(st.lists(st.sampled_from(_LINE_PIECES), max_size=6),
                          st.sampled_from(["", _CITE_A, _CITE_B, _CITE_A + _CITE_B[1:]])), max_size=12),
       st.sampled_from(["New Title", "New (title)", "wiki/entities/New", "A<b", "A`b", "A]b", "A>b", 'A"b', "A-->b"]))
def test_a_relinked_body_said_to_cite_the_same_cites_the_same(lines: list[tuple[list[str], str]], new_target: str):
    # _relink keeps the sources of a page whose links it re-pointed, without reading its citations again,
    # when _cites_the_same says so: then the relinked body must cite exactly what the old one cited, and
    # the same lines must be code (a citation in a code block cites nothing), whatever HTML, fences, link
    # reference definitions or citation groups surround the links.
    from stigmergy.garden.identity import _cites_the_same, _relink_lines
    from stigmergy.garden.snapshot import Snapshot
    from stigmergy.pages.citations import cited_sources
    from stigmergy.pages.markdown import code_lines
    from stigmergy.settings import Settings

    rel = "wiki/notes/Page.md"
    texts = {"wiki/entities/Old.md": "---\ntitle: Old\naliases: []\n---\n# Old\n",
             "wiki/entities/Other.md": "---\ntitle: Other\naliases: []\n---\n# Other\n"}
    snap = Snapshot(Path("/nonexistent"), Settings(), texts)
    body = "# Page\n" + "\n".join("".join(pieces) + cite for pieces, cite in lines) + "\n"
    new, rewritten, hits = _relink_lines(snap, "wiki/entities/Old.md", new_target, body, "public")
    if not _cites_the_same(body, rewritten, new_target, hits):
        return
    assert cited_sources(new, rel) == cited_sources(body, rel)
    assert code_lines(new) == code_lines(body)


def test_the_same_citations_are_not_claimed_where_markup_could_move_them():
    from stigmergy.garden.identity import _cites_the_same

    line = "- [[Old]] text" + _CITE_A
    assert _cites_the_same("# P\n" + line + "\n", [line], "New Title", ["Old"])
    assert not _cites_the_same("# P\n" + line + "\n", [line], "A`b", ["Old"])  # a fence's info string
    assert not _cites_the_same("# P\n" + line + "\n", [line], "New", ["Old>"])  # an HTML block's end
    assert not _cites_the_same("# P\n<a href=[[Old]]>\n", ["<a href=[[Old]]>"], "New", ["Old"])  # an HTML block
    assert not _cites_the_same("# P\n[x]: /u 'a\n" + line + "'\n", [line], "New", ["Old"])  # a definition's title
    assert _cites_the_same("# P\n- [[Lane|lane]]: " + line + "\n", [line], "New", ["Old"])  # no definition
