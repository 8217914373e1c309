"""Score stage: the official parsers, open-answer matching, fallback policy, aggregation."""
