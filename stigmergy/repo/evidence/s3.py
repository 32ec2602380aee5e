"""The evidence store in an S3-compatible bucket (boto3): every object call on evidence in S3 is in this
module. `[evidence] backend = "s3"`; bucket, prefix, endpoint and region from the user's configuration,
credentials from the standard AWS chain (environment, shared files, instance roles).

- Objects are keyed by their sha256 as on disk: `<prefix>objects/ab/cdef…`.
- **put** is idempotent and verified: an object already there whose stored SHA-256 checksum matches is
  left alone; otherwise it is uploaded with `ChecksumSHA256`, which the server checks against the bytes
  it received (a body damaged on the way is refused), and the checksum it returns must be ours. One
  PUT per object, so an interrupted upload leaves no object: it lands whole or not at all.
- **get** re-hashes what came back; **intact** asks the server for the checksum it verified at upload
  (cheap: no download); `fsck` downloads and re-hashes every object.
- **delete** (erase) removes the object and, in a versioned bucket, every old version it may; versions the
  bucket keeps (Object Lock, a missing permission) are counted in `kept_versions` for the audit.
- **Which wiki.** `<prefix>wiki` names the repository (root commit) the prefix belongs to; another
  repository pointed at the same prefix is refused, as for the shared index.
"""

from __future__ import annotations

import base64
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

    def put(self, data: bytes) -> str:
        self.claim()
        oid = object_id(data)
        if self._stored_checksum(oid) == _b64(oid):
            return oid
        try:
            done = self.client.put_object(Bucket=self.where.bucket, Key=self.key(oid), Body=data,
                                          ChecksumSHA256=_b64(oid), ContentLength=len(data))
        except self._errors() as exc:
            raise self._fail(f"cannot store evidence object {oid}", exc) from None
        if done.get("ChecksumSHA256") != _b64(oid):
            raise EvidenceError(f"the evidence store {self.where} did not confirm object {oid} "
                                f"(checksum {done.get('ChecksumSHA256')!r})", hint="run `stigmergy fsck`")
        return oid

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
        return self._stored_checksum(oid) == _b64(oid)

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
        """Remove every old version and delete marker of `key`; how many the bucket kept."""
        if not self.versioned():
            return 0
        kept = 0
        for version in self.versions(key):
            try:
                self.client.delete_object(Bucket=self.where.bucket, Key=key, VersionId=version)
            except self._errors() as exc:
                if self._code(exc) in ("AccessDenied", "InvalidRequest", "MethodNotAllowed"):
                    kept += 1
                    continue
                raise
        return kept

    def versioned(self) -> bool:
        """Does the bucket keep old versions (versioning enabled or suspended)?"""
        try:
            status = self.client.get_bucket_versioning(Bucket=self.where.bucket).get("Status")
        except self._errors():
            return False
        return status in ("Enabled", "Suspended")

    def versions(self, key: str) -> list[str]:
        """Version ids (old versions and delete markers) the bucket holds for exactly `key`."""
        out: list[str] = []
        pages = self.client.get_paginator("list_object_versions").paginate(Bucket=self.where.bucket, Prefix=key)
        for page in pages:
            for item in (*page.get("Versions", []), *page.get("DeleteMarkers", [])):
                if item.get("Key") == key and item.get("VersionId") not in (None, "null"):
                    out.append(str(item["VersionId"]))
        return out

    def residue(self, oid: str) -> list[str]:
        """What of `oid` the bucket still holds (the object, old versions): the erase audit's findings."""
        self.claim()
        found = []
        if self._stored_checksum(oid) is not None:
            found.append(f"{self.where}objects/{oid[:2]}/{oid[2:]} is present")
        if self.versioned():
            n = len([v for v in self.versions(self.key(oid))])
            if n:
                found.append(f"{self.where}objects/{oid[:2]}/{oid[2:]}: {n} old version(s) kept by the bucket's "
                             "versioning")
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
