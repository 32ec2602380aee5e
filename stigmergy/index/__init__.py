"""The index stage: fragments, embedder, SQLite store (FTS5 + sqlite-vec), build, search, reads, hooks.

Public entry points (import them from their modules; this package imports nothing heavy on its own):

- `stigmergy.index.store`: the `IndexStore` protocol and `open_index` (every SQL statement: `store/sqlite*.py`)
- `stigmergy.index.build`: `build_index`, `check_index`, `prepare` (the writer; the read side never imports it)
- `stigmergy.index.freshness`: `freshness`, `current_fingerprint`, `index_building`
- `stigmergy.index.search`: `Searcher`, `search`, `run_search`, `Filters` (over `session.SearchScope`)
- `stigmergy.index.page_lookup`: `page_paths`
- `stigmergy.index.reads`: `read_pages`, `list_pages`, `describe_entity`
- `stigmergy.index.hooks`: `install`, `install_server`, `uninstall`, `run_hook_index`
- `stigmergy.index.embedder`: `Embedder` (protocol), `make_embedder`, `OnnxEmbedder`, `SentenceTransformerEmbedder`

docs/index.md describes the behaviour, the JSON shapes and the schema.
"""
