"""`stigmergy serve`: the team server (MCP for agents, a read-only web view for people), identity from
per-person tokens. `app.build_app(config, routes)` is the one application; other front ends (the chat
endpoints) contribute routes to it."""
