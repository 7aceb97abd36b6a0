"""Inventory of a small shop."""
