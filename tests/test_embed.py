"""Embeddings: the ONNX path matches sentence-transformers, and a query process needs no torch."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_index_support import shared_embedder, shared_onnx_cache

from stigmergy.index.embedder import fingerprint, model_key, resolve_model
from stigmergy.settings import EmbedderSettings, IndexSettings

TEXTS = [
    "Aurora reached $1.3M ARR in Q1 2026.",
    "Who owns the Lisbon office lease?",
    "Die Katze sitzt auf der Matte.",
    "word " * 400,  # longer than max_seq_length: truncation must match
    "",
    "Acme Corp\nHistory > Founding\nAcme was founded in 1999 by two engineers in a garage in Porto.",
]


def test_fingerprint_follows_model_and_chunking(tmp_path: Path) -> None:
    info = resolve_model(EmbedderSettings())
    assert info.dimension == 384 and info.pooling == "mean" and info.normalize and info.max_seq_length == 256
    key = model_key(info.path, tmp_path)
    assert key == model_key(info.path, tmp_path)  # memoised
    a = fingerprint(info, key, IndexSettings())
    assert a == fingerprint(info, key, IndexSettings())
    assert a != fingerprint(info, key, IndexSettings(fragment_chars=999))
    assert a != fingerprint(replace(info, max_seq_length=128), key, IndexSettings())


@pytest.mark.model
def test_onnx_matches_sentence_transformers(tmp_path_factory: pytest.TempPathFactory) -> None:
    from stigmergy.index.embedder import SentenceTransformerEmbedder

    onnx = shared_embedder(tmp_path_factory.getbasetemp())
    reference = SentenceTransformerEmbedder(resolve_model(EmbedderSettings()))
    a, b = onnx.embed(TEXTS), reference.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert float((a * b).sum(axis=1).min()) >= 0.9999


@pytest.mark.model
def test_query_process_needs_no_torch(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = shared_onnx_cache(tmp_path_factory.getbasetemp())
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from stigmergy.index.embedder import OnnxEmbedder, resolve_model\n"
        "from stigmergy.settings import EmbedderSettings\n"
        f"e = OnnxEmbedder(resolve_model(EmbedderSettings()), Path({str(cache)!r}))\n"
        "v = e.embed(['hello'])\n"
        "assert v.shape == (1, 384)\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys, runpy\n"
        "sys.argv = ['stigmergy', '--help']\n"
        "try:\n    runpy.run_module('stigmergy', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'onnxruntime', 'sqlite_vec') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.model
@pytest.mark.parametrize("quantize", ["none", "int8"])
def test_the_saved_optimised_graph_embeds_as_the_runtime_optimised_model(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, quantize: str) -> None:
    """A new process loads the graph onnxruntime optimised and saved the first time (embedder.py
    `_cpu_session`): its vectors are the ones onnxruntime's default in-memory optimisation gives."""
    import onnxruntime as ort

    from stigmergy.index.embedder import OnnxEmbedder, export_onnx

    info = resolve_model(EmbedderSettings())
    shared = shared_onnx_cache(tmp_path_factory.getbasetemp())
    model = export_onnx(info, shared, quantize)
    cache = tmp_path / "cache"  # a cache of its own, holding links to the session's export
    folder = cache / "onnx" / model.parent.name
    folder.mkdir(parents=True)
    (cache / "onnx" / "model-keys.json").write_bytes((shared / "onnx" / "model-keys.json").read_bytes())
    for f in model.parent.glob("model*.onnx"):
        if ".ort-" not in f.name:
            (folder / f.name).symlink_to(f)
    first = OnnxEmbedder(info, cache, quantize=quantize)  # optimises and saves
    saved = list(folder.glob("*.ort-*.onnx"))
    assert len(saved) == 1 and not list(folder.glob(".tmp-*"))
    second = OnnxEmbedder(info, cache, quantize=quantize)  # loads the saved graph
    plain = OnnxEmbedder(info, cache, quantize=quantize)
    plain._session = ort.InferenceSession(str(folder / model.name), providers=["CPUExecutionProvider"])
    a, b, c = first.embed(TEXTS), second.embed(TEXTS), plain.embed(TEXTS)
    np.testing.assert_allclose(a, c, atol=1e-6)
    np.testing.assert_allclose(b, c, atol=1e-6)


@pytest.mark.model
@pytest.mark.parametrize("quantize", ["none", "int8"])
def test_a_text_s_vector_does_not_depend_on_the_texts_beside_it(
        tmp_path_factory: pytest.TempPathFactory, quantize: str) -> None:
    """Dynamic int8 quantisation scales a run's activations as a whole: embedded in one batch with a longer
    text, a sentence's vector moved (cosine 0.992), so an index's vectors depended on the batches they were
    made in and an answer's on what its cache held. Each text is embedded in a run of its own."""
    from stigmergy.index.embedder import OnnxEmbedder

    info = resolve_model(EmbedderSettings())
    e = OnnxEmbedder(info, shared_onnx_cache(tmp_path_factory.getbasetemp()), quantize=quantize)
    alone = [e.embed([t])[0] for t in TEXTS]
    together = e.embed(TEXTS)
    reversed_ = e.embed(TEXTS[::-1])[::-1]
    for i in range(len(TEXTS)):
        assert np.array_equal(alone[i], together[i]) and np.array_equal(alone[i], reversed_[i]), TEXTS[i][:30]


def test_int8_vectors_made_one_text_a_run_have_a_fingerprint_of_their_own(tmp_path: Path) -> None:
    info = resolve_model(EmbedderSettings())
    key = model_key(info.path, tmp_path)
    assert fingerprint(info, key, IndexSettings(), "int8") != fingerprint(info, key, IndexSettings(), "none")
