"""The code domain: code-block parsing, sandboxed test running, designer guidance, seed environments."""
