"""Anchors: person/document mentions → stable, readable anchor ids."""
