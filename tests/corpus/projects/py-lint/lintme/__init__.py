"""Lint me: a package with planted lint errors."""
