"""The evidence store in an S3-compatible bucket (boto3): every object call on evidence in S3 is in this
module. `[evidence] backend = "s3"`; bucket, prefix, endpoint and region from the user's configuration,
credentials from the standard AWS chain (environment, shared files, instance roles).

- Objects are keyed by their sha256 as on disk: `<prefix>objects/ab/cdef…`.
- **put** is idempotent and verified: an object already there that is intact is left alone; otherwise it
  is uploaded in one PUT with `ChecksumSHA256` (S3 checks it against the bytes it received and refuses a
  body damaged on the way). What the server answers must confirm our bytes: its SHA-256 checksum must be
  ours, and a plain single-part ETag (the MD5 of what it stored) must be the MD5 of our bytes; a server
  that answers neither (some S3-compatible ones) has the object re-read and re-hashed. An object the
  answer contradicts is deleted again and the put fails. One PUT per object, so an interrupted upload
  leaves no object: it lands whole or not at all.
- **get** re-hashes what came back; **intact** asks the server for the checksum it holds (cheap: no
  download) and re-reads when it holds none; `fsck` downloads and re-hashes every object.
- **delete** (erase) removes the object and, in a versioned bucket, every old version it may; versions the
  bucket keeps (Object Lock, a missing permission) are counted in `kept_versions` for the audit.
- **Which wiki.** `<prefix>wiki` names the repository (root commit) the prefix belongs to; another
  repository pointed at the same prefix is refused, as for the shared index.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from stigmergy.repo.evidence.protocol import HASH_NAME, EvidenceError, object_id


def _b64(oid: str) -> str:
    return base64.b64encode(bytes.fromhex(oid)).decode()


def _check_id(oid: str) -> None:
    if len(oid) != 64 or any(c not in "0123456789abcdef" for c in oid):
        raise EvidenceError(f"not a sha256 object id: {oid!r}")


@dataclass(frozen=True)
class S3Location:
    bucket: str
    prefix: str = "stigmergy/"
    endpoint_url: str = ""
    region: str = ""
    wiki: str = ""

    def __str__(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"


class S3EvidenceStore:
    """`EvidenceStore` over one bucket and prefix."""

    hash_name = HASH_NAME

    def __init__(self, where: S3Location, client: Any = None) -> None:
        if not where.bucket:
            raise EvidenceError("evidence.backend is \"s3\" but no bucket is set",
                                hint="set STIGMERGY_EVIDENCE__BUCKET, or bucket under [evidence] in "
                                     "~/.config/stigmergy/config.toml")
        self.where = where
        self.prefix = where.prefix if not where.prefix or where.prefix.endswith("/") else where.prefix + "/"
        self._client = client
        self._claimed = False
        self.kept_versions: dict[str, int] = {}  # oid -> old versions delete could not remove

    # ------------------------------------------------------------ the connection

    @property
    def client(self) -> Any:
        if self._client is None:
            try:
                import boto3
                from botocore.config import Config
            except ImportError as exc:
                raise EvidenceError("S3 evidence needs boto3 (evidence.backend = \"s3\")",
                                    hint="pip install 'stigmergy[team]' (or pip install boto3)") from exc
            session = boto3.session.Session(region_name=self.where.region or None)
            self._client = session.client(
                "s3", endpoint_url=self.where.endpoint_url or None,
                config=Config(retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=10, read_timeout=60,
                              request_checksum_calculation="when_required",
                              response_checksum_validation="when_required"))
        return self._client

    def _fail(self, what: str, exc: BaseException) -> EvidenceError:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return EvidenceError(f"{what} in {self.where}: {detail}",
                             hint="check [evidence] in ~/.config/stigmergy/config.toml and your AWS credentials")

    def _errors(self) -> tuple[type[BaseException], ...]:
        from botocore.exceptions import BotoCoreError, ClientError

        return (BotoCoreError, ClientError)

    @staticmethod
    def _code(exc: BaseException) -> str:
        return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))

    def key(self, oid: str) -> str:
        _check_id(oid)
        return f"{self.prefix}objects/{oid[:2]}/{oid[2:]}"

    def claim(self) -> None:
        """Record which repository this prefix holds, or refuse another one (once per store)."""
        if self._claimed or not self.where.wiki:
            return
        marker = f"{self.prefix}wiki"
        try:
            try:
                held = self.client.get_object(Bucket=self.where.bucket, Key=marker)["Body"].read().decode().strip()
            except self._errors() as exc:
                if self._code(exc) not in ("NoSuchKey", "404"):
                    raise
                self.client.put_object(Bucket=self.where.bucket, Key=marker, Body=self.where.wiki.encode())
                held = self.where.wiki
        except self._errors() as exc:
            raise self._fail("cannot reach the evidence store", exc) from None
        if held != self.where.wiki:
            raise EvidenceError(
                f"the evidence store {self.where} holds another wiki (first commit {held[:12]}), not this one "
                f"({self.where.wiki[:12]})", hint="give this wiki its own: set evidence.prefix in "
                "~/.config/stigmergy/config.toml")
        self._claimed = True

    # ------------------------------------------------------------ the protocol

    def _stored_checksum(self, oid: str) -> str | None:
        """The SHA-256 the server verified at upload (None when the object is absent)."""
        try:
            head = self.client.head_object(Bucket=self.where.bucket, Key=self.key(oid), ChecksumMode="ENABLED")
        except self._errors() as exc:
            if self._code(exc) in ("404", "NoSuchKey", "NotFound"):
                return None
            raise self._fail(f"cannot look up evidence object {oid}", exc) from None
        return str(head.get("ChecksumSHA256") or "")

    def put(self, data: bytes, durable: bool = True) -> str:  # a put the server confirmed is durable
        self.claim()
        oid = object_id(data)
        if self.intact(oid):
            return oid
        key = self.key(oid)
        try:
            done = self.client.put_object(Bucket=self.where.bucket, Key=key, Body=data, ChecksumAlgorithm="SHA256",
                                          ChecksumSHA256=_b64(oid), ContentLength=len(data))
        except self._errors() as exc:
            raise self._fail(f"cannot store evidence object {oid}", exc) from None
        problem = self._unconfirmed(oid, data, done)
        if problem:
            # The key must never hold bytes other than its own: take back what the server stored.
            with contextlib.suppress(*self._errors()):
                self.client.delete_object(Bucket=self.where.bucket, Key=key)
            raise EvidenceError(f"the evidence store {self.where} did not confirm object {oid} ({problem})",
                                hint="the capture changed nothing; try again, then run `stigmergy fsck`")
        return oid

    def _unconfirmed(self, oid: str, data: bytes, answer: dict[str, Any]) -> str:
        """Why the server's answer to a PUT does not confirm `data` ("" when it does)."""
        checksum = answer.get("ChecksumSHA256")
        if checksum and checksum != _b64(oid):
            return f"its SHA-256 checksum is {checksum!r}"
        etag = str(answer.get("ETag") or "").strip('"')
        if len(etag) == 32 and all(c in "0123456789abcdef" for c in etag):
            if etag != hashlib.md5(data, usedforsecurity=False).hexdigest():
                return "the bytes it stored are not the bytes sent"
            if checksum:
                return ""
        elif checksum:
            return ""
        try:  # neither a checksum nor a plain ETag: read it back
            stored = self.client.get_object(Bucket=self.where.bucket, Key=self.key(oid))["Body"].read()
        except self._errors() as exc:
            return f"it cannot be read back: {exc}"
        return "" if object_id(stored) == oid else "the bytes read back are not the bytes sent"

    def get(self, oid: str, verify: bool = True) -> bytes:
        self.claim()
        try:
            data = self.client.get_object(Bucket=self.where.bucket, Key=self.key(oid))["Body"].read()
        except self._errors() as exc:
            if self._code(exc) in ("NoSuchKey", "404"):
                raise EvidenceError(f"evidence object {oid} is missing from {self.where}",
                                    hint="run `stigmergy fsck`") from None
            raise self._fail(f"cannot read evidence object {oid}", exc) from None
        if verify and hashlib.sha256(data).hexdigest() != oid:
            raise EvidenceError(f"evidence object {oid} is corrupt", hint="run `stigmergy fsck`")
        return bytes(data)

    def has(self, oid: str) -> bool:
        self.claim()
        return self._stored_checksum(oid) is not None

    def intact(self, oid: str) -> bool:
        self.claim()
        held = self._stored_checksum(oid)
        if held is None:
            return False
        if held:
            return held == _b64(oid)
        try:  # a server that keeps no checksum (or an object written without one): re-hash its bytes
            return object_id(self.get(oid, verify=False)) == oid
        except EvidenceError:
            return False

    def delete(self, oid: str) -> bool:
        self.claim()
        key = self.key(oid)
        existed = self._stored_checksum(oid) is not None
        try:
            self.client.delete_object(Bucket=self.where.bucket, Key=key)
            kept = self._delete_versions(key)
        except self._errors() as exc:
            raise self._fail(f"cannot delete evidence object {oid}", exc) from None
        if kept:
            self.kept_versions[oid] = kept
        return existed

    def _delete_versions(self, key: str) -> int:
        """Remove every old version of `key`, then its delete markers; how many versions the bucket kept.
        While a version is kept, the delete markers stay: removing them would bring that version back."""
        if not self.versioned():
            return 0
        versions, markers = self.versions(key)
        kept = 0
        for version in versions:
            try:
                self.client.delete_object(Bucket=self.where.bucket, Key=key, VersionId=version)
            except self._errors() as exc:
                if self._code(exc) in ("AccessDenied", "InvalidRequest", "MethodNotAllowed"):
                    kept += 1
                    continue
                raise
        for marker in markers if not kept else ():
            self.client.delete_object(Bucket=self.where.bucket, Key=key, VersionId=marker)
        return kept

    def versioned(self) -> bool:
        """Does the bucket keep old versions (versioning enabled or suspended)?"""
        try:
            status = self.client.get_bucket_versioning(Bucket=self.where.bucket).get("Status")
        except self._errors():
            return False
        return status in ("Enabled", "Suspended")

    def versions(self, key: str) -> tuple[list[str], list[str]]:
        """(version ids of stored bytes, version ids of delete markers) the bucket holds for exactly `key`."""
        versions: list[str] = []
        markers: list[str] = []
        pages = self.client.get_paginator("list_object_versions").paginate(Bucket=self.where.bucket, Prefix=key)
        for page in pages:
            for into, items in ((versions, page.get("Versions", [])), (markers, page.get("DeleteMarkers", []))):
                into += [str(i["VersionId"]) for i in items
                         if i.get("Key") == key and i.get("VersionId") not in (None, "null")]
        return versions, markers

    def residue(self, oid: str) -> list[tuple[str, str]]:
        """What of `oid` the bucket still holds (the object, old versions): the erase audit's findings."""
        self.claim()
        where = f"{self.where}objects/{oid[:2]}/{oid[2:]}"
        try:
            present = self._stored_checksum(oid) is not None
            versions = self.versions(self.key(oid))[0] if self.versioned() else []
        except self._errors() as exc:
            raise self._fail(f"cannot audit evidence object {oid}", exc) from None
        found = [(where, "the evidence object is present")] if present else []
        old = len(versions) - (1 if present else 0)
        if old > 0:
            found.append((where, f"{old} old version(s) kept by the bucket's versioning (Object Lock or a missing "
                                 "s3:DeleteObjectVersion permission); the bucket's owner must remove them"))
        return found

    def iter_ids(self) -> Iterator[str]:
        self.claim()
        base = f"{self.prefix}objects/"
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.where.bucket, Prefix=base)
            for page in pages:
                for item in page.get("Contents", []):
                    rest = str(item["Key"])[len(base):]
                    if len(rest) == 65 and rest[2] == "/":
                        yield rest[:2] + rest[3:]
        except self._errors() as exc:
            raise self._fail("cannot list the evidence objects", exc) from None


def _conforms(store: S3EvidenceStore) -> None:
    """The type checker proves here that this backend is an `EvidenceStore` (nothing calls it)."""
    from stigmergy.repo.evidence.protocol import EvidenceStore

    _: EvidenceStore = store
