"""Prompt stage: pure functions from an Item and a protocol to a Request."""
