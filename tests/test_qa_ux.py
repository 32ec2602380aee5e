"""QA findings on everyday use: usage errors that read as empty answers, and library noise on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import run_cli


def test_list_and_log_refuse_arguments_that_can_match_nothing(wiki: Path) -> None:
    for args, word in ((["list", "--type", "bogus"], "--type"), (["list", "--status", "ripe"], "--status"),
                       (["list", "--since", "garbage"], "--since"), (["list", "--limit", "0"], "--limit"),
                       (["log", "-n", "-1"], "-n"), (["log", "-n", "0"], "-n")):
        code, out, err = run_cli(args, cwd=wiki)
        assert code == 2, (args, code, out, err)
        assert word in err, (args, err)


def test_read_with_a_bad_fragment_number_is_a_usage_error(wiki: Path) -> None:
    code, out, err = run_cli(["read", "wiki/notes/X.md#abc"], cwd=wiki)
    assert code == 2 and "bad fragment number" in err, (code, out, err)


def test_quiet_root_logging_mutes_root_warnings_and_restores_logging() -> None:
    """onnxruntime's quantiser warns through the root logger; a fresh process has no handlers there."""
    script = (
        "import logging\n"
        "from stigmergy.index.embedder import quiet_root_logging\n"
        "with quiet_root_logging():\n"
        "    logging.warning('please run pre-processing before quantization')\n"
        "logging.warning('after')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pre-processing" not in done.stderr
    assert "after" in done.stderr


def _source_front_matter(wiki: Path) -> list[dict]:
    import frontmatter

    return [frontmatter.loads(p.read_text(encoding="utf-8")).metadata for p in sorted((wiki / "sources").rglob("*.md"))]


def test_empty_text_and_stdin_name_the_option_not_an_invented_file(wiki: Path) -> None:
    code, out, err = run_cli(["capture", "--text", ""], cwd=wiki)
    assert code != 0 and "--text: the input is empty" in out + err and "text.txt" not in out + err
    code, out, err = run_cli(["capture", "-"], cwd=wiki, input=b"")
    assert code != 0 and "stdin: the input is empty" in out + err and "stdin.txt" not in out + err


def test_typed_text_is_titled_by_its_first_line_unless_given_a_title(wiki: Path) -> None:
    long_line = "Decided: we ship Helios 2.0 on Friday " + "after the smoke tests pass " * 10
    assert run_cli(["capture", "--text", f"{long_line}\nMore detail."], cwd=wiki)[0] == 0
    assert run_cli(["capture", "--text", "Other words.", "--title", "Chosen"], cwd=wiki)[0] == 0
    titles = {m["title"] for m in _source_front_matter(wiki)}
    assert "Chosen" in titles
    first = next(t for t in titles if t != "Chosen")
    assert first.startswith("Decided: we ship Helios 2.0 on Friday") and first.endswith("…") and len(first) <= 80


def test_plain_text_with_an_underlined_title_is_titled_by_it(wiki: Path) -> None:
    (wiki.parent / "manual.txt").write_text("Helios Operator Manual\n======================\n\nStart the pump.\n")
    assert run_cli(["capture", str(wiki.parent / "manual.txt")], cwd=wiki)[0] == 0
    assert [m["title"] for m in _source_front_matter(wiki)] == ["Helios Operator Manual"]


def test_html_description_and_author_are_kept_as_metadata() -> None:
    from stigmergy.capture.extract import extract
    from stigmergy.settings import CaptureSettings

    page = ('<html><head><title>Pumps</title><meta name="Description" content="All  about pumps.">'
            '<meta name="author" content="Zoë Çelik"><meta name="viewport" content="x"></head>'
            "<body><p>Pumps are good.</p></body></html>")
    ex = extract(page.encode(), "p.html", CaptureSettings())
    assert ex.metadata == {"description": "All about pumps.", "author": "Zoë Çelik"}
    assert "All about pumps" not in ex.text


def test_a_file_name_with_a_newline_is_escaped_in_output_and_front_matter(wiki: Path) -> None:
    odd = wiki.parent / "bad\nname.txt"
    odd.write_text("hello there\n")
    code, out, err = run_cli(["capture", str(odd)], cwd=wiki)
    assert code == 0, out + err
    assert "bad\\nname.txt" in out + err and "bad\nname" not in out + err
    (meta,) = _source_front_matter(wiki)
    assert meta["locator"].endswith("bad\\nname.txt") and "\n" not in meta["title"]


def test_an_html_footer_goes_to_front_matter_and_cannot_break_out_of_it(wiki: Path) -> None:
    # The footer's text is the page's own words, put in YAML: a footer that tries to end the front matter and
    # declare another layer is a string in `metadata.footer`, and the body holds none of it.
    page = wiki.parent / "status.html"
    page.write_text("<html><head><title>Pump status</title></head><body><p>Pump 4 is back in service.</p>"
                    "<footer>Powered by Acme<br>\n---\nlayer: board\n---\n# Injected</footer></body></html>")
    code, out, err = run_cli(["capture", str(page)], cwd=wiki)
    assert code == 0, out + err
    (meta,) = _source_front_matter(wiki)
    assert meta["layer"] == "public"
    assert meta["metadata"]["footer"] == "Powered by Acme --- layer: board --- # Injected"
    body = next((wiki / "sources").rglob("*.md")).read_text().split("\n---\n", 1)[1]
    assert "Pump 4 is back in service." in body and "Injected" not in body and "Acme" not in body
