"""Settings: resolved once by the CLI's composition root (flag > STIGMERGY_* env > stigmergy.toml > defaults)
into a frozen object that is passed down. Nothing below the CLI reads the environment."""

from __future__ import annotations

import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from stigmergy.errors import ConfigError

CONFIG_FILE = "stigmergy.toml"
PUBLIC_LAYER = "public"


@dataclass(frozen=True)
class IdentitySettings:
    name: str = "stigmergy"
    email: str = "stigmergy@localhost"


@dataclass(frozen=True)
class CaptureSettings:
    max_bytes: int = 25_000_000
    max_pages: int = 500
    max_seconds: float = 60.0
    max_readable_chars: int = 2_000_000
    # An image (or a scanned PDF page) is decoded only when its header declares at most this many pixels.
    max_image_pixels: int = 40_000_000
    # OCR lines below this mean word confidence (0-100) are marked unsure: shown, never cited as facts.
    ocr_min_confidence: int = 60
    max_mail_parts: int = 200  # MIME parts of one message (a nested-multipart bomb is refused)
    include: tuple[str, ...] = ("*.md", "*.markdown", "*.txt", "*.html", "*.htm", "*.pdf", "*.docx", "*.eml",
                                "*.mbox", "*.png", "*.jpg", "*.jpeg", "*.tif", "*.tiff")
    exclude: tuple[str, ...] = (".*", "*/.*", "node_modules/*")


@dataclass(frozen=True)
class LockSettings:
    timeout_seconds: float = 30.0


@dataclass(frozen=True)
class PlannerSettings:
    kind: str = "deterministic"  # deterministic | openai | anthropic
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""
    timeout_seconds: float = 120.0
    max_retries: int = 3
    max_tokens: int = 8192
    temperature: float = 0.0


@dataclass(frozen=True)
class ContextSettings:
    """Byte budgets of the planner's context; trimming drops whole objects, lowest-ranked first."""

    source_bytes: int = 96_000
    candidate_bytes: int = 160_000
    evidence_bytes: int = 160_000
    entity_bytes: int = 24_000
    total_bytes: int = 480_000
    max_candidates: int = 12
    max_evidence: int = 12


@dataclass(frozen=True)
class EmbedderSettings:
    model: str = "all-MiniLM-L6-v2"
    backend: str = "onnx"  # onnx | sentence-transformers
    device: str = "cpu"
    batch_size: int = 32  # texts a run (sentence-transformers, fp32 ONNX on a GPU; otherwise one)
    max_seq_length: int = 256
    quantize: str = "int8"  # onnx backend: int8 (dynamic, per-channel) | none (fp32)


# A `read PATH#n` shows fragment n with enough neighbours on each side to hold about this many word pieces:
# one at the model's window of 256, three for a team that sets `[index] fragment_tokens = 96` (docs/index.md,
# issue 20, eleventh look), so that shorter fragments do not mean less context for a reader or an agent.
READ_SPAN_TOKENS = 256


