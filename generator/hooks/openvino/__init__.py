"""See docs/generator-hooks.md."""
