"""What acts on a repository's whole history and its portability: erasure (scrub, rewrite, purge), the
residue audit, and the export bundle with its replay into a fresh repository."""
