"""Nothing wrong here."""


def double(value):
    return value * 2
