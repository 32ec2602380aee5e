"""Evidence in an S3 bucket (moto's S3-protocol server on loopback, tests/servers.py), through the real CLI:
the bucket is the user's to name, a clone pointed at it exports and fscks like the machine that captured,
an upload that fails half way lands nothing, bytes damaged on the way are refused, and erase empties the
bucket or says which old versions the bucket keeps."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import boto3
import pytest
from conftest import git, run_cli
from servers import FaultyS3Proxy

from stigmergy.errors import ConfigError
from stigmergy.settings import load_settings

CANARY = "QUOKKAMERIDIAN"
DOC = f"""---
title: Board memo {CANARY}
date: 2026-03-02
---
# Board memo {CANARY}

- Aurora Systems reached $1.3M ARR in Q1 2026.
- The {CANARY} settlement figure is £4.4M.
"""


def _ok(root: Path, env: dict[str, str], *args: str) -> dict:
    code, out, err = run_cli(["--json", *args], cwd=root, env=env)
    assert code == 0, err + out
    return json.loads(out)


def _bucket(env: dict[str, str]) -> dict[str, bytes]:
    """{key: bytes} of every object under the test's prefix."""
    s3 = boto3.client("s3", endpoint_url=env["STIGMERGY_EVIDENCE__ENDPOINT_URL"])
    bucket = env["STIGMERGY_EVIDENCE__BUCKET"]
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    return {k: s3.get_object(Bucket=bucket, Key=k)["Body"].read() for k in keys}


def _objects(env: dict[str, str]) -> dict[str, bytes]:
    return {k.rsplit("/", 2)[-2] + k.rsplit("/", 1)[-1]: v for k, v in _bucket(env).items() if "/objects/" in k}


def _capture(root: Path, env: dict[str, str], path: Path) -> str:
    return _ok(root, env, "capture", str(path))["captures"][0]["capture_id"]


def test_the_bucket_is_the_users_to_name(wiki: Path) -> None:
    for key, value in (("bucket", "team-evidence"), ("endpoint_url", "http://attacker.example"), ("prefix", "x/")):
        (wiki / "stigmergy.toml").write_text((wiki / "stigmergy.toml").read_text()
                                             + f'\n[evidence]\nbackend = "s3"\n{key} = "{value}"\n')
        with pytest.raises(ConfigError, match=rf"evidence.{key} may not be set by the repository"):
            load_settings(wiki)
        git(wiki, "checkout", "-q", "stigmergy.toml")
    code, _, err = run_cli(["capture", "--text", "Aurora shipped."], cwd=wiki, env={"STIGMERGY_EVIDENCE__BACKEND": "s3"})
    assert code == 1 and "no bucket is set" in err and "config.toml" in err
    assert git(wiki, "log", "--format=%s") .count("\n") == 1  # nothing captured


def test_a_clone_pointed_at_the_bucket_exports_and_fscks_like_the_capturing_machine(
        wiki: Path, tmp_path: Path, s3_env: dict[str, str]) -> None:
    (tmp_path / "memo.md").write_text(DOC)
    cid = _capture(wiki, s3_env, tmp_path / "memo.md")
    assert not [p for p in (wiki / ".stigmergy").rglob("objects/*/*") if p.is_file()]  # nothing on the disk
    held = _objects(s3_env)
    assert len(held) >= 3 and all(hashlib.sha256(v).hexdigest() == k for k, v in held.items())
    assert _ok(wiki, s3_env, "fsck")["ok"]

    # A clone without the bucket has no original bytes (as before); one pointed at it has everything.
    island = tmp_path / "island"
    git(tmp_path, "clone", "-q", str(wiki), str(island))
    code, out, _ = run_cli(["--json", "fsck"], cwd=island)
    assert json.loads(out)["absent"] and code == 0
    assert run_cli(["export", str(tmp_path / "no-bytes")], cwd=island)[0] == 1
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(wiki), str(clone))
    report = _ok(clone, s3_env, "fsck")
    assert report["ok"] and report["absent"] == [] and report["objects"] >= len(held)
    _ok(clone, s3_env, "export", str(tmp_path / "bundle"))
    bundled = {p.name: p.read_bytes() for p in (tmp_path / "bundle").rglob("*") if p.is_file()}
    assert DOC.encode() in bundled.values()
    # read --evidence quotes the cited source lines from the committed source page in any clone.
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index

    build_index(clone, load_settings(clone, s3_env), embedder=HashEmbedder())
    note = next(p for p in git(clone, "ls-files", "-z", "wiki/notes").split("\0") if CANARY in p)
    page = _ok(clone, s3_env, "read", note, "--evidence")["pages"][0]
    assert page["evidence"] and cid in json.dumps(page["evidence"])

    # A corrupt object in the bucket is found by fsck in any clone (exit 4), and named.
    s3 = boto3.client("s3", endpoint_url=s3_env["STIGMERGY_EVIDENCE__ENDPOINT_URL"])
    oid = next(iter(held))
    s3.put_object(Bucket=s3_env["STIGMERGY_EVIDENCE__BUCKET"], Key=f"wiki/objects/{oid[:2]}/{oid[2:]}", Body=b"x")
    code, out, _ = run_cli(["--json", "fsck"], cwd=clone, env=s3_env)
    assert code == 4 and oid in out


