"""Topic weighting per domain: which documents a domain's designer should mostly be grounded in."""

from __future__ import annotations

from collections.abc import Mapping

from spade_core.corpora.base import DEFAULT_TOPIC_KEY, Corpus

MATCHED_TOPICS_DEFAULT_WEIGHT = 0.1
"""Weight of unlisted topics when the weights come only from a domain's own topic names (keeps some variety)."""


def topic_weights_for(
    domain: str, corpus: Corpus, domain_topics: Mapping[str, float] | None = None
) -> dict[str, float] | None:
    """Topic weights for sampling ``corpus`` documents for ``domain``, or ``None`` (uniform) if nothing applies.

    Two sources, merged by taking the larger weight: the corpus's own preset for the domain (a corpus class may
    define ``domain_topic_weights``, as the wiki corpus does for its twelve topics), and the domain plugin's
    ``DomainSpec.topics`` wherever a name equals one of the corpus's topics (case-insensitive). Streaming corpora
    are not scanned for their topics; only their preset applies.
    """
    presets: Mapping[str, Mapping[str, float]] = getattr(corpus, "domain_topic_weights", {}) or {}
    weights: dict[str, float] = dict(presets.get(domain, {}))
    if domain_topics and not getattr(corpus, "streaming", False):
        by_lower = {topic.lower(): topic for topic in corpus.topics()}
        matched = False
        for topic, weight in domain_topics.items():
            corpus_topic = by_lower.get(topic.lower())
            if corpus_topic is not None:
                weights[corpus_topic] = max(weights.get(corpus_topic, 0.0), float(weight))
                matched = True
        if matched and DEFAULT_TOPIC_KEY not in weights:
            weights[DEFAULT_TOPIC_KEY] = MATCHED_TOPICS_DEFAULT_WEIGHT
    return weights or None
