"""Topic weighting per domain: which documents a domain's designer should mostly be grounded in."""

from __future__ import annotations

from collections.abc import Mapping

from spade_core.corpora.base import DEFAULT_TOPIC_KEY, Corpus

MATCHED_TOPICS_DEFAULT_WEIGHT = 0.1
"""Weight of unlisted topics when a domain's topics give no ``"*"`` weight of their own (keeps some variety)."""


def topic_weights_for(corpus: Corpus, domain_topics: Mapping[str, float] | None) -> dict[str, float] | None:
    """Topic weights for sampling ``corpus`` documents for a domain whose ``DomainSpec.topics`` are ``domain_topics``,
    or ``None`` (uniform) if none of them is a topic of the corpus.

    A domain topic applies wherever its name equals one of the corpus's topics (case-insensitive); ``"*"`` weighs
    every unlisted topic (:data:`MATCHED_TOPICS_DEFAULT_WEIGHT` when the domain gives none). Streaming corpora are
    not scanned for their topics, so they are sampled uniformly.
    """
    if not domain_topics or getattr(corpus, "streaming", False):
        return None
    by_lower = {topic.lower(): topic for topic in corpus.topics()}
    weights: dict[str, float] = {}
    for topic, weight in domain_topics.items():
        corpus_topic = by_lower.get(topic.lower())
        if corpus_topic is not None:
            weights[corpus_topic] = max(weights.get(corpus_topic, 0.0), float(weight))
    if not weights:
        return None
    weights[DEFAULT_TOPIC_KEY] = float(domain_topics.get(DEFAULT_TOPIC_KEY, MATCHED_TOPICS_DEFAULT_WEIGHT))
    return weights