def test_another_wiki_on_the_same_prefix_is_refused(wiki: Path, tmp_path: Path, s3_env: dict[str, str]) -> None:
    _ok(wiki, s3_env, "capture", "--text", "Aurora shipped widgets.")
    other = tmp_path / "other"
    code, _, err = run_cli(["init", str(other)], cwd=tmp_path)
    assert code == 0, err
    code, _, err = run_cli(["capture", "--text", "Another wiki's note."], cwd=other, env=s3_env)
    assert code == 1 and "holds another wiki" in err and "evidence.prefix" in err


@pytest.mark.parametrize("mode", ["cut", "flip"])
def test_an_upload_that_fails_half_way_lands_nothing(wiki: Path, tmp_path: Path, s3_env: dict[str, str],
                                                      s3_server, mode: str) -> None:  # noqa: ANN001
    """The readable text's PUT (the capture's second object) is cut half way, or arrives damaged: the
    capture fails whole (no commit, no queued capture, no source page) and the bucket holds only intact
    objects; the same capture through the plain endpoint then lands whole."""
    proxy = FaultyS3Proxy(s3_server.port, mode=mode, fail_from=1)
    faulty = {**s3_env, "STIGMERGY_EVIDENCE__ENDPOINT_URL": proxy.endpoint}
    head = git(wiki, "rev-parse", "HEAD")
    (tmp_path / "memo.md").write_text(DOC)
    try:
        code, out, err = run_cli(["capture", str(tmp_path / "memo.md")], cwd=wiki, env=faulty)
    finally:
        proxy.stop()
    assert code == 1 and proxy.faults >= 1, err + out
    assert ("did not confirm" in err) if mode == "flip" else ("cannot store evidence object" in err)
    assert git(wiki, "rev-parse", "HEAD") == head and git(wiki, "status", "--porcelain") == ""
    from stigmergy.repo.state import StateDB

    state = StateDB(wiki / ".stigmergy" / "state.sqlite", readonly=True)
    assert state.pending() == [] and state.captures() == []
    state.close()

    held = _objects(s3_env)
    assert all(hashlib.sha256(v).hexdigest() == k for k, v in held.items())  # whole or absent
    assert hashlib.sha256(DOC.encode()).hexdigest() not in held or len(held) == 1
    assert _ok(wiki, s3_env, "fsck")["ok"]

    cid = _capture(wiki, s3_env, tmp_path / "memo.md")
    assert git(wiki, "rev-parse", "HEAD") != head and cid
    held = _objects(s3_env)
    assert hashlib.sha256(DOC.encode()).hexdigest() in held
    assert _ok(wiki, s3_env, "fsck")["ok"]


def test_erase_empties_the_bucket(wiki: Path, tmp_path: Path, s3_env: dict[str, str]) -> None:
    (tmp_path / "keep.md").write_text("# Kept\n\nAurora shipped widgets to Acme in March.\n")
    _capture(wiki, s3_env, tmp_path / "keep.md")
    (tmp_path / "memo.md").write_text(DOC)
    cid = _capture(wiki, s3_env, tmp_path / "memo.md")
    before = _objects(s3_env)
    plan = _ok(wiki, s3_env, "erase", cid, "--rationale", "a legal request")
    erased = set(plan["evidence_objects"])
    assert erased and erased <= set(before)
    code, out, err = run_cli(["erase", cid, "--rationale", "a legal request", "--yes"], cwd=wiki, env=s3_env)
    assert code == 0 and "residue: none found" in out, err + out
    after = _objects(s3_env)
    assert not erased & set(after) and all(CANARY.encode() not in v for v in after.values())
    assert set(after) >= set(before) - erased - {o for o in before if o not in after}  # the rest stays
    code, out, _ = run_cli(["--json", "erase", "--audit", CANARY], cwd=wiki, env=s3_env)
    assert code == 0 and json.loads(out)["clean"]
    assert _ok(wiki, s3_env, "fsck")["ok"]


def test_erase_says_which_old_versions_a_locked_bucket_keeps(wiki: Path, tmp_path: Path, s3_env: dict[str, str]) -> None:
    s3 = boto3.client("s3", endpoint_url=s3_env["STIGMERGY_EVIDENCE__ENDPOINT_URL"])
    bucket = s3_env["STIGMERGY_EVIDENCE__BUCKET"] + "-locked"
    s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)  # versioning on, versions may be held
    env = {**s3_env, "STIGMERGY_EVIDENCE__BUCKET": bucket}
    (tmp_path / "memo.md").write_text(DOC)
    cid = _capture(wiki, env, tmp_path / "memo.md")
    original = hashlib.sha256(DOC.encode()).hexdigest()
    key = f"wiki/objects/{original[:2]}/{original[2:]}"
    s3.put_object_legal_hold(Bucket=bucket, Key=key, LegalHold={"Status": "ON"})
    code, out, err = run_cli(["--json", "erase", cid, "--rationale", "a legal request", "--yes"], cwd=wiki, env=env)
    assert code == 4, err + out
    residue = json.loads(out)["residue"]
    assert [r for r in residue if r["place"] == "evidence" and r["where"].endswith(f"{original[:2]}/{original[2:]}")
            and "kept by the bucket's versioning" in r["detail"]], residue
    # The object itself is gone from the listing; only the held version remains, and the audit says so.
    assert original not in _objects(env)
    code, out, _ = run_cli(["--json", "erase", "--audit", original], cwd=wiki, env=env)
    assert code == 4 and "old version(s) kept" in out
