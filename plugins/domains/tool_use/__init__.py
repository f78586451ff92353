"""The tool-use domain: structured tool calls checked against JSON schemas, scored by final-state equality."""
