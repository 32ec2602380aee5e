"""stigmergy: compile a team's raw material into a Git-backed Markdown wiki people and agents can trust."""

__version__ = "0.1.0"