@dataclass(frozen=True)
class IndexSettings:
    fragment_tokens: int = 0  # word pieces per fragment with its title and trail; 0: the model's window
    overlap_tokens: int = 32
    fragment_chars: int = 1200  # only for a model without a tokenizer.json
    overlap_chars: int = 200
    min_fragment_chars: int = 200
    # Stemmers besides English for pages that declare no `language:` (ISO 639-1 codes or Snowball names;
    # index/analysis.py). CJK needs no setting: its bigrams are always indexed.
    languages: tuple[str, ...] = ()
    # Where the index lives: "sqlite" (.stigmergy/index.sqlite, the default) or "postgres" (a shared
    # PostgreSQL + pgvector database). The repository may choose the backend; the connection string and
    # the schema are the user's (USER_ONLY_KEYS): STIGMERGY_INDEX__URL or ~/.config/stigmergy/config.toml.
    backend: str = "sqlite"
    url: str = ""
    schema: str = "stigmergy"

    def fragment_limit(self, model_window: int) -> int:
        """Word pieces a fragment may hold: `fragment_tokens` (the model's window when 0), never more than
        the model reads."""
        return max(1, min(model_window, self.fragment_tokens)) if self.fragment_tokens > 0 else model_window

    def read_neighbours(self, model_window: int) -> int:
        """How many fragments on each side a `read PATH#n` shows with fragment n (READ_SPAN_TOKENS)."""
        return min(8, max(1, -(-READ_SPAN_TOKENS // self.fragment_limit(model_window))))


@dataclass(frozen=True)
class EvidenceSettings:
    """`[evidence]`: where original bytes live. "local" (.stigmergy/objects/) or "s3" (an S3-compatible
    bucket, boto3; credentials from the standard AWS chain). Bucket, prefix, endpoint and region are the
    user's (USER_ONLY_KEYS)."""

    backend: str = "local"
    bucket: str = ""
    prefix: str = "stigmergy/"
    endpoint_url: str = ""
    region: str = ""


@dataclass(frozen=True)
class SearchSettings:
    k: int = 5
    rrf_k: int = 100
    title_weight: float = 1.0  # FTS5 bm25 column weights: title (+ aliases), heading trail; body is 1
    headings_weight: float = 1.0
    read_head_chars: int = 6000
    # A long-lived service's searches (serve) in this many worker processes (service/search_workers.py): one
    # process runs Python on one core at a time. 1 keeps them in the server's own threads.
    processes: int = 1


@dataclass(frozen=True)
class AnswerSettings:
    """`stigmergy ask`: the answerer (deterministic, or a model whose sentences the verifier checks)."""

    kind: str = "deterministic"  # deterministic | openai | anthropic | planner (the [planner] endpoint)
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""
    timeout_seconds: float = 60.0
    max_tokens: int = 1024
    k: int = 8  # pages retrieved for an answer
    # The deterministic answerer's refusal threshold on a line's score (docs/agents.md: calibrated on the
    # calibration half of bench/ask_*_questions.json; lower answers more and refuses less).
    threshold: float = 0.46
    # The lines a model answerer reads. "near_best": the eligible lines within POOL_RATIO of the best, once the
    # best passes `threshold` (a few lines around the deterministic answerer's own choice, and only when that
    # choice would be given). "eligible": the best LLM_POOL eligible lines once the best passes `llm_floor`; the
    # model says when none answers. On questions nobody here had read, the right line is among the first 50% of
    # the time and among the second 64% (docs/agents.md, issue 19, nineteenth pass); measure with your model.
    llm_pool: str = "near_best"
    llm_floor: float = 0.35


@dataclass(frozen=True)
class TrustSettings:
    """`[trust]`: reader feedback, Beta confidence, decay classes and the lifecycle (docs/trust.md). Every
    weight is documented there; the ranking factors are bounded by their own settings."""

    prior_alpha: float = 5.0  # Beta(5, 5): prior strength 10, split evenly
    prior_beta: float = 5.0
    useful_weight: float = 1.0  # alpha += for --useful
    wrong_weight: float = 1.0  # beta += for --wrong
    outdated_weight: float = 0.5  # beta += for --outdated (the page was right once)
    line_share: float = 0.5  # a claim line's feedback counts this much toward its page
    confirmation_weight: float = 0.5  # alpha += per supporting source beyond the first
    challenge_weight: float = 1.0  # beta += per open contradiction on the page
    gap_bonus: float = 0.2  # stable/permanent pages re-confirmed after decaying below half their peak
    decay_cap_days: float = 180.0  # gamma**min(days, cap): evidence never decays beyond recovery
    confidence_weight: float = 0.25  # ranking factor down to 1 - w for a page readers judged wrong; 0: off
    confidence_lift: float = 0.0  # ... and up to 1 + lift for one judged useful (being right is not relevance)
    exploration: float = 0.5  # UCB: mean + exploration * sd of the posterior
    verified_factor: float = 1.03  # ranking factor of a verified page (a candidate is 1)
    stale_factor: float = 0.90  # of a stale page (a rejected page is never ranked)
    freshness_amplitude: float = 0.04  # the freshness factor spans [1 - a/2, 1 + a/2]
    stale_confidence: float = 0.35  # maintain's sweep: decayed confidence below this -> stale
    ephemeral_days: int = 90  # ... or every source older than this and never confirmed (ephemeral pages)
    stable_days: int = 365  # (stable pages; permanent pages never go stale by age)
    contradiction_days: int = 30  # open contradictions older than this are listed
    popular_accesses: int = 5  # read this often ...
    popular_confidence: float = 0.65  # ... with confidence below this: popular but unexamined
    reset_errors: int = 4  # feedback against the posterior's prediction this often -> prior reset


@dataclass(frozen=True)
class LayerSettings:
    name: str
    readers: tuple[str, ...] = ("*",)
    # The layer lives in a Git repository of its own (its URL or path: what to clone), checked out at
    # `layers/<name>/` and ignored by this one, so the hosting's permissions decide who holds its bytes
    # (docs/team.md). Empty: the layer's files are in this repository.
    repository: str = ""


@dataclass(frozen=True)
class RoleSettings:
    """`[roles]`: who maintains each layer (default: its readers), and the identity `maintain` runs as."""

    maintainers: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (layer, identities) for layers that name theirs
    service: str = ""  # `maintain` from cron acts as this identity when set (else as the reader)

    def of(self, layer: str) -> tuple[str, ...] | None:
        return next((who for name, who in self.maintainers if name == layer), None)


@dataclass(frozen=True)
class Settings:
    identity: IdentitySettings = field(default_factory=IdentitySettings)
    capture: CaptureSettings = field(default_factory=CaptureSettings)
    lock: LockSettings = field(default_factory=LockSettings)
    planner: PlannerSettings = field(default_factory=PlannerSettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    evidence: EvidenceSettings = field(default_factory=EvidenceSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    answer: AnswerSettings = field(default_factory=AnswerSettings)
    trust: TrustSettings = field(default_factory=TrustSettings)
    layers: tuple[LayerSettings, ...] = (LayerSettings(PUBLIC_LAYER, ("*",)),)
    roles: RoleSettings = field(default_factory=RoleSettings)
    # `[channels]`: a chat channel ("#board", or its id) -> the layer its pages go to.
    channels: tuple[tuple[str, str], ...] = ()
    # Sections ("planner", "answer") whose model kind only the repository's file chose, with no endpoint
    # of the user's: using them is an error (require_endpoint), never a request to a vendor's public URL.
    repository_llm: tuple[str, ...] = ()

    def require_endpoint(self, section: str) -> None:
        """A model kind the repository chose needs an endpoint the user set (USER_ONLY_KEYS): a committed
        `[planner] kind = "openai"` alone must not send captured material to the vendor's public URL."""
        if section in self.repository_llm:
            kind = getattr(self, section).kind
            raise ConfigError(
                f"{CONFIG_FILE} sets {section}.kind = {kind!r}, and you have set no {section}.base_url, so "
                "nothing was sent [credentials]",
                hint=f"set STIGMERGY_{section.upper()}__BASE_URL or base_url under [{section}] in ~/.config/"
                f"{USER_CONFIG} to the endpoint you trust, or STIGMERGY_{section.upper()}__KIND=deterministic")

    def channel_layer(self, *keys: str) -> str | None:
        """The layer `[channels]` maps the first of `keys` it names to ("#board", "board", "C0123")."""
        table = dict(self.channels)
        for key in keys:
            if key in table:
                return table[key]
        return None

    def layer(self, name: str) -> LayerSettings:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ConfigError(
            f"unknown layer {name!r}", hint=f"declare it in {CONFIG_FILE} under [layers.{name}] with its readers"
        )

    def layer_names(self) -> tuple[str, ...]:
        return tuple(layer.name for layer in self.layers)


_SECTIONS = {
    "identity": IdentitySettings,
    "capture": CaptureSettings,
    "lock": LockSettings,
    "planner": PlannerSettings,
    "context": ContextSettings,
    "embedder": EmbedderSettings,
    "index": IndexSettings,
    "evidence": EvidenceSettings,
    "search": SearchSettings,
    "answer": AnswerSettings,
    "trust": TrustSettings,
}


def _coerce(cls: type, section: str, values: Mapping[str, Any], base: Any) -> Any:
    known = {f.name: f for f in fields(cls)}
    updates: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"unknown setting {section}.{key}", hint=f"remove it from {CONFIG_FILE}")
        current = getattr(base, key)
        if isinstance(current, tuple):
            if not isinstance(value, list | tuple):
                raise ConfigError(f"{section}.{key} must be a list")
            value = tuple(str(v) for v in value)
        elif isinstance(current, bool):
            value = bool(value) if not isinstance(value, str) else value.lower() in {"1", "true", "yes", "on"}
        elif isinstance(current, int):
            try:
                value = int(value)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{section}.{key} must be an integer") from exc
        elif isinstance(current, float):
            try:
                value = float(value)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{section}.{key} must be a number") from exc
        else:
            value = str(value)
        updates[key] = value
    return replace(base, **updates)


def settings_from_mapping(data: Mapping[str, Any], base: Settings | None = None) -> Settings:
    settings = base or Settings()
    for section, values in data.items():
        if section == "layers":
            if not isinstance(values, Mapping):
                raise ConfigError("[layers] must be a table of layers")
            layers = [LayerSettings(PUBLIC_LAYER, ("*",))]
            for name, spec in values.items():
                readers = tuple(str(r) for r in (spec or {}).get("readers", []))
                repository = str((spec or {}).get("repository", "") or "")
                if name == PUBLIC_LAYER:
                    if repository:
                        raise ConfigError("the public layer lives in this repository; only a restricted layer may "
                                          "name a repository of its own")
                    layers[0] = LayerSettings(PUBLIC_LAYER, readers or ("*",))
                else:
                    if repository and ("\n" in repository or len(repository) > 500):
                        raise ConfigError(f"layers.{name}.repository must be one line (a URL or path to clone)")
                    layers.append(LayerSettings(name, readers, repository))
            _check_layer_names([layer.name for layer in layers])
            settings = replace(settings, layers=tuple(layers))
            continue
        if section == "roles":
            settings = replace(settings, roles=_roles(values))
            continue
        if section == "channels":
            settings = replace(settings, channels=_channels(values))
            continue
        cls = _SECTIONS.get(section)
        if cls is None:
            raise ConfigError(f"unknown section [{section}] in {CONFIG_FILE}")
        if not isinstance(values, Mapping):
            raise ConfigError(f"[{section}] must be a table")
        settings = replace(settings, **{section: _coerce(cls, section, values, getattr(settings, section))})
    return settings


# Letters that render like a Latin one (Cyrillic and Greek look-alikes): `bоard` with a Cyrillic `о` must
# not pass for `board`, in a reader list or a folder name.
_LOOK_ALIKES = str.maketrans("аеорсухіјѕԁһӏԛԝοαντικρεχυ", "aeopcyxijsdhlqwoavtikpexu")


def _skeleton(name: str) -> str:
    """What a layer name looks like: width folded (NFKC), case folded, look-alike letters mapped."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOK_ALIKES)


def _check_layer_names(names: list[str]) -> None:
    """Two layers whose names differ only by case, width or look-alike letters would be two folders a
    person reads as one (and one folder on a case-insensitive disk): refused, naming both. Every name is
    then ASCII letters, digits, '-' or '_'."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(_skeleton(name), name)
        if other != name:
            raise ConfigError(f"layer names {other!r} and {name!r} differ only by case, width or look-alike letters",
                              hint=f"rename or remove one of them in {CONFIG_FILE}")
    for name in names:
        if not name.isascii() or not name.replace("-", "").replace("_", "").isalnum():
            raise ConfigError(f"layer name {name!r} must be ASCII letters, digits, '-' or '_'")


def _roles(values: Any) -> RoleSettings:
    """`[roles]`: `service = "identity"` and `[roles.maintainers]` `layer = ["identity", ...]`."""
    if not isinstance(values, Mapping):
        raise ConfigError("[roles] must be a table")
    unknown = sorted(set(values) - {"service", "maintainers"})
    if unknown:
        raise ConfigError(f"unknown setting roles.{unknown[0]}", hint="[roles] takes `service` and [roles.maintainers]")
    service = values.get("service", "")
    if not isinstance(service, str):
        raise ConfigError("roles.service must be one identity (a Git e-mail)")
    table = values.get("maintainers", {})
    if not isinstance(table, Mapping):
        raise ConfigError("[roles.maintainers] must be a table of layer = [identities]")
    maintainers = []
    for layer, who in table.items():
        if not isinstance(who, list) or not all(isinstance(w, str) and w.strip() for w in who):
            raise ConfigError(f"roles.maintainers.{layer} must be a list of identities (Git e-mails)")
        maintainers.append((str(layer), tuple(who)))
    return RoleSettings(tuple(maintainers), service.strip())


def _channels(values: Any) -> tuple[tuple[str, str], ...]:
    """`[channels]`: `"#board" = "board"` (a channel's name with or without '#', or its id -> a layer)."""
    if not isinstance(values, Mapping):
        raise ConfigError("[channels] must be a table of \"#channel\" = \"layer\"")
    out = []
    for key, layer in values.items():
        if not isinstance(layer, str) or not layer.strip():
            raise ConfigError(f"channels.{key} must name a layer")
        name = str(key).strip()
        if not name.lstrip("#"):
            raise ConfigError("[channels]: an empty channel name")
        out.append((name, layer.strip()))
    return tuple(out)


def _check_roles(settings: Settings) -> None:
    """Maintainers named for a layer that stigmergy.toml does not declare: a typo would leave that layer
    to its readers while the file seems to restrict it."""
    names = set(settings.layer_names())
    for layer, _who in settings.roles.maintainers:
        if layer not in names:
            raise ConfigError(f"roles.maintainers.{layer}: no such layer", hint=f"declare [layers.{layer}] first")
    for channel, layer in settings.channels:
        if layer not in names:
            # A typo must not send a private channel's pages to a layer that does not exist (or to public).
            raise ConfigError(f"channels.{channel!r} names layer {layer!r}, which is not declared",
                              hint=f"declare [layers.{layer}] first")


# Where a secret goes is the user's choice, never the repository's: anyone who can push may change
# stigmergy.toml, and a repository that could name `api_key_env = "AWS_SECRET_ACCESS_KEY"` and
# `base_url = "https://attacker.example"` would make the next capture send that secret to that host.
# These keys come only from the user's environment or user-level configuration file.
USER_ONLY_KEYS = (
    ("planner", "base_url"), ("planner", "api_key_env"), ("answer", "base_url"), ("answer", "api_key_env"),
    # Where the shared index and the evidence live: a repository that could name them could send every
    # capture to a bucket of its choosing, or write its pages into another wiki's index.
    ("index", "url"), ("index", "schema"),
    ("evidence", "bucket"), ("evidence", "prefix"), ("evidence", "endpoint_url"), ("evidence", "region"),
)
USER_CONFIG = "stigmergy/config.toml"


def user_config_path(env: Mapping[str, str]) -> Path | None:
    """`$XDG_CONFIG_HOME/stigmergy/config.toml`, else `~/.config/stigmergy/config.toml` (None without HOME)."""
    base = env.get("XDG_CONFIG_HOME") or (str(Path(env["HOME"]) / ".config") if env.get("HOME") else "")
    return Path(base) / USER_CONFIG if base else None


def _read_toml(path: Path, label: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{label} is not valid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{label} cannot be read: {exc}") from exc


def _refuse_user_only(data: Mapping[str, Any]) -> None:
    for section, key in USER_ONLY_KEYS:
        values = data.get(section)
        if isinstance(values, Mapping) and values.get(key) not in (None, ""):
            raise ConfigError(
                f"{CONFIG_FILE}: {section}.{key} may not be set by the repository [credentials]",
                hint=f"endpoints and keys are the user's: set STIGMERGY_{section.upper()}__{key.upper()} or put it "
                f"under [{section}] in ~/.config/{USER_CONFIG}, and remove it from {CONFIG_FILE}",
            )


def load_settings(
    root: Path | None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Settings:
    """flag (`overrides`) > STIGMERGY_SECTION__KEY env > stigmergy.toml > user config > defaults, where
    planner.base_url and planner.api_key_env come only from the user config, the environment or a flag
    (a repository file that sets them is refused: USER_ONLY_KEYS)."""
    settings = Settings()
    user = user_config_path(env or {})
    user_data: dict[str, Any] = {}
    repo_data: dict[str, Any] = {}
    if user is not None and user.is_file():
        data = user_data = _read_toml(user, str(user))
        for section in ("layers", "roles", "channels"):
            if section in data:
                raise ConfigError(f"{user}: {section} are declared by the repository, not by a user's configuration")
        settings = settings_from_mapping(data, settings)
    if root is not None and (root / CONFIG_FILE).is_file():
        data = repo_data = _read_toml(root / CONFIG_FILE, CONFIG_FILE)
        _refuse_user_only(data)
        settings = settings_from_mapping(data, settings)
    env_data: dict[str, dict[str, str]] = {}
    for key, value in (env or {}).items():
        if not key.startswith("STIGMERGY_") or "__" not in key:
            continue
        section, _, name = key[len("STIGMERGY_") :].lower().partition("__")
        if section in _SECTIONS:
            env_data.setdefault(section, {})[name] = value
    if env_data:
        settings = settings_from_mapping(env_data, settings)
    if overrides:
        settings = settings_from_mapping(overrides, settings)
    settings = replace(settings, repository_llm=_repository_llm(settings, repo_data, env_data, overrides, user_data))
    _check_roles(settings)
    _check_backends(settings)
    return settings


def _repository_llm(settings: Settings, repo: Mapping[str, Any], *users: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The sections whose model kind the repository's file set and nothing of the user's did (their file,
    the environment, a flag), with no base_url: the user never chose to send anything anywhere."""
    out = []
    for section in ("planner", "answer"):
        kind = getattr(settings, section).kind
        if kind not in ("openai", "anthropic") or getattr(settings, section).base_url:
            continue
        chosen_by_user = any(isinstance((u or {}).get(section), Mapping) and (u or {})[section].get("kind") == kind
                             for u in users)
        if isinstance(repo.get(section), Mapping) and repo[section].get("kind") == kind and not chosen_by_user:
            out.append(section)
    return tuple(out)


def refresh_declarations(settings: Settings, raw: bytes | None) -> Settings:
    """`settings` with the repository's declarations (`[layers]`, `[roles]`, `[channels]`) read again from
    stigmergy.toml's bytes `raw` (None: no file, so none declared); everything else is kept."""
    try:
        data = tomllib.loads(raw.decode("utf-8")) if raw is not None else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{CONFIG_FILE} is not valid TOML: {exc}") from exc
    _refuse_user_only(data)
    base = replace(settings, layers=Settings().layers, roles=RoleSettings(), channels=())
    fresh = settings_from_mapping({k: v for k, v in data.items() if k in ("layers", "roles", "channels")}, base)
    _check_roles(fresh)
    return fresh


MAX_SEARCH_PROCESSES = 64


def _check_backends(settings: Settings) -> None:
    if not 1 <= settings.search.processes <= MAX_SEARCH_PROCESSES:
        raise ConfigError(f"search.processes must be from 1 to {MAX_SEARCH_PROCESSES}, not {settings.search.processes}")
    if settings.index.backend not in ("sqlite", "postgres"):
        raise ConfigError(f"index.backend must be \"sqlite\" or \"postgres\", not {settings.index.backend!r}")
    if settings.evidence.backend not in ("local", "s3"):
        raise ConfigError(f"evidence.backend must be \"local\" or \"s3\", not {settings.evidence.backend!r}")
    if not settings.index.schema.replace("_", "").isalnum() or not settings.index.schema[:1].isalpha() \
            or len(settings.index.schema) > 48:
        raise ConfigError(f"index.schema {settings.index.schema!r} must be a letter then letters, digits or '_' "
                          "(48 at most)")


def default_toml() -> str:
    return (Path(__file__).parent / "data" / "stigmergy.toml").read_text(encoding="utf-8")
