"""The agents' interface: an MCP server (official `mcp` SDK) whose tools call the same library functions
as the CLI, scoped by a reader fixed when the server starts. `server.build_server` is the entry point;
`http.serve_http` adds the bearer-token streamable HTTP transport."""
