"""Text helpers."""


def slug(title):
    return "-".join(title.lower().split())


def shorten(text, width):
    return text if len(text) <= width else text[: width - 1] + "…"
