"""The page of ``hgenv serve`` (index.html, app.js, style.css): package data, read by ``hg_env.web.app``."""
