"""LLM planners over plain HTTP: any OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM,
llama.cpp server) and Anthropic messages. httpx is imported when a request is made, never at import.

Both ask for structured output (OpenAI `response_format` json_schema; Anthropic a forced tool call with
`input_schema`), validate the reply with the strict plan parser, and give an invalid reply one chance to
correct itself. Transport failures (timeouts, connection errors, 429, 5xx) are retried with backoff up to
planner.max_retries, honouring Retry-After.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stigmergy.errors import ConfigError, PlannerError, PlanSchemaError
from stigmergy.plan.context import PlannerContext, context_record
from stigmergy.plan.planner import PlannerReply
from stigmergy.plan.prompt import build_request, load_skill, new_nonce, render_invalid, render_refusal
from stigmergy.plan.schema import Plan, plan_from_dict, plan_json_schema
from stigmergy.settings import PlannerSettings

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
TOOL_NAME = "file_plan"
MAX_BACKOFF_SECONDS = 60.0


def api_key(settings: PlannerSettings, env: Mapping[str, str]) -> str:
    """The key from the environment variable settings.api_key_env names ('' when none is named: local
    servers such as Ollama need none)."""
    if not settings.api_key_env:
        return ""
    key = env.get(settings.api_key_env, "")
    if not key:
        raise ConfigError(
            f"environment variable {settings.api_key_env} (planner.api_key_env) is not set",
            hint=f"export {settings.api_key_env}=… or set [planner] kind = \"deterministic\"",
        )
    return key


class _Transport:
    """POST JSON with timeouts and bounded retries; returns the decoded JSON reply and attempt count."""

    def __init__(self, settings: PlannerSettings, sleep: Callable[[float], None]) -> None:
        self.settings = settings
        self.sleep = sleep

    def post(self, url: str, headers: dict[str, str], body: bytes) -> tuple[dict[str, Any], int]:
        import httpx

        attempts = 0
        last = ""
        with httpx.Client(timeout=self.settings.timeout_seconds) as client:
            while True:
                attempts += 1
                retry_after: float | None = None
                try:
                    resp = client.post(url, headers=headers, content=body)
                except httpx.TimeoutException:
                    last = f"timed out after {self.settings.timeout_seconds:g}s"
                except httpx.TransportError as exc:
                    last = f"connection failed ({type(exc).__name__})"
                else:
                    if resp.status_code == 200:
                        try:
                            return resp.json(), attempts
                        except ValueError as exc:
                            raise PlannerError(f"{url} answered with a body that is not JSON") from exc
                    last = f"HTTP {resp.status_code}"
                    if resp.status_code != 429 and resp.status_code < 500:
                        # A 4xx other than 429 will not get better by asking again (bad key, bad model).
                        raise PlannerError(f"{url} refused the request: HTTP {resp.status_code}: {_snippet(resp.text)}")
                    retry_after = _retry_after(resp.headers.get("retry-after"))
                if attempts > self.settings.max_retries:
                    raise PlannerError(
                        f"planner endpoint {url} failed after {attempts} attempt(s): {last}",
                        hint="check planner.base_url and that the server is up, or raise planner.timeout_seconds",
                    )
                delay = retry_after if retry_after is not None else min(0.5 * 2 ** (attempts - 1), MAX_BACKOFF_SECONDS)
                self.sleep(min(delay, MAX_BACKOFF_SECONDS))


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _snippet(text: str) -> str:
    return " ".join(text.split())[:200]


class _LLMPlanner:
    kind = ""
    repairs = True

    def __init__(
        self, settings: PlannerSettings, key: str, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        if not settings.model:
            raise ConfigError(f"planner.model is empty for the {self.kind} planner", hint="set [planner] model in stigmergy.toml")
        self.settings = settings
        self.key = key
        self.transport = _Transport(settings, sleep)
        # The last conversation, so that a repair round continues it (one filing at a time per planner).
        self._last: tuple[int, list[dict[str, Any]], str, dict[str, Any], dict[str, Any]] | None = None

    # -- protocol specifics ---------------------------------------------------------------------

    def _request(self, system: str, messages: list[dict[str, Any]]) -> tuple[str, dict[str, str], dict[str, Any]]:
        raise NotImplementedError

    def _reply(self, data: dict[str, Any]) -> tuple[str, Any, dict[str, int]]:
        """(reply text as recorded, parsed plan JSON or None, token counts)."""
        raise NotImplementedError

    def _assistant(self, reply_text: str, data: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _feedback_message(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"role": "user", "content": text}

    # -- the planner -----------------------------------------------------------------------------

    def plan(self, context: PlannerContext, feedback: Sequence[str] = ()) -> PlannerReply:
        system = load_skill(context.root)
        key = id(context)
        if feedback and self._last is not None and self._last[0] == key:
            _, messages, nonce, last_data, ctx_rec = self._last
            messages = [*messages, self._feedback_message(render_refusal(list(feedback), nonce), last_data)]
        else:
            nonce = new_nonce()
            trimmed, user = build_request(context, nonce)
            ctx_rec = context_record(trimmed, len(user.encode("utf-8")))
            messages = [{"role": "user", "content": user}]
        rounds: list[dict[str, Any]] = []
        for attempt in (1, 2):
            url, headers, body = self._request(system, messages)
            raw = json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")
            data, http_attempts = self.transport.post(url, headers, raw)
            reply_text, plan_json, tokens = self._reply(data)
            round_rec = {
                "prompt_sha256": hashlib.sha256(raw).hexdigest(),
                "prompt_bytes": len(raw),
                "reply": reply_text,
                "tokens": tokens,
                "http_attempts": http_attempts,
            }
            rounds.append(round_rec)
            plan, reasons = _parse(plan_json)
            messages = [*messages, self._assistant(reply_text, data)]
            if plan is not None:
                self._last = (key, messages, nonce, data, ctx_rec)
                record = {
                    "planner": self.kind,
                    "model": self.settings.model,
                    "endpoint": url,
                    "nonce": nonce,
                    "context": ctx_rec,
                    **round_rec,
                    "tokens": _sum_tokens(rounds),
                }
                if len(rounds) > 1:
                    record["invalid_replies"] = rounds[:-1]
                return PlannerReply(plan, record)
            round_rec["invalid"] = reasons
            if attempt == 1:
                messages = [*messages, self._feedback_message(render_invalid(reasons, nonce), data)]
        raise PlannerError(
            f"the {self.kind} planner's reply is not a valid plan after one correction: {'; '.join(reasons[:3])}",
            hint="try a stronger model, or set [planner] kind = \"deterministic\"",
        )


def _sum_tokens(rounds: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rounds:
        for k, v in r["tokens"].items():
            out[k] = out.get(k, 0) + int(v)
    return out


def _parse(plan_json: Any) -> tuple[Plan | None, list[str]]:
    if isinstance(plan_json, str):
        try:
            plan_json = json.loads(plan_json)
        except json.JSONDecodeError as exc:
            return None, [f"reply is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"]
    if plan_json is None:
        return None, ["reply holds no plan"]
    try:
        return plan_from_dict(plan_json), []
    except PlanSchemaError as exc:
        return None, exc.reasons


class OpenAIPlanner(_LLMPlanner):
    """Chat completions with a json_schema response_format."""

    kind = "openai"

    def _request(self, system: str, messages: list[dict[str, Any]]) -> tuple[str, dict[str, str], dict[str, Any]]:
        base = (self.settings.base_url or OPENAI_DEFAULT_URL).rstrip("/")
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        body = {
            "model": self.settings.model,
            "messages": [{"role": "system", "content": system}, *messages],
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "plan", "schema": plan_json_schema(), "strict": False},
            },
        }
        return f"{base}/chat/completions", headers, body

    def _reply(self, data: dict[str, Any]) -> tuple[str, Any, dict[str, int]]:
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise PlannerError("chat completions reply has no choices[0].message") from exc
        text = message.get("content") or ""
        usage = data.get("usage") or {}
        tokens = {"input": int(usage.get("prompt_tokens", 0)), "output": int(usage.get("completion_tokens", 0))}
        return text, _strip_code_fence(text), tokens

    def _assistant(self, reply_text: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": reply_text}


def _strip_code_fence(text: str) -> str:
    # Some local servers wrap JSON in ``` fences despite response_format.
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped


class AnthropicPlanner(_LLMPlanner):
    """Messages API with one forced tool whose input_schema is the plan schema."""

    kind = "anthropic"

    def _request(self, system: str, messages: list[dict[str, Any]]) -> tuple[str, dict[str, str], dict[str, Any]]:
        base = (self.settings.base_url or ANTHROPIC_DEFAULT_URL).rstrip("/")
        headers = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if self.key:
            headers["x-api-key"] = self.key
        body = {
            "model": self.settings.model,
            "system": system,
            "messages": messages,
            "max_tokens": self.settings.max_tokens,
            "temperature": self.settings.temperature,
            "tools": [
                {
                    "name": TOOL_NAME,
                    "description": "Propose the plan that files the source into the wiki.",
                    "input_schema": plan_json_schema(),
                }
            ],
            "tool_choice": {"type": "tool", "name": TOOL_NAME},
        }
        url = f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"
        return url, headers, body

    def _reply(self, data: dict[str, Any]) -> tuple[str, Any, dict[str, int]]:
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise PlannerError("messages reply has no content list")
        usage = data.get("usage") or {}
        tokens = {"input": int(usage.get("input_tokens", 0)), "output": int(usage.get("output_tokens", 0))}
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == TOOL_NAME:
                plan_input = block.get("input")
                return json.dumps(plan_input, ensure_ascii=False, sort_keys=True), plan_input, tokens
        text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        return text, _strip_code_fence(text) if text.strip() else None, tokens

    def _assistant(self, reply_text: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": data.get("content") or [{"type": "text", "text": reply_text}]}

    def _feedback_message(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        # After a tool_use block the next user turn must answer it with a tool_result.
        for block in data.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                return {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": block.get("id", ""), "content": text, "is_error": True}],
                }
        return {"role": "user", "content": text}
