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
