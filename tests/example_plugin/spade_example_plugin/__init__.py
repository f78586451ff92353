"""An out-of-tree SPADE domain plugin: the ``tally`` domain (count things, answer with a whole number).

It is the template for a third-party domain and touches nothing in SPADE's core: a ``DomainSpec`` (guidance, answer
kind, topic weights, worked examples, the sandbox module its environments import), a verification helper module
exposed to sandboxed environment code, and seed environments in the designer format.
"""
