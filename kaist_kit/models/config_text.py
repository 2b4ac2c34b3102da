"""A run's config formatted as text once, not at every use."""

from __future__ import annotations

from mmengine.config import Config

# Texts by the config's content: a run asks for its config's text five times (the log, the work folder's
# copy, every checkpoint's meta and message hub), and mmengine formats it with yapf every time: 0.8 s of
# CPU for a detector's config, a third of a `kaist-kit test` on the tiny synthetic set.
_TEXTS: dict[str, str] = {}
_KEPT = 16


class FormattedOnce(Config):
    """mmengine's Config, its ``pretty_text`` formatted once for each content it has held."""

    @property
    def pretty_text(self) -> str:
        key = repr(self._cfg_dict)
        text = _TEXTS.get(key)
        if text is None:
            if len(_TEXTS) >= _KEPT:
                _TEXTS.clear()
            text = _TEXTS[key] = Config.pretty_text.fget(self)
        return text


def format_text_once(cfg: Config) -> Config:
    """``cfg`` itself, its text formatted once per content from now on (mmengine's copies of it too)."""
    object.__setattr__(cfg, "__class__", FormattedOnce)  # Config.__setattr__ would store it as a key
    return cfg
