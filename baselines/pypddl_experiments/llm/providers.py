"""Model providers behind one neutral interface.

``anthropic``: the Messages API (official SDK). ``openai``: Chat Completions
(official SDK), also for any compatible server given by ``base_url``. Both
read their key from the environment and refuse to start without one. The
SDKs are imported only when a provider is created. ``offline``: no network,
no key, no model (:class:`~.provider_offline.OfflinePlanner`, a stand-in that
plays recorded or searched plans, to try the pipeline).
"""

from __future__ import annotations

from typing import Any

from .provider_base import Provider
from .types import ProviderError

__all__ = ["PROVIDERS", "Provider", "create_provider"]

PROVIDERS = ("anthropic", "openai", "offline")
SDK_PROVIDERS = ("anthropic", "openai")

DEFAULT_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def create_provider(
    provider: str,
    model: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    **options: Any,
) -> Provider:
    key_env = api_key_env or DEFAULT_KEY_ENV.get(provider, "")
    if provider == "offline":
        from .provider_offline import OfflinePlanner

        return OfflinePlanner(options.get("plans"), source=options.get("plans_source"))
    if provider in SDK_PROVIDERS:
        _require_sdk(provider)
    if provider == "anthropic":
        from .provider_anthropic import AnthropicProvider

        return AnthropicProvider(model, base_url=base_url, api_key_env=key_env)
    if provider == "openai":
        from .provider_openai import OpenAIChatProvider

        return OpenAIChatProvider(model, base_url=base_url, api_key_env=key_env, **options)
    raise ValueError(f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}")


def _require_sdk(provider: str) -> None:
    """Refuse, with the install command, when the provider's SDK is missing
    (both come with the ``llm`` extra)."""
    import importlib.util

    if importlib.util.find_spec(provider) is None:
        raise ProviderError(
            "bad_request",
            f"the {provider} SDK is not installed; install it with: pip install 'pypddlengine[llm]' "
            f"(or pip install {provider})",
        )
