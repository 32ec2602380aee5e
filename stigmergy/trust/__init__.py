"""Trust from use (DESIGN §14, docs/trust.md): reader feedback kept in Git as append-only records
(`records`), each page's Beta posterior with its decay class, tier and lifecycle status (`model`), the fold
of every record into per-page and per-line evidence (`book`), and the local access counts (`access`)."""
