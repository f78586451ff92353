"""The Environment Designer role: prompts, completion parsing, and the design-validate-repair loop."""
